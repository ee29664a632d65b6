/**
 * What the repair-tree view shows of a {@link SearchState} (issue 15 item 4): one row per tree node
 * with its visits N, mean value Q/N (the exploitation term of UCT, seeds/002 eq. 1), the judge's
 * score and failure mode, the action that built it and its guidance, and whether it lies on the
 * best trajectory (root → best node, Algorithm 1's returned τ_best). Pure: no React, no I/O.
 * Guidance, feedback and errors are trace-derived text: callers render them as text, never HTML.
 */
import { pathTo, uct } from "./tree";
import type { SearchState, TreeNode } from "./types";

/** The action that built a node as the view names it ("root" for τ_fail). */
export type NodeActionKind = "root" | "rollback" | "guided_repair" | "continuation";

/** One tree node as displayed. */
export interface TreeNodeView {
  id: string;
  parentId: string | null;
  depth: number;
  /** Iteration that created the node (0 for the root). */
  iteration: number;
  /** Visit count N. */
  visits: number;
  /** Cumulative score Q. */
  q: number;
  /** Q/N, or null while N = 0. */
  meanQ: number | null;
  /** UCT value seen from the parent (eq. 1 with the search's C); null for the root, +∞ at N = 0. */
  uct: number | null;
  /** Judge score r ∈ [0, 1]; null for the unjudged root or an error node. */
  score: number | null;
  failureMode: string | null;
  feedback: string | null;
  foundSolution: boolean;
  action: NodeActionKind;
  /** The guidance of a rollback or guided repair (null for continuation / root). */
  guidance: string | null;
  /** The checkpoint (trace node id) a rollback cut at. */
  checkpoint: string | null;
  /** Guidance stored on the node for a later guided repair (set by rollback, inherited by continuation). */
  storedGuidance: string | null;
  /** Live LLM steps the expansion ran; null when the node has no built state. */
  liveSteps: number | null;
  /** The MAS process ended in this node's trajectory. */
  finished: boolean;
  error: string | null;
  children: string[];
  /** On the path root → best node. */
  onBestPath: boolean;
  /** The best node itself. */
  isBest: boolean;
}

/**
 * The best trajectory: node ids from the root to `state.bestId` (inclusive). An unknown best id
 * (a corrupt state) gives just the root's path of whatever is known: [] if the root is missing too.
 */
export function bestPath(state: SearchState): string[] {
  if (!state.nodes[state.bestId]) return state.nodes.n0 ? ["n0"] : [];
  return pathTo(state, state.bestId);
}

function actionFields(n: TreeNode): Pick<TreeNodeView, "action" | "guidance" | "checkpoint"> {
  const a = n.action;
  if (!a) return { action: "root", guidance: null, checkpoint: null };
  if (a.kind === "rollback") return { action: "rollback", guidance: a.guidance, checkpoint: a.checkpoint };
  if (a.kind === "guided_repair") return { action: "guided_repair", guidance: a.guidance, checkpoint: null };
  return { action: "continuation", guidance: null, checkpoint: null };
}

/**
 * Every node of the tree as a view row, in creation order (`state.order`; nodes missing from the
 * order follow in key order).
 */
export function treeView(state: SearchState): TreeNodeView[] {
  const best = new Set(bestPath(state));
  const ids = [...state.order.filter((id) => state.nodes[id]), ...Object.keys(state.nodes).filter((id) => !state.order.includes(id))];
  return ids.map((id) => {
    const n = state.nodes[id];
    const parent = n.parentId === null ? undefined : state.nodes[n.parentId];
    return {
      id: n.id,
      parentId: n.parentId,
      depth: n.depth,
      iteration: n.iteration,
      visits: n.visits,
      q: n.q,
      meanQ: n.visits > 0 ? n.q / n.visits : null,
      uct: parent ? uct(n.q, n.visits, parent.visits, state.settings.c) : null,
      score: n.verdict ? n.verdict.score : null,
      failureMode: n.verdict ? n.verdict.failureMode : null,
      feedback: n.verdict ? n.verdict.feedback : null,
      foundSolution: n.verdict?.foundSolution ?? false,
      ...actionFields(n),
      storedGuidance: n.storedGuidance,
      liveSteps: n.state ? n.state.liveSteps : null,
      finished: n.state?.finished ?? false,
      error: n.error,
      children: [...n.children],
      onBestPath: best.has(id),
      isBest: id === state.bestId,
    };
  });
}

/** Parent → child edges of the tree, each flagged when both ends lie on the best path. */
export function treeEdges(rows: readonly TreeNodeView[]): Array<{ from: string; to: string; best: boolean }> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: Array<{ from: string; to: string; best: boolean }> = [];
  for (const r of rows) {
    if (r.parentId === null || !byId.has(r.parentId)) continue;
    out.push({ from: r.parentId, to: r.id, best: r.onBestPath && byId.get(r.parentId)!.onBestPath });
  }
  return out;
}

/**
 * The ELK input graph for the tree (elkjs `mrtree`, top-down; children in creation order, so a
 * node's children read left to right as they were expanded). Fixed card size in px.
 */
export function treeElkInput(rows: readonly TreeNodeView[], cardWidth: number, cardHeight: number) {
  return {
    id: "repair-tree",
    layoutOptions: {
      "elk.algorithm": "mrtree",
      "elk.direction": "DOWN",
      "elk.spacing.nodeNode": "24",
      "elk.mrtree.weighting": "CONSTRAINT",
      "elk.mrtree.searchOrder": "DFS",
    },
    children: rows.map((r) => ({ id: r.id, width: cardWidth, height: cardHeight })),
    edges: treeEdges(rows).map((e) => ({ id: `${e.from}->${e.to}`, sources: [e.from], targets: [e.to] })),
  };
}

/** A score or mean in [0, 1] with 2 decimals ("—" for null). */
export function fmtScore(v: number | null): string {
  return v === null || !Number.isFinite(v) ? "—" : v.toFixed(2);
}
