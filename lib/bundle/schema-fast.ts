/**
 * Fast acceptance checks for the three element schemas of a bundle (./schema.ts
 * `bundleNodeSchema`, `bundleEdgeSchema`, `boundaryRecordSchema`), for the streaming reader,
 * which checks every node, edge and record (issue 25 item 3: zod took ~0.3 CPU-s per 100k nodes).
 *
 * Each returns true only for a value its zod schema accepts (plain property tests, no
 * allocation); false means "not shown valid here": the caller then runs the zod schema, which
 * decides and words the issues. So what is accepted or reported does not change.
 */
import { BOUNDARIES, EDGE_KINDS, NODE_STATUSES, NODE_TYPES } from "./schema";

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const HASH = /^sha256:[0-9a-f]{64}$/;
const NODE_TYPE_SET: ReadonlySet<unknown> = new Set(NODE_TYPES);
const NODE_STATUS_SET: ReadonlySet<unknown> = new Set(NODE_STATUSES);
const EDGE_KIND_SET: ReadonlySet<unknown> = new Set(EDGE_KINDS);
const BOUNDARY_SET: ReadonlySet<unknown> = new Set(BOUNDARIES);

/** A string, null or absent (zod `z.string().nullish()`). */
const optString = (v: unknown) => v === undefined || v === null || typeof v === "string";
const nonEmptyString = (v: unknown) => typeof v === "string" && v.length > 0;

/** True only when `bundleNodeSchema` accepts `v`. */
export function isPlainValidNode(v: unknown): boolean {
  if (!isRec(v)) return false;
  if (!nonEmptyString(v.id) || !NODE_TYPE_SET.has(v.type) || !optString(v.agent) || !optString(v.label)) return false;
  if (v.content === undefined || typeof v.contentHash !== "string" || !HASH.test(v.contentHash)) return false;
  if (!(v.status === undefined || v.status === null || NODE_STATUS_SET.has(v.status))) return false;
  const e = v.error;
  if (e === undefined || e === null) return true;
  return isRec(e) && (e.type === undefined || typeof e.type === "string") && (e.message === undefined || typeof e.message === "string");
}

/** True only when `bundleEdgeSchema` accepts `v`. */
export function isPlainValidEdge(v: unknown): boolean {
  return isRec(v) && nonEmptyString(v.from) && nonEmptyString(v.to) && EDGE_KIND_SET.has(v.kind);
}

/** True only when `boundaryRecordSchema` accepts `v`. */
export function isPlainValidRecord(v: unknown): boolean {
  if (!isRec(v)) return false;
  if (typeof v.seq !== "number" || !Number.isSafeInteger(v.seq) || v.seq < 0) return false;
  if (!nonEmptyString(v.nodeId) || !BOUNDARY_SET.has(v.boundary)) return false;
  if (v.request === undefined || typeof v.requestHash !== "string" || !HASH.test(v.requestHash)) return false;
  if (!Object.hasOwn(v, "response")) return false; // z.unknown() in zod 4: the key must be there (any value)
  const m = v.meta;
  return m === undefined || m === null || (isRec(m) && Object.getPrototypeOf(m) === Object.prototype);
}
