/**
 * `symtrace record` and `symtrace replay` (seeds/000 §3, Appendix A; spec §Replay): run a native
 * MAS as a child process behind the OpenAI-compatible proxy and the tool gateway (proxy/), with a
 * lib/replay session deciding per boundary request. Thin: parsing, files and exit codes; the run
 * itself is lib/services/replay/ (`executeReplayWithDetails`, shared with the app's replay worker;
 * `record` is its `recordRun`, shared with the task-level experiment methods).
 *
 *   record --out <bundle.json> --upstream <url> [--tool-upstream <url>] [--anthropic-upstream <url>] [--mcp-upstream <url>] [--task <text>|--task-file <json>] [--id <bundleId>] [--runner <name>] [--mas <name>] [--evaluator <name|command>] -- <command...>
 *   replay <bundle.json> --target <nodeId> [--guidance <text>] [--upstream <url>] [--tool-upstream <url>] [--anthropic-upstream <url>] [--mcp-upstream <url>] --out <new-bundle.json> [--id <bundleId>]
 *          [--runner <name> | --allow-bundle-command | -- <command...>]
 *
 * What `replay` runs (issue 10 item 1; a bundle is untrusted input): the command typed after `--`;
 * else the registered runner `--runner` names; else, with `--allow-bundle-command`, the bundle's own
 * `config.runner.command` (and `.env`); else the registered runner the bundle names
 * (`config.runner.name`, or `config.mas` for older bundles; lib/services/runners.ts). A bundle
 * command is never run without the flag: exit 2 saying so.
 *
 * The child gets OPENAI_BASE_URL (proxy, ends /v1), ANTHROPIC_BASE_URL (the proxy's root),
 * SYMTRACE_TOOL_URL (gateway), SYMTRACE_MCP_URL (the gateway's MCP endpoint), SYMTRACE_TASK (the
 * task prompt), OPENAI_API_KEY and ANTHROPIC_API_KEY (kept, or "symtrace-local"); a registered
 * runner gets only its allowed environment (runnerEnv).
 * Its stdout is parsed for a `{"final": ...}` JSON line; its stderr goes to our stderr. Our stdout
 * is one JSON object.
 *
 * Returns `{ code, output }` and prints nothing. Exit codes: 0 ok (bundle written, or the prefix
 * verified without --upstream); 2 bad input (usage, unreadable/invalid bundle, unknown target or
 * no LLM boundary at or after it, command cannot start); 3 replay diverged (output = the
 * first-divergence report); 4 `record` only: the MAS failed (non-zero exit or a signal) or
 * nothing was recorded — `ok: false`, the bundle is still written when anything was recorded
 * (`failedBoundaries` counts the failed boundary calls, e.g. an unknown route). A replayed MAS
 * that fails after going live still yields a bundle (`masExitCode` says how it ended).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseJsonText, serializeBundle, validateBundle, type ReplayBundle } from "../lib/bundle";
import { configuredEvaluators } from "../lib/services/experiments/judgeable";
import { executeReplayWithDetails, recordRun } from "../lib/services/replay";
import { evaluateReplay } from "../lib/services/replay-evaluate";
import { loadRunnerRegistry, planReplay, runnerSchema, type RegisteredRunner } from "../lib/services/runners";

type Result = { code: number; output: unknown };

export const RECORD_USAGE =
  "symtrace record --out <bundle.json> --upstream <url> [--tool-upstream <url>] [--anthropic-upstream <url>] [--mcp-upstream <url>] [--task <text>|--task-file <json>] [--id <bundleId>] [--runner <name>] [--mas <name>] [--evaluator <name|command>] -- <command...>";
export const REPLAY_USAGE =
  "symtrace replay <bundle.json> --target <nodeId> [--guidance <text>] [--upstream <url>] [--tool-upstream <url>] [--anthropic-upstream <url>] [--mcp-upstream <url>] --out <new-bundle.json> [--id <bundleId>] [--runner <name> | --allow-bundle-command | -- <command...>]";

const fail = (code: number, message: string, p = "$"): Result => ({ code, output: { ok: false, errors: [{ path: p, message }] } });

class BadInput extends Error {
  constructor(
    message: string,
    readonly at = "$",
  ) {
    super(message);
  }
}

/** Split `a b -- cmd x` into options and command; take `--name value` flags and `switches` (no value, "true"). */
function parseArgs(args: string[], flags: string[], switches: string[] = []): { opts: Record<string, string>; positional: string[]; command: string[] } {
  const dd = args.indexOf("--");
  const head = dd >= 0 ? args.slice(0, dd) : args.slice();
  const command = dd >= 0 ? args.slice(dd + 1) : [];
  const opts: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const a = head[i];
    if (switches.includes(a)) opts[a] = "true";
    else if (a.startsWith("--")) {
      if (!flags.includes(a)) throw new BadInput(`unknown option ${a}`, a);
      const v = head[i + 1];
      if (v === undefined || v.startsWith("--")) throw new BadInput(`${a} needs a value`, a);
      opts[a] = v;
      i++;
    } else positional.push(a);
  }
  return { opts, positional, command };
}

function loadBundle(file: string): ReplayBundle {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new BadInput(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (e) {
    throw new BadInput(`${file} is not JSON: ${(e as Error).message}`);
  }
  const res = validateBundle(value);
  if (!res.ok) throw new BadInput(`${file} is not a valid bundle v1: ${res.issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  return res.bundle;
}

function writeOut(file: string, b: ReplayBundle): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, serializeBundle(b));
}

function checkUrl(v: string | undefined, name: string): void {
  if (v === undefined) return;
  try {
    const u = new URL(v);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
  } catch {
    throw new BadInput(`${name} must be an http(s) URL, got ${JSON.stringify(v)}`, name);
  }
}

/** Failed boundary calls of a bundle (`record`'s `failedBoundaries`): llm_call and tool_result nodes with status error. */
export function failedBoundaryCount(bundle: Pick<ReplayBundle, "graph">): number {
  return bundle.graph.nodes.filter((n) => (n.type === "llm_call" || n.type === "tool_result") && n.status === "error").length;
}

/**
 * `record` (snapshot mode, seeds/000 §3.1): forward every boundary request live, write a bundle v1.
 * @param args the arguments after `record`
 * @returns code 0 `{ ok, status: "recorded", out, bundleId, nodes, edges, records, masExitCode, final }`; 2 bad input
 */
export async function recordCommand(args: string[]): Promise<Result> {
  try {
    const { opts, positional, command } = parseArgs(args, ["--out", "--upstream", "--tool-upstream", "--anthropic-upstream", "--mcp-upstream", "--task", "--task-file", "--id", "--runner", "--mas", "--evaluator"]);
    if (positional.length) throw new BadInput(`unexpected ${positional[0]}; usage: ${RECORD_USAGE}`);
    const out = opts["--out"];
    if (!out) throw new BadInput(`--out is required; usage: ${RECORD_USAGE}`, "--out");
    if (!opts["--upstream"]) throw new BadInput(`--upstream is required; usage: ${RECORD_USAGE}`, "--upstream");
    if (command.length === 0) throw new BadInput(`no command after --; usage: ${RECORD_USAGE}`, "--");
    checkUrl(opts["--upstream"], "--upstream");
    checkUrl(opts["--tool-upstream"], "--tool-upstream");
    checkUrl(opts["--anthropic-upstream"], "--anthropic-upstream");
    checkUrl(opts["--mcp-upstream"], "--mcp-upstream");
    if (opts["--task"] !== undefined && opts["--task-file"] !== undefined) throw new BadInput("give --task or --task-file, not both", "--task");
    // Without --task, the task the MAS itself will read (SYMTRACE_TASK), so the bundle names it.
    let task: ReplayBundle["task"] = { prompt: opts["--task"] ?? process.env.SYMTRACE_TASK ?? "" };
    if (opts["--task-file"]) {
      let v: unknown;
      try {
        v = parseJsonText(readFileSync(opts["--task-file"], "utf8"));
      } catch (e) {
        throw new BadInput(`cannot read --task-file ${opts["--task-file"]}: ${(e as Error).message}`, "--task-file");
      }
      if (!v || typeof v !== "object" || typeof (v as { prompt?: unknown }).prompt !== "string") throw new BadInput("--task-file must hold a JSON object with a string `prompt`", "--task-file");
      task = v as ReplayBundle["task"];
    }
    const id = opts["--id"] ?? `record/${path.basename(out).replace(/\.json$/, "")}/${new Date().toISOString()}`;
    const script = command.find((a) => /\.(m?[jt]s|py)$/.test(a));
    const runnerName = opts["--runner"];
    if (runnerName !== undefined && !runnerSchema.shape.name.safeParse(runnerName).success) throw new BadInput(`--runner must be 1–64 letters, digits, . _ - ; got ${JSON.stringify(runnerName)}`, "--runner");
    const rec = await recordRun({
      id,
      task,
      // the MAS's name (case list filters, by-MAS tables): --mas, else the registered runner's name, else the script's
      config: { mas: opts["--mas"] || runnerName || (script ? path.basename(script).replace(/\.[^.]+$/, "") : path.basename(command[0])) },
      upstream: opts["--upstream"],
      toolUpstream: opts["--tool-upstream"] ?? null,
      anthropicUpstream: opts["--anthropic-upstream"] ?? null,
      mcpUpstream: opts["--mcp-upstream"] ?? null,
      command,
      runnerName: runnerName ?? null,
      timeoutMs: Infinity,
    });
    if (rec.status === "failed" && rec.kind === "spawn") return fail(2, rec.error, "--");
    if (rec.status !== "recorded") throw new Error(rec.status === "failed" ? rec.error : "recording cancelled");
    const { bundle } = rec;
    const run = { exitCode: rec.masExitCode, final: rec.final };
    const failedBoundaries = failedBoundaryCount(bundle);
    const summary = { out, bundleId: bundle.id, nodes: bundle.graph.nodes.length, edges: bundle.graph.edges.length, records: bundle.records.length, failedBoundaries, masExitCode: run.exitCode, masSignal: rec.masSignal, final: run.final ?? null };
    if (bundle.records.length === 0) {
      return { code: 4, output: { ok: false, status: "nothing-recorded", ...summary, out: null, message: `the MAS made no LLM or tool call through the proxy (exit code ${run.exitCode ?? rec.masSignal}); is it using OPENAI_BASE_URL / ANTHROPIC_BASE_URL?${rec.stderrTail ? ` stderr: ${rec.stderrTail.slice(-300)}` : ""}` } };
    }
    // --evaluator: judge the run now and store the verdict as the bundle's outcome, so the case
    // counts as failed (or passed) for experiments and filters (a registered evaluator's name, or a
    // command with the evaluator contract: exit 0 passed, 1 failed, else no verdict)
    const evaluatorArg = opts["--evaluator"]?.trim();
    if (evaluatorArg) {
      const named = configuredEvaluators().find((e) => e.name === evaluatorArg);
      const outcome = await evaluateReplay(bundle, named?.command ?? evaluatorArg, { thread: true });
      if (outcome) bundle.outcome = { ...outcome, evaluator: named?.name ?? outcome.evaluator } as ReplayBundle["outcome"];
      Object.assign(summary, { outcome: { passed: outcome?.passed ?? null, evaluator: named?.name ?? evaluatorArg } });
      if (outcome?.passed == null) {
        // no verdict: say why here, not only inside the bundle (an empty task is the usual cause)
        const d = outcome?.details as { error?: unknown } | null | undefined;
        const why = typeof d?.error === "string" ? d.error : "the evaluator gave no verdict (exit code other than 0 or 1)";
        Object.assign(summary, { warnings: [`--evaluator ${evaluatorArg} gave no verdict, so the case's outcome stays unknown: ${why.slice(0, 300)}${task.prompt ? "" : " (the bundle has no task: pass --task or set SYMTRACE_TASK)"}`] });
      }
    }
    writeOut(out, bundle);
    if (rec.masExitCode !== 0) {
      // The first failed boundary says why (e.g. "upstream unreachable: fetch failed: connect ECONNREFUSED …").
      const first = bundle.graph.nodes.find((n) => (n.type === "llm_call" || n.type === "tool_result") && n.status === "error");
      const why = first ? `; the first failed: ${first.id}: ${String(first.error?.message ?? first.error?.type ?? "error").slice(0, 300)}` : "";
      return { code: 4, output: { ok: false, status: "mas-failed", ...summary, message: `the MAS ${rec.masExitCode === null ? `was killed by ${rec.masSignal}` : `exited with code ${rec.masExitCode}`}; the bundle of what it did is written (${failedBoundaries} failed boundary calls${why})` } };
    }
    return { code: 0, output: { ok: true, status: "recorded", ...summary } };
  } catch (e) {
    if (e instanceof BadInput) return fail(2, e.message, e.at);
    throw e;
  }
}

/**
 * What `replay` runs (see the module doc): a trusted command, or a registered runner.
 * @throws BadInput when nothing may run (a bundle command without --allow-bundle-command, an
 *   unknown --runner, no command at all)
 */
function chooseRunner(
  source: ReplayBundle,
  given: string[],
  runnerName: string | undefined,
  allowBundleCommand: boolean,
  registry: readonly RegisteredRunner[],
): { command: string[] | null; runner: RegisteredRunner | null; env?: Record<string, string> } {
  const flags = [given.length ? "-- <command>" : null, runnerName !== undefined ? "--runner" : null, allowBundleCommand ? "--allow-bundle-command" : null].filter(Boolean);
  if (flags.length > 1) throw new BadInput(`give only one of ${flags.join(", ")}`, "--");
  if (given.length) return { command: given, runner: null };
  if (runnerName !== undefined) {
    const runner = registry.find((r) => r.name === runnerName);
    if (!runner) throw new BadInput(`runner "${runnerName}" is not registered (registered: ${registry.map((r) => r.name).join(", ") || "none"}; see SYMTRACE_RUNNERS_FILE)`, "--runner");
    return { command: null, runner };
  }
  const bundleCommand = source.config.runner?.command ?? [];
  if (allowBundleCommand) {
    if (bundleCommand.length === 0) throw new BadInput("--allow-bundle-command: the bundle has no config.runner.command", "--allow-bundle-command");
    return { command: bundleCommand, runner: null, env: source.config.runner?.env ?? undefined };
  }
  const plan = planReplay(source, registry);
  if (plan.runner) return { command: null, runner: plan.runner };
  if (bundleCommand.length > 0) {
    throw new BadInput(
      `${plan.reason}. The bundle carries the command ${JSON.stringify(bundleCommand)}, which is not run unless you pass --allow-bundle-command (only for bundles you trust); or give a command after --, or --runner <name>`,
      "$.config.runner.command",
    );
  }
  throw new BadInput(`no command: give one after --, or --runner <name> (${plan.reason})`, "--");
}

/**
 * `replay` (selective replay, seeds/000 Algorithm 2): restart the MAS under the replay proxy, serve
 * the verified prefix, go live at the target with the guidance appended.
 * @param args the arguments after `replay`
 * @param registry the registered runners (default: this machine's, loadRunnerRegistry)
 * @returns code 0 `{ ok, status: "replayed", out, bundleId, target, verified, ... }` or, without
 *   --upstream, `{ ok, status: "prefix-verified", verified, target }`; 3 with the first-divergence
 *   report; 2 bad input
 */
export async function replayCommand(args: string[], registry?: readonly RegisteredRunner[]): Promise<Result> {
  try {
    const { opts, positional, command: given } = parseArgs(args, ["--target", "--guidance", "--upstream", "--tool-upstream", "--anthropic-upstream", "--mcp-upstream", "--out", "--id", "--runner"], ["--allow-bundle-command"]);
    if (positional.length !== 1) throw new BadInput(`usage: ${REPLAY_USAGE}`);
    const target = opts["--target"];
    if (!target) throw new BadInput(`--target is required; usage: ${REPLAY_USAGE}`, "--target");
    const out = opts["--out"];
    if (!out) throw new BadInput(`--out is required; usage: ${REPLAY_USAGE}`, "--out");
    checkUrl(opts["--upstream"], "--upstream");
    checkUrl(opts["--tool-upstream"], "--tool-upstream");
    checkUrl(opts["--anthropic-upstream"], "--anthropic-upstream");
    checkUrl(opts["--mcp-upstream"], "--mcp-upstream");
    const source = loadBundle(positional[0]);
    let runners = registry;
    try {
      runners ??= loadRunnerRegistry();
    } catch (e) {
      throw new BadInput((e as Error).message, "SYMTRACE_RUNNERS_FILE");
    }
    const how = chooseRunner(source, given, opts["--runner"], opts["--allow-bundle-command"] === "true", runners);
    const { result, details } = await executeReplayWithDetails({
      source,
      targetNodeId: target,
      guidance: opts["--guidance"] ?? "",
      upstream: opts["--upstream"] ?? null,
      toolUpstream: opts["--tool-upstream"] ?? null,
      anthropicUpstream: opts["--anthropic-upstream"] ?? null,
      mcpUpstream: opts["--mcp-upstream"] ?? null,
      command: how.command,
      runner: how.runner,
      env: how.env,
      newBundleId: opts["--id"],
      timeoutMs: Infinity,
    });
    if (result.status === "failed") {
      if (details.failure === "target") throw new BadInput(result.error, "--target");
      if (details.failure === "config") throw new BadInput(result.error);
      if (details.failure === "spawn") return fail(2, result.error, "--");
      throw new Error(result.error);
    }
    if (result.status === "cancelled") throw new Error("replay cancelled");
    const t = details.target!;
    const targetOut = { requested: t.requestedNodeId, boundaryNodeId: t.boundaryNodeId, seq: t.seq, exact: t.exact, rule: t.rule };
    if (result.status === "prefix-verified") {
      return {
        code: 0,
        output: {
          ok: true,
          status: "prefix-verified",
          verified: result.verified,
          checkedNodes: details.checkedNodes,
          target: targetOut,
          message: `prefix of ${result.verified} records reconstructed and verified up to ${t.boundaryNodeId} (seq ${t.seq}); no --upstream, so the MAS was stopped there and no bundle was written`,
        },
      };
    }
    if (result.status === "diverged") return { code: 3, output: { ...result.report, target: targetOut, masExitCode: details.masExitCode } };
    const bundle = result.bundle;
    writeOut(out, bundle);
    return {
      code: 0,
      output: {
        ok: true,
        status: "replayed",
        out,
        bundleId: bundle.id,
        parent: bundle.parent,
        target: targetOut,
        verified: result.verified,
        checkedNodes: details.checkedNodes,
        nodeHashCheck: details.nodeHashCheck ? "checked" : "not applicable (bundle not recorded by the symtrace proxy)",
        liveRecords: bundle.records.length - result.verified,
        ...(details.masked ? { masked: details.masked } : {}),
        masExitCode: details.masExitCode,
        final: details.final ?? null,
      },
    };
  } catch (e) {
    if (e instanceof BadInput) return fail(2, e.message, e.at);
    throw e;
  }
}
