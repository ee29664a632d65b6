/**
 * A standalone OTLP/HTTP receiver process (the app's receiveOtlpTraces behind a node http
 * server, without Next.js): used by the receiver benchmark (scripts/bench-otlp.ts) and the
 * kill-during-stream durability test (lib/services/otlp-durability.test.ts). Serves
 * `POST /v1/traces` and `POST /api/public/otel/v1/traces` on 127.0.0.1.
 *
 *   DATABASE_URL=file:/tmp/x.db node --import tsx scripts/otlp-serve.ts [port]
 *
 * The database must be migrated. Prints one JSON line `{"listening": "<url>", "pid": n}` on stdout
 * once it accepts connections. With SYMTRACE_OTLP_ASSEMBLER=1 it also runs the trace assembler
 * (off by default here: the app and `npm run worker` run it).
 */
import { createServer } from "node:http";
import { openDb } from "../lib/db";
import { otlpNodeHandler } from "../lib/services/otlp-receiver";
import { otlpIdleMs, startOtlpAssembler } from "../lib/services/otlp-assembler";

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const { db } = openDb();
const server = createServer(otlpNodeHandler(db));
server.keepAliveTimeout = 30_000;
const assembler = process.env.SYMTRACE_OTLP_ASSEMBLER === "1" ? startOtlpAssembler({ db, idleMs: otlpIdleMs(), log: (l) => process.stderr.write(l + "\n") }) : null;
server.listen(port, "127.0.0.1", () => {
  const a = server.address();
  const p = typeof a === "object" && a ? a.port : port;
  process.stdout.write(JSON.stringify({ listening: `http://127.0.0.1:${p}`, pid: process.pid }) + "\n");
});
const stop = () => {
  server.close();
  void assembler?.stop().then(() => db.$disconnect()).finally(() => process.exit(0));
  if (!assembler) void db.$disconnect().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
