/**
 * The MARS loop (seeds/002 Algorithm 1): select → expand (one selector call, one child) → evaluate
 * (judge) → backpropagate; stop at r = 1, after N_iter expansions, at a budget cap, when the tree is
 * exhausted, or on cancel. One call of {@link iterate} is one iteration, so a job can store the
 * state after each and resume after a crash.
 */
import { backpropagate, sameAction, selectExpandable } from "./tree";
import type { BuiltState, JudgeVerdict, RepairAction, SearchEnvironment, SearchState, StopReason, TreeNode } from "./types";

/** Total calls and tokens spent so far (selector + judge + MAS). */
export function totalUsage(state: SearchState): { calls: number; tokens: number } {
  const u = state.usage;
  return { calls: u.selector.calls + u.judge.calls + u.mas.calls, tokens: u.selector.tokens + u.judge.tokens + u.mas.tokens };
}

function stopReasonBefore(state: SearchState, signal?: AbortSignal): StopReason | null {
  if (signal?.aborted) return "cancelled";
  if (state.iteration >= state.settings.iterations) return "iterations";
  const { maxCalls, maxTokens } = state.settings.budget;
  const t = totalUsage(state);
  if (maxCalls !== null && t.calls >= maxCalls) return "budget";
  if (maxTokens !== null && t.tokens >= maxTokens) return "budget";
  return null;
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 500);
}

/**
 * Make the selector's choice executable on `node`, or replace it (recorded in `state.coercions`):
 * - a rollback must name one of the node's checkpoints;
 * - a finished trajectory (the MAS ended) can only be rolled back: anything else becomes a rollback
 *   to its last checkpoint with the judge's feedback as guidance;
 * - a guided repair with empty guidance uses the stored guidance, else becomes a continuation.
 * Returns null when nothing can expand the node (finished, no checkpoints).
 */
export function validateAction(state: SearchState, node: TreeNode, action: RepairAction | null, why: string | null): RepairAction | null {
  const checkpoints = node.state?.checkpoints ?? [];
  const finished = node.state?.finished ?? false;
  const note = (msg: string) => state.coercions.push(`iteration ${state.iteration + 1}, ${node.id}: ${msg}`);
  const fallbackRollback = (): RepairAction | null => {
    const last = checkpoints[checkpoints.length - 1];
    if (last === undefined) return null;
    return { kind: "rollback", checkpoint: last, guidance: node.verdict?.feedback || "Avoid the previous error and verify each step against tool output." };
  };
  if (action === null) {
    const fb = finished ? fallbackRollback() : { kind: "continuation" as const };
    note(`selector reply unusable (${why ?? "no action"}); ${fb ? fb.kind : "node cannot be expanded"}`);
    return fb;
  }
  if (action.kind === "rollback") {
    if (checkpoints.includes(action.checkpoint)) return action;
    const fb = finished ? fallbackRollback() : { kind: "continuation" as const };
    note(`rollback to unknown checkpoint ${JSON.stringify(action.checkpoint)}; ${fb ? fb.kind : "node cannot be expanded"}`);
    return fb;
  }
  if (finished) {
    const fb = fallbackRollback();
    note(`${action.kind} on a finished trajectory; ${fb ? "rollback to its last checkpoint" : "node cannot be expanded"}`);
    return fb;
  }
  if (action.kind === "guided_repair" && action.guidance.trim() === "") {
    if (node.storedGuidance) return { kind: "guided_repair", guidance: node.storedGuidance };
    note("guided_repair without guidance and none stored; continuation");
    return { kind: "continuation" };
  }
  return action;
}

/**
 * One iteration of Algorithm 1. Mutates and returns `state`. Never throws for environment failures:
 * a failed build or judge gives a child with `error` set and r = 0 (it is never expanded).
 * @param opts.signal abort → `stopped = "cancelled"` before the next iteration starts.
 */
export async function iterate(state: SearchState, env: SearchEnvironment, opts: { signal?: AbortSignal } = {}): Promise<SearchState> {
  if (state.stopped) return state;
  const before = stopReasonBefore(state, opts.signal);
  if (before) {
    state.stopped = before;
    return state;
  }
  const node = selectExpandable(state);
  if (!node) {
    state.stopped = "exhausted";
    return state;
  }

  // Phase 2: expansion — one selector call.
  let chosen: RepairAction | null = null;
  let why: string | null = null;
  try {
    const sel = await env.selectAction({ node, checkpoints: node.state?.checkpoints ?? [], storedGuidance: node.storedGuidance, verdict: node.verdict });
    state.usage.selector.calls += sel.usage.calls;
    state.usage.selector.tokens += sel.usage.tokens;
    chosen = sel.action;
  } catch (e) {
    state.usage.selector.calls += 1;
    why = oneLine(e);
  }
  const action = validateAction(state, node, chosen, why);
  // A rollback executes nothing: the same rollback again would be an identical sibling (a
  // deterministic selector, a repeated reply, the same coerced fallback). Not built twice. (A
  // guided repair or continuation is a fresh live rollout, a new sample, so it may repeat.)
  const twin = action?.kind === "rollback" ? node.children.find((c) => sameAction(state.nodes[c].action, action)) : undefined;
  if (twin !== undefined) {
    // Not an expansion: no node and no iteration used (the selector call is counted); the next
    // call of iterate selects again, past this node now.
    node.saturated = true;
    state.coercions.push(`iteration ${state.iteration + 1}, ${node.id}: ${action!.kind} repeats child ${twin}; ${node.id} takes no more children`);
    return state;
  }
  state.iteration += 1;
  const id = `n${state.order.length}`;
  const child: TreeNode = {
    id,
    parentId: node.id,
    depth: node.depth + 1,
    action,
    visits: 0,
    q: 0,
    verdict: null,
    state: null,
    storedGuidance: null,
    children: [],
    error: null,
    iteration: state.iteration,
  };
  if (action === null) child.error = "the node cannot be expanded: a finished trajectory with no checkpoint to roll back to";
  else if (action.kind === "rollback") child.storedGuidance = action.guidance;
  else if (action.kind === "continuation") child.storedGuidance = node.storedGuidance;
  state.nodes[id] = child;
  state.order.push(id);
  node.children.push(id);

  let built: BuiltState | null = null;
  if (action && !child.error) {
    try {
      built = await env.apply(node, action, state.settings);
      state.usage.mas.calls += built.usage.calls;
      state.usage.mas.tokens += built.usage.tokens;
      child.state = built;
    } catch (e) {
      child.error = `${action.kind} failed: ${oneLine(e)}`;
    }
  }

  // Phase 3: evaluation.
  let r = 0;
  if (built && !child.error) {
    try {
      const j = await env.judge(built);
      state.usage.judge.calls += j.usage.calls;
      state.usage.judge.tokens += j.usage.tokens;
      const v: JudgeVerdict = { ...j.verdict, score: Math.min(1, Math.max(0, j.verdict.score)) };
      child.verdict = v;
      r = v.score;
    } catch (e) {
      state.usage.judge.calls += 1;
      child.error = `judge failed: ${oneLine(e)}`;
    }
  }
  if (r > state.maxR) {
    state.maxR = r;
    state.bestId = id;
  }

  // Phase 4: backpropagation.
  backpropagate(state, id, r);
  if (r >= 1) state.stopped = "solved";
  return state;
}

/**
 * Why a finished search produced no usable trajectory, or null when it did: every tree node below
 * the root failed to build or be judged (then the search is a failure, not a result — its "best"
 * would be the untouched τ_fail). The reason names how many nodes failed and the first error in
 * creation order; a search that built no node at all says so with its stop reason.
 * @returns e.g. "all 3 tree node(s) failed; first (n1): judge failed: …", or null
 */
export function searchFailure(state: SearchState): string | null {
  const built = state.order.filter((id) => id !== "n0").map((id) => state.nodes[id]);
  if (built.some((n) => n.error === null)) return null;
  if (built.length === 0) return `no tree node was built (stopped: ${state.stopped ?? "not yet"})`;
  const first = built[0];
  return `all ${built.length} tree node(s) failed; first (${first.id}): ${first.error}`;
}

/**
 * Run iterations until the search stops (solved, N_iter, budget, exhausted, cancelled).
 * @param opts.onIteration called after every iteration with the state (e.g. to store it); awaited.
 * @returns the final state; `state.bestId` is the highest-scoring trajectory (Algorithm 1 line 28).
 */
export async function runRepairSearch(
  state: SearchState,
  env: SearchEnvironment,
  opts: { signal?: AbortSignal; onIteration?: (s: SearchState) => void | Promise<void> } = {},
): Promise<SearchState> {
  while (!state.stopped) {
    await iterate(state, env, opts);
    await opts.onIteration?.(state);
  }
  return state;
}
