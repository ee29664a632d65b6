/**
 * The replay stand-in of the demo and the e2e server (one starter for both): the scripted
 * OpenAI-compatible stand-in model (answers any chat: the reference MAS's scripted policy, else a
 * labelled generic answer; lib/testing/standin.ts) and the reference MAS's tool server.
 *
 *   node --import tsx scripts/replay-stack.ts <llmPort> <toolPort>
 *       start both, print `OPENAI_BASE_URL=...` and `SYMTRACE_TOOL_URL=...`, run until killed;
 *   node --import tsx scripts/replay-stack.ts <llmPort> <toolPort> -- <command...>
 *       add the replay settings the user did not set (demoReplayEnv: SYMTRACE_REPLAY_UPSTREAM,
 *       SYMTRACE_REPLAY_MODEL, SYMTRACE_REPLAY_SCRIPTED, SYMTRACE_REPLAY_TOOL_UPSTREAM,
 *       SYMTRACE_REPLAY_EVALUATOR), start only the parts they need, run <command> (the app) with
 *       them, pass SIGINT/SIGTERM on, and stop the stand-in when the command ends (its exit code).
 *
 * Test support and demo: every answer is scripted, no model is involved.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { demoReplayEnv, startStandinStack } from "../lib/testing/standin";

function port(arg: string | undefined, what: string): number {
  const n = Number(arg ?? 0);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${what} must be a TCP port (0–65535); got "${arg}"`);
  return n;
}

async function main() {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf("--");
  const [llmArg, toolArg] = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const llmPort = port(llmArg, "<llmPort>");
  const toolPort = port(toolArg, "<toolPort>");
  process.env.SYMTRACE_QUIET = "1";

  if (command.length === 0) {
    const s = await startStandinStack({ llmPort, toolPort });
    process.stdout.write(`OPENAI_BASE_URL=${s.llmUrl}\nSYMTRACE_TOOL_URL=${s.toolUrl}\n`);
    return;
  }

  const root = path.resolve(import.meta.dirname, "..");
  const plan = demoReplayEnv(process.env, { llmPort, toolPort, root });
  const stack = await startStandinStack({ llmPort, toolPort, startLlm: plan.startLlm, startTools: plan.startTools });
  process.stderr.write(
    `replay stand-in: ${plan.startLlm ? `scripted model ${stack.llmUrl}` : `model ${process.env.SYMTRACE_REPLAY_UPSTREAM} (yours)`}, ` +
      `${plan.startTools ? `tool server ${stack.toolUrl}` : `tools ${process.env.SYMTRACE_REPLAY_TOOL_UPSTREAM} (yours)`}\n`,
  );
  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env: { ...process.env, ...plan.set } });
  let stopping = false;
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => {
      stopping = true;
      child.kill(sig);
    });
  }
  const code = await new Promise<number>((resolve) => {
    child.on("error", (e) => {
      process.stderr.write(`replay-stack: cannot run ${command[0]}: ${e.message}\n`);
      resolve(127);
    });
    child.on("exit", (c, sig) => resolve(c ?? (sig ? 128 + (sig === "SIGINT" ? 2 : 15) : 1)));
  });
  await stack.close();
  process.exit(stopping && code > 128 ? 0 : code);
}

main().catch((e) => {
  console.error(`replay-stack: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
