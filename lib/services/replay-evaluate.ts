/**
 * Outcome of a replayed run (issue 7 result view: "outcome if an evaluator command is
 * configured"). SYMTRACE_REPLAY_EVALUATOR is a shell command run once per completed replay with
 *   SYMTRACE_TASK    the task prompt
 *   SYMTRACE_FINAL   the run's final answer as JSON (content of its final_result node, or null)
 *   SYMTRACE_BUNDLE  path of a file holding the replay bundle
 * Exit 0 = passed, exit 1 = failed, anything else = evaluator error (outcome left unknown; its
 * reason: the `error` of a JSON stdout, else the last line of output, is appended to the message).
 * Its stdout, when JSON, becomes `outcome.details`. Never throws.
 */
import { spawn } from "node:child_process";
import type { ReplayBundle } from "../bundle";
import { writeEvalFile } from "./eval-files";
import { jsEvaluatorModule, runJsModuleInWorker } from "./js-evaluator";

export type ReplayOutcome = {
  passed: boolean | null;
  evaluator: string;
  details: unknown;
};

/** Characters a command word may hold to be passed without a shell (no quoting, globbing, variables, redirection, operators). */
const PLAIN_WORD = /^[A-Za-z0-9_./:@%+,=-]+$/;

/** POSIX shell builtins and keywords a command may start with (they are no programs to spawn). */
const SHELL_BUILTINS = new Set(["exit", "echo", "true", "false", "test", "[", "cd", "export", "set", "unset", "eval", "exec", "source", ".", ":", "printf", "read", "shift", "trap", "wait", "command", "type", "ulimit", "umask", "alias", "kill", "pwd", "return", "break", "continue", "times", "getopts", "hash", "readonly", "local", "if", "for", "while", "until", "case", "time"]);

/**
 * The argv of a command that a shell would only split at spaces (every word matches PLAIN_WORD,
 * the first is a program, not a variable assignment or a shell builtin), so it can be spawned
 * directly: one process instead of `sh` plus the program, e.g. `node scripts/x-evaluator.mjs`.
 * Null when the command needs a shell (quotes, `$`, `;`, `|`, `>`, globs, builtins …).
 */
export function plainArgv(command: string): string[] | null {
  const words = command.trim().split(/[ \t]+/);
  if (words.length === 0 || !words.every((w) => PLAIN_WORD.test(w)) || words[0].includes("=") || SHELL_BUILTINS.has(words[0])) return null;
  return words;
}

/**
 * Runs without a shell when {@link plainArgv} can split the command (same result, one process fewer),
 * and, with `o.thread`, a `node <module>.mjs|.js` command in a worker thread (./js-evaluator.ts;
 * same contract; the experiment runner's evaluators and judges, issue 25 item 1).
 * @param command the evaluator shell command (null/empty: no evaluation → null)
 * @param o.env extra environment over the contract's variables (the reproduction judge adds
 *   SYMTRACE_SOURCE_BUNDLE and SYMTRACE_REFERENCE, lib/services/experiments/reproduction.ts)
 * @param o.thread run a `node <module>` command in a worker thread instead of a process
 *   (SYMTRACE_EVALUATOR_THREADS=0 turns this off)
 * @returns the outcome to store on the bundle, or null when no evaluator is configured
 */
export async function evaluateReplay(bundle: ReplayBundle, command: string | null | undefined, o: { timeoutMs?: number; env?: Record<string, string>; thread?: boolean } = {}): Promise<ReplayOutcome | null> {
  if (!command?.trim()) return null;
  const finalNode = [...bundle.graph.nodes].reverse().find((n) => n.type === "final_result");
  // One file in this process's evaluator directory (./eval-files.ts), unlinked after the run.
  const written = writeEvalFile("bundle.json", JSON.stringify(bundle));
  const file = written.path;
  try {
    const argv = plainArgv(command);
    const env = { ...process.env, SYMTRACE_TASK: bundle.task.prompt, SYMTRACE_FINAL: JSON.stringify(finalNode?.content ?? null), SYMTRACE_BUNDLE: file, ...(o.env ?? {}) };
    // `node <module>.mjs`: a worker thread, not a process forked from this (large) one.
    const js = o.thread ? jsEvaluatorModule(argv) : null;
    const { code, stdout, stderr } = js ? await runJsModuleInWorker(js.file, js.args, env, o.timeoutMs ?? 60_000) : await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(argv ? argv[0] : command, argv ? argv.slice(1) : [], {
        shell: argv === null,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += String(d)));
      child.stderr.on("data", (d) => (err += String(d)));
      const t = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 60_000);
      child.on("close", (c) => {
        clearTimeout(t);
        resolve({ code: c, stdout: out, stderr: err });
      });
      child.on("error", (e) => {
        clearTimeout(t);
        resolve({ code: null, stdout: "", stderr: e.message });
      });
    });
    let details: unknown = stdout.trim() || null;
    try {
      details = stdout.trim() ? JSON.parse(stdout) : null;
    } catch {
      /* plain text details */
    }
    if (code === 0 || code === 1) return { passed: code === 0, evaluator: command, details };
    // The evaluator's own reason, when it gave one (`{"error": "..."}` or a last line of output).
    const said =
      details && typeof details === "object" && typeof (details as { error?: unknown }).error === "string"
        ? (details as { error: string }).error
        : (typeof details === "string" ? details : stderr).trim().split("\n").filter(Boolean).pop()?.slice(0, 300);
    return { passed: null, evaluator: command, details: { error: `evaluator exited with ${code ?? "an error"}${said ? `: ${said}` : ""}`, stderr: stderr.slice(-2000) } };
  } finally {
    written.remove();
  }
}
