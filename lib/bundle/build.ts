/**
 * Building a valid replay bundle from parts: importers and the replay core describe nodes,
 * edges and records without hashes; `buildBundle` fills in `contentHash`, `requestHash`, `seq`
 * and (by default) the observed order, then validates the result.
 */
import { BUNDLE_FORMAT, type BundleEdge, type BundleNode, type BoundaryRecord, type ReplayBundle } from "./schema";
import { hashContent, hashRequest } from "./hash";
import { depthIssues, validateBundle, type ValidationIssue } from "./validate";
import { stringifyBoundedIndent } from "./depth";

export type NodeDraft = Omit<BundleNode, "contentHash"> & { contentHash?: string };
export type RecordDraft = Omit<BoundaryRecord, "seq" | "requestHash"> & { seq?: number; requestHash?: string };

export interface BundleDraft {
  id: string;
  parent?: ReplayBundle["parent"];
  task: ReplayBundle["task"];
  initialState?: unknown;
  config: ReplayBundle["config"];
  nodes: NodeDraft[];
  edges: BundleEdge[];
  /** Observed order; defaults to the order of `nodes`. */
  order?: string[];
  records?: RecordDraft[];
  outcome?: ReplayBundle["outcome"];
  /** Extra top-level keys kept verbatim (e.g. `source`, `referenceLabels`). */
  extra?: Record<string, unknown>;
}

export class BundleValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(
      `bundle is invalid (${issues.length} issue${issues.length === 1 ? "" : "s"}): ` +
        issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`).join("; "),
    );
    this.name = "BundleValidationError";
  }
}

/**
 * Assemble, hash and validate a bundle.
 * @returns a bundle that passes every rule of spec §Validation
 * @throws BundleValidationError listing every violation (e.g. an edge against the order)
 */
export function buildBundle(d: BundleDraft): ReplayBundle {
  // The nesting limit first (on the draft, at the paths the bundle will have): hashing recurses.
  const deep = depthIssues(assemble(d, d.nodes as BundleNode[], (d.records ?? []) as BoundaryRecord[]));
  if (deep.length > 0) throw new BundleValidationError(deep);
  const nodes: BundleNode[] = d.nodes.map((n) => ({ ...n, contentHash: hashContent(n.content) }) as BundleNode);
  const records: BoundaryRecord[] = (d.records ?? []).map(
    (r, i) => ({ ...r, seq: i, requestHash: hashRequest(r.request) }) as BoundaryRecord,
  );
  const res = validateBundle(assemble(d, nodes, records));
  if (!res.ok) throw new BundleValidationError(res.issues);
  return res.bundle;
}

function assemble(d: BundleDraft, nodes: BundleNode[], records: BoundaryRecord[]) {
  return {
    format: BUNDLE_FORMAT,
    id: d.id,
    parent: d.parent ?? null,
    task: d.task,
    initialState: d.initialState ?? {},
    config: d.config,
    graph: { nodes, edges: d.edges },
    order: d.order ?? nodes.map((n) => n.id),
    records,
    ...(d.outcome !== undefined ? { outcome: d.outcome } : {}),
    ...(d.extra ?? {}),
  };
}

/**
 * Serialize a bundle as the on-disk file: 2-space JSON for the first PRETTY_DEPTH (12) levels,
 * compact below them (so deep content cannot blow up the file: size stays within a small factor
 * of the compact JSON), trailing newline. Same JSON value, same hashes.
 */
export function serializeBundle(b: ReplayBundle): string {
  return stringifyBoundedIndent(b) + "\n";
}
