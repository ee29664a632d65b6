/** The node detail returned by GET /api/cases/<bundleId>/nodes/<nodeId> (lib/db getNodeDetail). */
export interface NodeDetailView {
  nodeId: string;
  orderIndex: number;
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
  error: unknown;
  content: unknown;
  contentHash: string;
  hashVerifies: boolean;
  records: Array<{ seq: number; boundary: string; request: unknown; requestHash: string; requestHashVerifies: boolean; response: unknown; meta: unknown }>;
  parents: Array<{ nodeId: string; kind: string }>;
  children: Array<{ nodeId: string; kind: string }>;
}
