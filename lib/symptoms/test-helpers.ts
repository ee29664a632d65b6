/**
 * Small hand-built traces for the lib/symptoms tests (not part of the public surface).
 */
import { buildBundle, type BundleEdge, type NodeDraft, type RecordDraft, type ReplayBundle } from "../bundle";

/** Node shorthand: [id, type, content, extra fields]. */
export type N = [string, NodeDraft["type"], unknown, Partial<NodeDraft>?];

/**
 * A valid bundle whose nodes follow each other by control edges (i → i+1), plus `data` edges
 * given as [from, to] (they replace the control edge of the same pair).
 */
export function trace(nodes: N[], opts: { prompt?: string; startUrls?: string[]; data?: Array<[string, string]>; llm?: string[]; tool?: string[] } = {}): ReplayBundle {
  const drafts = nodes.map(([id, type, content, extra]) => ({ ...(extra ?? {}), id, type, content }) as NodeDraft & { id: string });
  const ids: string[] = nodes.map((x) => x[0]);
  const data = new Set((opts.data ?? []).map(([a, b]) => `${a}\u0000${b}`));
  const edges: BundleEdge[] = [];
  for (let i = 0; i + 1 < drafts.length; i++) {
    const k = `${ids[i]}\u0000${ids[i + 1]}`;
    edges.push({ from: ids[i], to: ids[i + 1], kind: data.has(k) ? "data" : "control" });
    data.delete(k);
  }
  for (const k of data) {
    const [from, to] = k.split("\u0000");
    edges.push({ from, to, kind: "data" });
  }
  const records: RecordDraft[] = [];
  for (const id of ids) {
    if (opts.llm?.includes(id)) records.push({ nodeId: id, boundary: "llm", request: { model: "m", messages: [{ role: "user", content: id }] }, response: null });
    if (opts.tool?.includes(id)) records.push({ nodeId: id, boundary: "tool", request: { tool: "t", arguments: { id } }, response: null });
  }
  return buildBundle({
    id: "test/symptoms",
    task: { id: "t", prompt: opts.prompt ?? "Answer the question.", ...(opts.startUrls ? { startUrls: opts.startUrls } : {}) },
    config: { mas: "test" },
    nodes: drafts,
    edges,
    records,
  });
}
