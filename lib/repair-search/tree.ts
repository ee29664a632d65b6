/**
 * Tree operations of MARS (seeds/002, Algorithm 1): UCT (eq. 1), SelectExpandable, backpropagation.
 * Pure functions over a {@link SearchState}; no I/O.
 */
import type { BuiltState, RepairAction, SearchSettings, SearchState, TreeNode } from "./types";
import { DEFAULT_SETTINGS } from "./types";

/** Error for a settings or state value the core cannot use (names the field). */
export class RepairSearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RepairSearchError";
  }
}

/**
 * Settings with defaults filled and checked.
 * @throws RepairSearchError naming the field when a value is out of range (k, l, maxDepth,
 *   iterations must be positive integers; c ≥ 0; budget caps null or > 0).
 */
export function resolveSettings(partial: Partial<SearchSettings> = {}): SearchSettings {
  const s: SearchSettings = {
    ...DEFAULT_SETTINGS,
    ...partial,
    budget: { ...DEFAULT_SETTINGS.budget, ...(partial.budget ?? {}) },
  };
  for (const key of ["k", "l", "maxDepth", "iterations"] as const) {
    const v = s[key];
    if (!Number.isInteger(v) || v < 1) throw new RepairSearchError(`settings.${key} must be a positive integer (got ${String(v)})`);
  }
  if (!Number.isFinite(s.c) || s.c < 0) throw new RepairSearchError(`settings.c must be a finite number ≥ 0 (got ${String(s.c)})`);
  for (const key of ["maxCalls", "maxTokens"] as const) {
    const v = s.budget[key];
    if (v !== null && (!Number.isFinite(v) || v <= 0)) throw new RepairSearchError(`settings.budget.${key} must be null or > 0 (got ${String(v)})`);
  }
  return s;
}

/**
 * A new search whose root is the failed trajectory τ_fail (Algorithm 1 lines 3–4: best = τ_fail,
 * max_r = 0). The root is not judged (the paper does not judge τ_fail); its visits start at 0.
 */
export function createSearch(root: BuiltState, settings: Partial<SearchSettings> = {}): SearchState {
  const s = resolveSettings(settings);
  const node: TreeNode = {
    id: "n0",
    parentId: null,
    depth: 0,
    action: null,
    visits: 0,
    q: 0,
    verdict: null,
    state: root,
    storedGuidance: null,
    children: [],
    error: null,
    iteration: 0,
  };
  return {
    version: 1,
    settings: s,
    nodes: { n0: node },
    order: ["n0"],
    iteration: 0,
    bestId: "n0",
    maxR: 0,
    usage: { selector: { calls: 0, tokens: 0 }, judge: { calls: 0, tokens: 0 }, mas: { calls: 0, tokens: 0 } },
    coercions: [],
    stopped: null,
  };
}

/**
 * UCT(c) = Q(c)/N(c) + C·√(ln N(p) / N(c)) (seeds/002 eq. 1). An unvisited child (N = 0) is +∞.
 * @param parentVisits N(p); @param visits N(c); @param q Q(c); @param c the exploration weight C.
 */
export function uct(q: number, visits: number, parentVisits: number, c: number): number {
  if (visits <= 0) return Number.POSITIVE_INFINITY;
  const explore = parentVisits > 0 ? c * Math.sqrt(Math.log(parentVisits) / visits) : 0;
  return q / visits + explore;
}

/**
 * A node takes no more children: it has K, or the selector repeated a sibling's action for it
 * (`saturated`, see {@link sameAction}).
 */
export function isFullyExpanded(state: SearchState, n: TreeNode): boolean {
  return n.children.length >= state.settings.k || n.saturated === true;
}

/**
 * Two actions are the same expansion: same kind, and for a rollback the same checkpoint and
 * guidance, for a guided repair the same guidance (whitespace at the ends ignored).
 */
export function sameAction(a: RepairAction | null, b: RepairAction | null): boolean {
  if (a === null || b === null || a.kind !== b.kind) return false;
  if (a.kind === "rollback" && b.kind === "rollback") return a.checkpoint === b.checkpoint && a.guidance.trim() === b.guidance.trim();
  if (a.kind === "guided_repair" && b.kind === "guided_repair") return a.guidance.trim() === b.guidance.trim();
  return true;
}

/**
 * A node that can no longer take part in selection: it failed to build, sits at D_max, or is
 * fully expanded (≥ K children, or saturated) with every child closed. (The paper leaves the all-paths-at-D_max
 * case open; we close such subtrees so selection never returns an unexpandable node, and the search
 * stops as "exhausted" when the root closes.)
 */
export function isClosed(state: SearchState, id: string): boolean {
  const n = state.nodes[id];
  if (!n) throw new RepairSearchError(`no tree node ${id}`);
  if (n.error !== null) return true;
  if (n.depth >= state.settings.maxDepth) return true;
  if (!isFullyExpanded(state, n)) return false;
  return n.children.every((ch) => isClosed(state, ch));
}

/**
 * SelectExpandable (Algorithm 1 line 7): from the root, descend through fully expanded nodes
 * taking the open child with the highest UCT (ties → the earliest created), until a node with
 * fewer than K children (and not saturated). Returns null when the whole tree is closed.
 */
export function selectExpandable(state: SearchState): TreeNode | null {
  if (isClosed(state, "n0")) return null;
  let node = state.nodes.n0;
  while (isFullyExpanded(state, node)) {
    let best: TreeNode | null = null;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const id of node.children) {
      if (isClosed(state, id)) continue;
      const ch = state.nodes[id];
      const v = uct(ch.q, ch.visits, node.visits, state.settings.c);
      if (v > bestValue) {
        best = ch;
        bestValue = v;
      }
    }
    if (!best) return null; // unreachable: an open fully expanded node has an open child
    node = best;
  }
  return node;
}

/** Backpropagation (Algorithm 1 lines 18–23): N += 1 and Q += r from `id` up to the root, no discount. */
export function backpropagate(state: SearchState, id: string, r: number): void {
  let cur: TreeNode | undefined = state.nodes[id];
  while (cur) {
    cur.visits += 1;
    cur.q += r;
    cur = cur.parentId === null ? undefined : state.nodes[cur.parentId];
  }
}

/** Node ids from the root to `id` (inclusive). */
export function pathTo(state: SearchState, id: string): string[] {
  const out: string[] = [];
  let cur: TreeNode | undefined = state.nodes[id];
  while (cur) {
    out.push(cur.id);
    cur = cur.parentId === null ? undefined : state.nodes[cur.parentId];
  }
  return out.reverse();
}

/**
 * Guidance a guided repair from `node` may use: the node's own stored guidance (set by a rollback,
 * inherited through continuations, consumed by a guided repair).
 */
export function storedGuidanceOf(node: TreeNode): string | null {
  return node.storedGuidance;
}
