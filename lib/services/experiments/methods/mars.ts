/**
 * `mars`: one MARS repair-tree search per attempt (issue 15 item 5; seeds/002 Algorithm 1 over
 * lib/repair-search, every tree node a bundle built by a fail-closed replay of its parent through
 * lib/services/repair-search/environment.ts). Runs in-process inside the experiment attempt (the
 * attempt is already a job; no RepairSearch row), from the case's source bundle, with the
 * experiment's frozen `settings.mars` (lib/experiments/mars.ts; defaults = the paper's settings).
 *
 * - Selector: one LLM call per iteration through `settings.mars.selector`, else the experiment's
 *   endpoint and model. Judge: `settings.mars.judge` (an LLM endpoint, or a command with the
 *   evaluator's environment contract printing `{score, failureMode, feedback}`), else an LLM judge
 *   through the experiment's endpoint and model.
 * - Rollouts are native partial replays (the MAS is restarted), so the method is skipped when the
 *   case's MAS cannot be restarted (no registered runner and no command). Every rollout's MAS gets
 *   SYMTRACE_ATTEMPT_SEED = `<attempt seed>-<tree node id>`.
 * - `passed`: the experiment's evaluator, run ONCE, on the best trajectory (highest judge score;
 *   the failed source when no child scored above 0). The reproduction judge as for every method.
 * - The attempt bundle is the best node's bundle with `parent` re-pointed at the SOURCE (bundleId,
 *   the source node where the trajectory departs, boundarySeq, mode "mars", `search` = the tree
 *   path and the tree parent); `anchorNodeId` is that source node. The tree is the attempt's
 *   artifact (`{kind: "mars-tree", ...}`: the SearchState plus each node's bundle id and live calls).
 * - Counting: `calls` = live MAS records (LLM + tool) of every rollout (after its verified prefix);
 *   `auxCalls` = selector + judge calls; `tokens.prompt/completion` = the MAS's, `tokens.total` =
 *   MAS + selector + judge, `auxTokens` = selector + judge.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ReplayBundle } from "../../../bundle";
import { resolveMarsSettings, type MarsSettings } from "../../../experiments/mars";
import { finalAnswer } from "../../../replay";
import { createSearch, runRepairSearch, type SearchState } from "../../../repair-search";
import { createReplaySearchEnvironment, parseStateRef, trajectoryView, type ReplaySearchEnvironment, type SearchJudgeConfig } from "../../repair-search/environment";
import { addTokens, countLive, ZERO_TOKENS } from "../llm";
import { cancelled, canRestart, errored, concludeAttempt, guard, oneLine, skipped } from "./common";
import type { AttemptContext, AttemptOutcome, ExperimentCaseInput, ExperimentMethod, ExperimentSettings, TokenCounts } from "./types";

/** What a tree node's bundle adds: its id and the live records its rollout ran (0 for a rollback cut and the root). */
export interface MarsNodeInfo {
  bundleId: string;
  /** Bundle file name in the search directory (`n3.bundle.json`); a rollback node shares its parent's file. */
  file: string;
  cut: string | null;
  liveRecords: number;
}

/** The attempt's artifact: the repair tree. */
export interface MarsTreeArtifact {
  kind: "mars-tree";
  searchId: string;
  settings: MarsSettings;
  state: SearchState;
  nodes: Record<string, MarsNodeInfo>;
  /** Selector + judge + MAS usage split (also in the state; repeated for readers of the attempt row). */
  usage: SearchState["usage"];
}

/** The outcome plus what a test or benchmark wants to inspect. */
export interface MarsAttemptResult {
  outcome: AttemptOutcome;
  /** Null when the search did not start (skipped, cancelled before, bad settings). */
  state: SearchState | null;
  /** The directory holding every node's bundle (`<node>.bundle.json`); removed unless `keepDir`. */
  dir: string | null;
  env: ReplaySearchEnvironment | null;
}

/** Why `mars` cannot run on a case (rollouts restart the MAS), or null. */
export function marsSkipReason(c: ExperimentCaseInput, s: ExperimentSettings): string | null {
  if (canRestart(c, s)) return null;
  const named = c.bundle.config.runner?.name ?? c.bundle.config.mas ?? null;
  return `mars rollouts are native partial replays that restart the MAS, but case ${c.caseId} has no registered runner and no MAS command was given (${named ? `its runner ${JSON.stringify(named)} is not registered` : "its bundle names no runner"})`;
}

function modelOf(ctx: AttemptContext): string {
  return ctx.settings.model ?? ctx.case.bundle.config.model ?? "default";
}

function judgeOf(ctx: AttemptContext, ms: MarsSettings): SearchJudgeConfig {
  const j = ms.judge;
  if (j?.kind === "command") return { kind: "command", command: j.command };
  if (j?.kind === "llm") return { kind: "llm", upstream: j.upstream, model: j.model ?? modelOf(ctx), seed: ctx.seed };
  return { kind: "llm", upstream: ctx.settings.upstream, model: modelOf(ctx), seed: ctx.seed };
}

/** Length of the common record prefix of two bundles (same node id, boundary, request and response). */
function sharedPrefix(a: ReplayBundle, b: ReplayBundle): number {
  const n = Math.min(a.records.length, b.records.length);
  let i = 0;
  while (i < n) {
    const x = a.records[i];
    const y = b.records[i];
    if (x.nodeId !== y.nodeId || x.boundary !== y.boundary || JSON.stringify(x.request) !== JSON.stringify(y.request) || JSON.stringify(x.response) !== JSON.stringify(y.response)) break;
    i++;
  }
  return i;
}

/**
 * Run one `mars` attempt (module doc). Never throws (errors → status "error").
 * @param o.dir directory for the node bundles (default: a new temp dir); @param o.keepDir keep it
 *   after the attempt (tests and the benchmark inspect every node's bundle)
 */
export async function runMarsAttempt(ctx: AttemptContext, o: { dir?: string; keepDir?: boolean } = {}): Promise<MarsAttemptResult> {
  const none = (outcome: AttemptOutcome): MarsAttemptResult => ({ outcome, state: null, dir: null, env: null });
  const c = ctx.case;
  const s = ctx.settings;
  const why = marsSkipReason(c, s);
  if (why) return none(skipped(why));
  if (ctx.signal.aborted) return none(cancelled());
  let ms: MarsSettings;
  try {
    ms = resolveMarsSettings(s.mars ?? null);
  } catch (e) {
    return none(errored(`mars settings: ${oneLine(e)}`));
  }
  const dir = o.dir ?? mkdtempSync(path.join(os.tmpdir(), "symtrace-mars-"));
  const searchId = `${c.bundle.id}/experiment/mars/${ctx.attempt}/${Date.now().toString(36)}`;
  const t0 = performance.now();
  let env: ReplaySearchEnvironment | null = null;
  let state: SearchState | null = null;
  try {
    env = createReplaySearchEnvironment({
      outDir: dir,
      searchId,
      task: c.task,
      upstream: s.upstream,
      toolUpstream: s.toolUpstream,
      command: s.command,
      runner: s.command?.length ? null : c.runner,
      // Native rollouts keep the source's recorded model (a different one would diverge at seq 0).
      model: null,
      selector: ms.selector ? { upstream: ms.selector.upstream, model: ms.selector.model ?? modelOf(ctx), seed: ctx.seed } : { upstream: s.upstream, model: modelOf(ctx), seed: ctx.seed },
      judge: judgeOf(ctx, ms),
      attemptSeed: ctx.seed,
      timeoutMs: s.timeoutMs,
      signal: ctx.signal,
    });
    const e = env;
    const st = createSearch(e.rootState(c.bundle), { c: ms.c, k: ms.k, l: ms.l, maxDepth: ms.maxDepth, iterations: ms.iterations, budget: { maxCalls: ms.maxCalls, maxTokens: ms.maxTokens } });
    state = st;
    await runRepairSearch(st, e, {
      signal: ctx.signal,
      onIteration: (x) => {
        try {
          ctx.onProgress?.({ phase: `mars iteration ${x.iteration}/${ms.iterations} (best ${x.maxR.toFixed(2)})`, liveCalls: x.usage.mas.calls });
        } catch {
          /* a progress callback must not break the attempt */
        }
      },
    });
    const masMs = Math.round(performance.now() - t0);

    // Per node: its bundle id and live records (counted from the bundle: records after the verified prefix).
    const nodes: Record<string, MarsNodeInfo> = {};
    let masTokens: TokenCounts = { ...ZERO_TOKENS };
    let calls = 0;
    for (const id of st.order) {
      const n = st.nodes[id];
      if (!n.state) continue;
      const ref = parseStateRef(n.state.stateRef);
      const b = e.bundleOf(n.state.stateRef);
      let live = 0;
      if (n.parentId !== null && ref.cut === null) {
        const parent = st.nodes[n.parentId];
        const pref = parseStateRef(parent.state!.stateRef);
        const pb = e.bundleOf(parent.state!.stateRef);
        const verified = pref.cut === null ? pb.records.length : Math.max(0, pb.records.findIndex((r) => r.nodeId === pref.cut));
        live = Math.max(0, b.records.length - verified);
        const cl = countLive(b, live);
        calls += cl.calls;
        masTokens = addTokens(masTokens, cl.tokens);
      }
      nodes[id] = { bundleId: b.id, file: ref.file, cut: ref.cut, liveRecords: live };
    }
    const auxCalls = st.usage.selector.calls + st.usage.judge.calls;
    const auxTokens = st.usage.selector.tokens + st.usage.judge.tokens;
    const tokens: TokenCounts = { prompt: masTokens.prompt, completion: masTokens.completion, total: masTokens.total + auxTokens };
    const artifact: MarsTreeArtifact = { kind: "mars-tree", searchId, settings: ms, state: st, nodes, usage: st.usage };
    if (st.stopped === "cancelled" || ctx.signal.aborted) return { outcome: cancelled({ calls, auxCalls, tokens, auxTokens, artifact, masMs }), state: st, dir, env: e };

    // The best trajectory: a rollback node is its parent's bundle cut before the checkpoint.
    const best = st.nodes[st.bestId];
    const bref = parseStateRef(best.state!.stateRef);
    const built = e.bundleOf(best.state!.stateRef);
    const traj = bref.cut === null ? built : { ...trajectoryView(built, bref.cut), id: `${searchId}/${best.id}` };
    const shared = sharedPrefix(c.bundle, traj);
    const departSeq = c.bundle.records[shared]?.seq ?? c.bundle.records.length;
    const anchorNodeId = c.bundle.records[shared]?.nodeId ?? null;
    const path: string[] = [];
    for (let cur: string | null = best.id; cur !== null; cur = st.nodes[cur].parentId) path.unshift(cur);
    const guidance = path
      .map((id) => st.nodes[id].action)
      .flatMap((a) => (a && a.kind === "guided_repair" && a.guidance ? [a.guidance] : []))
      .join("\n---\n");
    const bundle: ReplayBundle = {
      ...traj,
      parent: {
        bundleId: c.bundle.id,
        targetNodeId: anchorNodeId ?? "",
        guidance,
        mode: "mars",
        boundarySeq: departSeq,
        search: { searchId, bestNodeId: best.id, path, score: best.verdict?.score ?? null, stopped: st.stopped, treeParent: traj.parent ?? null },
      },
    };
    const fin = bref.cut === null ? (finalAnswer(built)?.text ?? null) : null;
    const out = await concludeAttempt(ctx, { bundle, final: fin, calls, auxCalls, tokens, guidance: guidance || null, anchorNodeId, masMs });
    const note = `mars: ${st.iteration} iterations (${st.stopped}), ${st.order.length} nodes, best ${best.id} score ${(best.verdict?.score ?? 0).toFixed(2)}; calls MAS ${calls} (LLM ${st.usage.mas.calls}), selector ${st.usage.selector.calls}, judge ${st.usage.judge.calls}`;
    return { outcome: { ...out, auxTokens, artifact, judgeReason: [note, out.judgeReason].filter(Boolean).join("\n") }, state: st, dir, env: e };
  } catch (err) {
    if (ctx.signal.aborted) return { outcome: cancelled(), state, dir, env };
    return { outcome: errored(`mars failed: ${oneLine(err)}`), state, dir, env };
  } finally {
    if (!o.keepDir && !o.dir) rmSync(dir, { recursive: true, force: true });
  }
}

export const marsMethod: ExperimentMethod = {
  name: "mars",
  skipReason: marsSkipReason,
  run: (ctx) => guard(ctx, async () => (await runMarsAttempt(ctx)).outcome),
};
