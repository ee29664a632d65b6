/**
 * TEST HARNESS ONLY: `symtrace experiment …` as a child process with FAKE experiment methods
 * injected (lib/jobs/experiment-fake-methods.ts, SYMTRACE_FAKE_* variables). The production CLI
 * (cli/symtrace.ts) never loads fake methods; the experiment is stamped `fake` in its frozen
 * settings and report (issue 20 item 5). Prints the command's output object as one JSON line.
 *
 *   node --import tsx lib/testing/fake-symtrace.ts experiment run …
 */
import { experimentCommand } from "../../cli/experiment";
import { fakeMethodsFromEnv } from "../jobs/experiment-fake-methods";

const [cmd, ...args] = process.argv.slice(2);
if (cmd !== "experiment") {
  process.stderr.write("fake-symtrace: only `experiment …` is supported\n");
  process.exit(2);
}
experimentCommand(args, { methods: fakeMethodsFromEnv(process.env, "cli") }).then(
  (r) => {
    process.stdout.write(JSON.stringify(r.output) + "\n");
    process.exit(r.code);
  },
  (e: unknown) => {
    process.stderr.write(`fake-symtrace failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
