/**
 * `symtrace repair-search`: search-based repair (MARS, seeds/002 Algorithm 1; issue 15 item 6) of a
 * failed run given as a bundle file. Every tree node is a bundle built by a fail-closed replay of
 * its parent (lib/services/repair-search/environment.ts); the search is lib/repair-search.
 *
 *   symtrace repair-search <bundle.json> --upstream <url> [--tool-upstream <url>]
 *     [--judge-upstream <url> [--judge-model M] | --judge-cmd <cmd>] [--selector-upstream <url>] [--selector-model M]
 *     [--evaluator <cmd>] [--iterations N] [--seed S] --out <dir> [-- <command...>]
 *
 * The MAS is the command after `--`, else the bundle's registered runner (planReplay). The selector
 * defaults to --upstream, the LLM judge to the selector's endpoint; models default to
 * SYMTRACE_SEARCH_MODEL or "gpt-4o-mini". Writes `<out>/tree.json` (the SearchState, after every
 * iteration) and every node's bundle `<out>/n<k>.bundle.json` (a rollback node is its parent's
 * bundle cut at a checkpoint: `stateRef` = `<file>#<checkpoint>`). The ground-truth evaluator
 * (SYMTRACE_REPLAY_EVALUATOR contract) runs once, on the best trajectory only. Prints
 * `{"best": {"node", "bundle", "cut", "score", "passed"}, "iterations", "nodes", "stopped",
 * "calls": {"selector","judge","mas"}, "tokens": {"selector","judge","mas","total"}}`.
 * Exit 0 ok; 1 invalid input or failure; 2 bad usage.
 *
 * As a job (a RepairSearch row run by a worker, resumable): `repair-search start --case <id> …` and
 * `repair-search show <id>` (cli/repair-search-jobs.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseJsonText, validateBundle, type ReplayBundle } from "../lib/bundle";
import { createSearch, runRepairSearch, searchFailure, totalUsage, type SearchState } from "../lib/repair-search";
import { createReplaySearchEnvironment, parseStateRef, trajectoryView } from "../lib/services/repair-search/environment";
import { evaluateReplay } from "../lib/services/replay-evaluate";
import { loadRunnerRegistry, planReplay, type RegisteredRunner } from "../lib/services/runners";
import { BadInput, Usage } from "./common";

type Result = { code: number; output: unknown };

export const REPAIR_SEARCH_USAGE =
  "symtrace repair-search <bundle.json> --upstream <url> [--tool-upstream <url>] [--judge-upstream <url> [--judge-model M] | --judge-cmd <cmd>] [--selector-upstream <url>] [--selector-model M] [--evaluator <cmd>] [--iterations N] [--seed S] --out <dir> [-- <command...>]";

const FLAGS = ["--upstream", "--tool-upstream", "--judge-upstream", "--judge-model", "--judge-cmd", "--selector-upstream", "--selector-model", "--evaluator", "--iterations", "--seed", "--out"];

function parse(args: string[]): { opts: Record<string, string>; positional: string[]; command: string[] } {
  const dd = args.indexOf("--");
  const head = dd >= 0 ? args.slice(0, dd) : args;
  const opts: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const a = head[i];
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    if (!FLAGS.includes(a)) throw new Usage(`unknown option ${a}; usage: ${REPAIR_SEARCH_USAGE}`, a);
    const v = head[i + 1];
    if (v === undefined || v.startsWith("--")) throw new Usage(`${a} needs a value`, a);
    opts[a] = v;
    i++;
  }
  return { opts, positional, command: dd >= 0 ? args.slice(dd + 1) : [] };
}

function url(v: string | undefined, name: string): string | undefined {
  if (v === undefined) return undefined;
  try {
    const u = new URL(v);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new Usage(`${name} must be an http(s) URL (got ${JSON.stringify(v)})`, name);
  }
  return v;
}

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Usage(`${name} must be a positive integer (got ${JSON.stringify(v)})`, name);
  return n;
}

function loadBundle(file: string): ReplayBundle {
  let value: unknown;
  try {
    value = parseJsonText(readFileSync(file, "utf8"));
  } catch (e) {
    throw new BadInput(`cannot read ${file}: ${(e as Error).message}`);
  }
  const v = validateBundle(value);
  if (!v.ok) throw new BadInput(`${file}: not a valid bundle: ${v.issues.slice(0, 3).map((i) => `${i.path} ${i.message}`).join("; ")}`, v.issues[0]?.path ?? "$");
  return v.bundle;
}

/**
 * Run the command (module doc).
 * @param registry runners to resolve the bundle's runner from (default: SYMTRACE_RUNNERS_FILE + built-ins)
 */
export async function repairSearchCommand(args: string[], registry?: readonly RegisteredRunner[]): Promise<Result> {
  // As a job in the database: `repair-search start …` / `repair-search show <id>` (cli/repair-search-jobs.ts).
  if (args[0] === "start" || args[0] === "show") return (await import("./repair-search-jobs")).repairSearchJobCommand(args);
  try {
    const { opts, positional, command } = parse(args);
    if (positional.length !== 1) throw new Usage(`usage: ${REPAIR_SEARCH_USAGE}`);
    const out = opts["--out"];
    if (!out) throw new Usage(`--out is required; usage: ${REPAIR_SEARCH_USAGE}`, "--out");
    const upstream = url(opts["--upstream"], "--upstream");
    if (!upstream) throw new Usage(`--upstream is required; usage: ${REPAIR_SEARCH_USAGE}`, "--upstream");
    const toolUpstream = url(opts["--tool-upstream"], "--tool-upstream") ?? null;
    const selectorUpstream = url(opts["--selector-upstream"], "--selector-upstream") ?? upstream;
    const judgeUpstream = url(opts["--judge-upstream"], "--judge-upstream");
    if (judgeUpstream && opts["--judge-cmd"] !== undefined) throw new Usage("give --judge-upstream or --judge-cmd, not both", "--judge-cmd");
    if (opts["--judge-model"] !== undefined && opts["--judge-cmd"] !== undefined) throw new Usage("--judge-model goes with the LLM judge, not --judge-cmd", "--judge-model");
    const iterations = positiveInt(opts["--iterations"], "--iterations", 75);
    const seed = opts["--seed"] ?? null;
    const defaultModel = process.env.SYMTRACE_SEARCH_MODEL || "gpt-4o-mini";

    const source = loadBundle(positional[0]);
    let runner: RegisteredRunner | null = null;
    if (command.length === 0) {
      let runners = registry;
      try {
        runners ??= loadRunnerRegistry();
      } catch (e) {
        throw new BadInput((e as Error).message, "SYMTRACE_RUNNERS_FILE");
      }
      const plan = planReplay(source, runners);
      if (!plan.runner) throw new BadInput(`no MAS to run: give a command after -- (${plan.reason})`, "--");
      runner = plan.runner;
    }

    const env = createReplaySearchEnvironment({
      outDir: out,
      searchId: `${source.id}/repair-search`,
      task: source.task.prompt,
      upstream,
      toolUpstream,
      command: command.length ? command : null,
      runner,
      attemptSeed: seed,
      selector: { upstream: selectorUpstream, model: opts["--selector-model"] ?? defaultModel, seed },
      judge: opts["--judge-cmd"] !== undefined ? { kind: "command", command: opts["--judge-cmd"] } : { kind: "llm", upstream: judgeUpstream ?? selectorUpstream, model: opts["--judge-model"] ?? defaultModel, seed },
    });
    const treeFile = path.join(out, "tree.json");
    const state: SearchState = createSearch(env.rootState(source), { iterations });
    const save = (s: SearchState) => writeFileSync(treeFile, JSON.stringify(s, null, 2));
    save(state);
    await runRepairSearch(state, env, { onIteration: save });

    // Every node failed: a failure (exit 1, the first error), not a result; no evaluator then.
    const failed = state.stopped === "cancelled" ? null : searchFailure(state);
    // The ground-truth evaluator: once, on the best trajectory only.
    const best = state.nodes[state.bestId];
    const ref = parseStateRef(best.state!.stateRef);
    let passed: boolean | null = null;
    const evaluator = opts["--evaluator"];
    if (evaluator && !failed) {
      const view = trajectoryView(env.bundleOf(best.state!.stateRef), ref.cut);
      passed = (await evaluateReplay({ ...view, task: { ...view.task, prompt: source.task.prompt } }, evaluator))?.passed ?? null;
    }
    const total = totalUsage(state);
    return {
      code: failed ? 1 : 0,
      output: {
        ...(failed ? { failed } : {}),
        best: { node: best.id, bundle: env.fileOf(best.state!.stateRef), cut: ref.cut, score: best.verdict?.score ?? 0, passed },
        iterations: state.iteration,
        nodes: state.order.length,
        stopped: state.stopped,
        calls: { selector: state.usage.selector.calls, judge: state.usage.judge.calls, mas: state.usage.mas.calls },
        tokens: { selector: state.usage.selector.tokens, judge: state.usage.judge.tokens, mas: state.usage.mas.tokens, total: total.tokens },
        errors: state.order.filter((id) => state.nodes[id].error).map((id) => ({ node: id, error: state.nodes[id].error })),
        tree: treeFile,
      },
    };
  } catch (e) {
    if (e instanceof Usage) return { code: e instanceof BadInput ? 1 : 2, output: { ok: false, errors: [{ path: e.at, message: e.message }] } };
    return { code: 1, output: { ok: false, errors: [{ path: "$", message: (e as Error).message.split("\n")[0] }] } };
  }
}
