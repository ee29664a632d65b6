/**
 * Replay result vs its source, node by node (issue 7 result view): the verified prefix (same
 * node id and content hash), the intervention boundary, the new live suffix, and the source's
 * suffix that the replay replaced; a JSON-pointer diff where a shared id changed.
 */
import type { ReplayBundle } from "../bundle";
import { pointerDiff } from "./diff";

export type CompareKind = "prefix" | "intervention" | "changed" | "new" | "source-only";

export interface CompareRow {
  kind: CompareKind;
  source: { id: string; type: string; label: string | null } | null;
  replay: { id: string; type: string; label: string | null } | null;
  /** For "changed"/"intervention": what differs, as RFC 6901 pointers with both values. */
  diff: Array<{ path: string; op: string; expected?: unknown; actual?: unknown }>;
}

/**
 * @param source the source bundle; @param replay the replay's output bundle
 * @param boundaryNodeId the node where the guidance was applied
 */
export function compareReplay(source: ReplayBundle, replay: ReplayBundle, boundaryNodeId: string | null): CompareRow[] {
  // The boundary call runs live, so in the replay it is a new node: the record at the parent's
  // boundarySeq names it (lib/replay keeps prefix ids and numbers live nodes after them).
  const parent = (replay.parent ?? null) as { boundarySeq?: number } | null;
  const srcById = new Map(source.graph.nodes.map((n) => [n.id, n]));
  const repById = new Map(replay.graph.nodes.map((n) => [n.id, n]));
  let interventionId =
    parent && typeof parent.boundarySeq === "number" ? (replay.records.find((r) => r.seq === parent.boundarySeq)?.nodeId ?? boundaryNodeId) : boundaryNodeId;
  // A transcript continuation (Who&When, MAD, Langfuse) keeps the prefix and continues with new
  // nodes, so the boundary node (msg_0005) is not in the replay: the intervention is the first
  // live node, the first replay node the source does not have (issue 22 item 4).
  if (interventionId !== null && !repById.has(interventionId)) interventionId = replay.order.find((id) => !srcById.has(id)) ?? interventionId;
  const lite = (n: { id: string; type: string; label?: string | null }) => ({ id: n.id, type: n.type, label: n.label ?? null });
  const rows: CompareRow[] = [];
  for (const id of replay.order) {
    const r = repById.get(id)!;
    const s = srcById.get(id);
    if (id === interventionId && !s) rows.push({ kind: "intervention", source: boundaryNodeId && srcById.get(boundaryNodeId) ? lite(srcById.get(boundaryNodeId)!) : null, replay: lite(r), diff: boundaryNodeId && srcById.get(boundaryNodeId) ? pointerDiff(srcById.get(boundaryNodeId)!.content, r.content).map((x) => ({ path: x.path, op: x.op, expected: x.expected, actual: x.actual })) : [] });
    else if (!s) rows.push({ kind: "new", source: null, replay: lite(r), diff: [] });
    else if (s.contentHash === r.contentHash && id !== interventionId) rows.push({ kind: "prefix", source: lite(s), replay: lite(r), diff: [] });
    else {
      const d = pointerDiff(s.content, r.content).map((x) => ({ path: x.path, op: x.op, expected: x.expected, actual: x.actual }));
      rows.push({ kind: id === interventionId ? "intervention" : "changed", source: lite(s), replay: lite(r), diff: d });
    }
  }
  for (const id of source.order) {
    if (!repById.has(id) && id !== (interventionId !== boundaryNodeId ? boundaryNodeId : null)) rows.push({ kind: "source-only", source: lite(srcById.get(id)!), replay: null, diff: [] });
  }
  return rows;
}
