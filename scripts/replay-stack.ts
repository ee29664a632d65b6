/**
 * A local stand-in for a live model and tool server, for the e2e tests and for trying "replay
 * from here" without any external endpoint: the scripted OpenAI-compatible server driven by
 * mas/scripted-policy.ts, and the deterministic tool server of the reference MAS.
 *
 *   node --import tsx scripts/replay-stack.ts <llmPort> <toolPort>
 *
 * Prints `OPENAI_BASE_URL=...` and `SYMTRACE_TOOL_URL=...` once both listen; runs until killed.
 * Test support: every answer is scripted, no model is involved.
 */
import http from "node:http";
import { startScriptedOpenAI } from "../lib/testing/scripted-openai";
import { respond } from "../mas/scripted-policy";
import { startToolServer } from "../mas/tools/server";

async function main() {
  const llmPort = Number(process.argv[2] ?? 0);
  const toolPort = Number(process.argv[3] ?? 0);
  const llm = await startScriptedOpenAI({ respond });
  const tools = await startToolServer({ port: toolPort || undefined });
  // expose the scripted server on a fixed port too (it binds an ephemeral one)
  let llmUrl = llm.url;
  if (llmPort) {
    const target = new URL(llm.url);
    const fwd = http.createServer((req, res) => {
      const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      req.pipe(up);
    });
    await new Promise<void>((ok) => fwd.listen(llmPort, "127.0.0.1", ok));
    llmUrl = `http://127.0.0.1:${llmPort}/v1`;
  }
  process.stdout.write(`OPENAI_BASE_URL=${llmUrl}\nSYMTRACE_TOOL_URL=${tools.url}\n`);
}

main().catch((e) => {
  console.error(`replay-stack: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
