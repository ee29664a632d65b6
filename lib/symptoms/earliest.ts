/**
 * The earliest-node check (issue 12 item 5): is the failure node an annotator chose really the
 * earliest one? Pure; linear in nodes + edges (one reverse BFS for the ancestors, one forward BFS
 * for the descendants of the chosen node, over data and control edges).
 */
import type { Category, DetectionResult, Evidence } from "./types";

/** A non-blocking warning about the chosen failure node. */
export type EarliestWarning =
  | {
      kind: "upstream-rule";
      /** The ancestor (upstream over data/control edges) on which the rule fired. */
      nodeId: string;
      ruleId: string;
      category: Category;
      /** The rule's evidence (JSON path + quote; `nodeId` set when the quote lies in another node). */
      evidence: Evidence[];
    }
  | {
      kind: "downstream-evidence";
      /** The node holding the quote; it lies downstream of the chosen node. */
      nodeId: string;
      quote: string;
    };

/** The input of {@link earliestNodeWarnings}. */
export interface EarliestCheckInput {
  /** The event-dependency graph; `nodes` in observed order. */
  graph: { nodes: ReadonlyArray<{ id: string }>; edges: ReadonlyArray<{ from: string; to: string }> };
  /** Detection result on the same bundle (only `nodes[].id` and `nodes[].rules` are read). */
  detection: Pick<DetectionResult, "nodes">;
  /** The failure node the annotator chose. */
  chosenNode: string;
  /** The categories the annotator chose; only rules of these categories warn. */
  categories: ReadonlyArray<Category>;
  /** The annotator's evidence quotes. */
  evidence?: ReadonlyArray<{ nodeId: string; quote: string }>;
}

/** The chosen node is not a node of the graph. */
export class EarliestCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EarliestCheckError";
  }
}

/**
 * Warnings for a chosen failure node: (1) one per rule of a chosen category that fired on an
 * ancestor of the chosen node, ancestors in observed order (earliest first); (2) one per evidence
 * quote lying in a descendant of the chosen node. No warning for the chosen node itself.
 * Cost O(nodes + edges + rule hits + evidence).
 * @throws EarliestCheckError when `chosenNode` is not in `graph.nodes`
 */
export function earliestNodeWarnings(input: EarliestCheckInput): EarliestWarning[] {
  const { graph, detection, chosenNode, categories } = input;
  const index = new Map<string, number>();
  graph.nodes.forEach((n, i) => index.set(n.id, i));
  const start = index.get(chosenNode);
  if (start === undefined) throw new EarliestCheckError(`chosen node "${chosenNode}" is not a node of this case; choose a node from the graph`);
  const n = graph.nodes.length;
  const preds: number[][] = Array.from({ length: n }, () => []);
  const succs: number[][] = Array.from({ length: n }, () => []);
  for (const e of graph.edges) {
    const a = index.get(e.from);
    const b = index.get(e.to);
    if (a === undefined || b === undefined) continue;
    preds[b].push(a);
    succs[a].push(b);
  }
  const reach = (adj: number[][]): Uint8Array => {
    const seen = new Uint8Array(n);
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const v = stack.pop()!;
      for (const w of adj[v])
        if (!seen[w]) {
          seen[w] = 1;
          stack.push(w);
        }
    }
    seen[start] = 0;
    return seen;
  };
  const warnings: EarliestWarning[] = [];
  const chosen = new Set(categories);
  if (chosen.size) {
    const up = reach(preds);
    const hits = detection.nodes.filter((d) => up[index.get(d.id) ?? start] === 1).sort((a, b) => index.get(a.id)! - index.get(b.id)!);
    for (const d of hits) for (const r of d.rules) if (chosen.has(r.category)) warnings.push({ kind: "upstream-rule", nodeId: d.id, ruleId: r.id, category: r.category, evidence: r.evidence });
  }
  if (input.evidence?.length) {
    const down = reach(succs);
    for (const e of input.evidence) if (down[index.get(e.nodeId) ?? start] === 1) warnings.push({ kind: "downstream-evidence", nodeId: e.nodeId, quote: e.quote });
  }
  return warnings;
}

/** What the inspector's symptom layer needs (rules only): the anchor and, per node where a rule fired, c_f and the rules. */
export interface SymptomLayer {
  mode: DetectionResult["mode"];
  threshold: number;
  /** The intervention anchor (an LLM boundary), or null. */
  anchor: string | null;
  /** The eligible node the anchor was chosen from (the offline anchor when nothing is replayable). */
  anchorNode: string | null;
  nodes: Array<{ id: string; cf: number; eligible: boolean; categories: Category[]; rules: Array<{ id: string; category: Category; evidence: Array<{ path: string; quote: string; nodeId?: string }> }> }>;
}

/** The compact symptom layer of a detection result (what the inspector draws). */
export function symptomLayer(x: DetectionResult): SymptomLayer {
  return {
    mode: x.mode,
    threshold: x.threshold,
    anchor: x.anchor,
    anchorNode: x.anchorNode,
    nodes: x.nodes.map((v) => ({ id: v.id, cf: v.cf, eligible: v.eligible, categories: v.categories, rules: v.rules.map((r) => ({ id: r.id, category: r.category, evidence: r.evidence })) })),
  };
}
