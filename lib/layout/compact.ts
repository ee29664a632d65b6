/**
 * A compact wire form of the inspector's graph (server → browser). A 4,001-node trace as plain
 * objects is ~830 KB of JSON inside the page; repeated keys and strings dominate. Here node
 * fields are columns, types/agents/statuses are indices into small tables, and edges are index
 * triples: about a third of the size, expanded in O(n) in the browser.
 */
import type { NodeTiming } from "./timing";
import type { GraphEdgeLite, GraphNodeLite } from "./types";

export interface CompactGraph {
  /** Node ids in observed order (orderIndex = position). */
  ids: string[];
  labels: Array<string | null>;
  /** Distinct values and, per node, an index into them. */
  typeTable: string[];
  types: number[];
  agentTable: Array<string | null>;
  agents: number[];
  statusTable: Array<string | null>;
  statuses: number[];
  kindTable: string[];
  /** Edges as flat triples [fromIndex, toIndex, kindIndex, ...] (indices into `ids`). */
  edges: number[];
  /** Per node, its timing or null; absent when no node has one (Who&When, MAD). */
  timing?: Array<NodeTiming | null>;
  /** Per node, its import warnings or null; absent when no node has any. */
  warnings?: Array<string[] | null>;
}

function tabler<T>() {
  const table: T[] = [];
  const index = new Map<T, number>();
  return {
    table,
    of(v: T): number {
      let i = index.get(v);
      if (i === undefined) {
        i = table.length;
        table.push(v);
        index.set(v, i);
      }
      return i;
    },
  };
}

/**
 * @param nodes in observed order (orderIndex 0..n-1)
 * @throws Error when an edge names a node that is not in `nodes`
 */
export function compactGraph(nodes: readonly GraphNodeLite[], edges: readonly GraphEdgeLite[]): CompactGraph {
  const sorted = [...nodes].sort((a, b) => a.orderIndex - b.orderIndex);
  const pos = new Map(sorted.map((n, i) => [n.id, i]));
  const t = tabler<string>();
  const a = tabler<string | null>();
  const s = tabler<string | null>();
  const k = tabler<string>();
  const flat: number[] = [];
  for (const e of edges) {
    const f = pos.get(e.from);
    const to = pos.get(e.to);
    if (f === undefined || to === undefined) throw new Error(`edge ${e.from} -> ${e.to} names a node that is not in the graph`);
    flat.push(f, to, k.of(e.kind));
  }
  return {
    ids: sorted.map((n) => n.id),
    labels: sorted.map((n) => n.label),
    types: sorted.map((n) => t.of(n.type)),
    typeTable: t.table,
    agents: sorted.map((n) => a.of(n.agent)),
    agentTable: a.table,
    statuses: sorted.map((n) => s.of(n.status)),
    statusTable: s.table,
    kindTable: k.table,
    edges: flat,
    ...(sorted.some((n) => n.timing) ? { timing: sorted.map((n) => n.timing ?? null) } : {}),
    ...(sorted.some((n) => n.warnings?.length) ? { warnings: sorted.map((n) => (n.warnings?.length ? n.warnings : null)) } : {}),
  };
}

/** The inverse of compactGraph: nodes in observed order and edges in their original order. */
export function expandGraph(g: CompactGraph): { nodes: GraphNodeLite[]; edges: GraphEdgeLite[] } {
  const nodes: GraphNodeLite[] = g.ids.map((id, i) => ({
    id,
    type: g.typeTable[g.types[i]],
    agent: g.agentTable[g.agents[i]],
    label: g.labels[i],
    status: g.statusTable[g.statuses[i]],
    orderIndex: i,
    ...(g.timing?.[i] ? { timing: g.timing[i]! } : {}),
    ...(g.warnings?.[i] ? { warnings: g.warnings[i]! } : {}),
  }));
  const edges: GraphEdgeLite[] = [];
  for (let i = 0; i < g.edges.length; i += 3) edges.push({ from: g.ids[g.edges[i]], to: g.ids[g.edges[i + 1]], kind: g.kindTable[g.edges[i + 2]] });
  return { nodes, edges };
}
