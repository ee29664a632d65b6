/**
 * Streaming validation and hashing of a replay bundle file (issue 16 item 3): the file is read
 * with lib/bundle/json-split (a byte splitter + JSON.parse per node/edge/record), each node, edge, order entry and record is checked
 * and handed to a {@link BundleStreamSink} as it arrives (the database writes it in batches),
 * and the bundle hash sha256(JCS(bundle)) is computed without the bundle ever being in memory.
 *
 * Memory: the parts of the bundle other than graph.nodes, graph.edges, order and records (task,
 * config, outcome, unknown keys) are held whole; per node/edge/record only a few typed-array
 * slots and the node id (for rules 1–4) are kept. The canonical JSON of the four big arrays is
 * spooled to temporary files (JCS sorts keys: `graph.edges` comes before `graph.nodes`, so the
 * hash can only be fed once every part is known) and hashed at the end.
 *
 * Rules are those of validate.ts (spec §Validation 1–6 plus the nesting limit) with the same
 * JSON paths and wording; the order in which issues are listed may differ, and at most
 * {@link MAX_STREAM_ISSUES} are listed (then a count of the rest).
 */
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { z } from "zod";
import { canonicalAndJsonOfParsed, canonicalJson, canonicalJsonOfParsed, canonicalJsonWith as canonicalWith, sha256Tagged } from "./hash";
import { exceedsDepth, findTooDeep, MAX_JSON_DEPTH } from "./depth";
import { type JsonKey, type JsonStreamHandler } from "./json-stream";
import { readJsonStreamSplit } from "./json-split";
import { boundaryRecordSchema, bundleEdgeSchema, bundleNodeSchema } from "./schema";
import { isPlainValidEdge, isPlainValidNode, isPlainValidRecord } from "./schema-fast";
import { findCycle, formatJsonPath, validateBundle, type ValidationIssue } from "./validate";
import { allowedNodeTypes, issues } from "./rules";

/** Issues listed before the rest are only counted. */
export const MAX_STREAM_ISSUES = 200;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Receives the parts of a bundle that passed their own checks, in file order, while the file is
 * read. Nothing is sent after the first issue (the caller discards what it got: one transaction).
 * `orderIndex` of a node is its position in `order` when `order` came first in the file, else
 * its index in graph.nodes (then corrected by {@link BundleStreamResult.orderFixes}).
 */
export interface BundleStreamSink {
  /** `json.content`: `JSON.stringify(node.content)`, already computed (absent when the node has no content). */
  node(node: Rec, idx: number, orderIndex: number, json?: MemberJson): void;
  edge(edge: Rec, idx: number): void;
  /** `json.request` / `json.response` / `json.meta`: `JSON.stringify` of those members, already computed (each absent when the member is). */
  record(record: Rec, seq: number, json?: MemberJson): void;
  /** Awaited after each 1 MiB chunk of the file (write the batches that are full). */
  drain?(): Promise<void>;
  /** The file is read: every part has been handed over (called before the final checks and the bundle hash). */
  end?(): void;
}

/** `JSON.stringify` texts of some members of a node or record, by member name (computed with their canonical text). */
export type MemberJson = Readonly<Record<string, string | undefined>>;

/** Outcome of {@link streamBundleFile}. */
export interface BundleStreamResult {
  ok: boolean;
  /** Up to MAX_STREAM_ISSUES issues, each with its JSON path (and node id / record seq). */
  issues: ValidationIssue[];
  /** Issues found beyond those listed. */
  moreIssues: number;
  /** The bundle without graph.nodes, graph.edges, order and records (lib/db `bundleHeader`). */
  header: Rec;
  /** sha256(JCS(bundle)) as `sha256:<hex>`, when ok. */
  bundleHash: string | null;
  counts: { nodes: number; edges: number; records: number; agents: number; bytes: number };
  /** Agents in order of first appearance in `order` (null = nodes without an agent): the inspector's lanes. */
  lanes: Array<string | null>;
  /** Nodes whose `orderIndex` given to the sink was provisional and is wrong: [nodeId, position in order]. */
  orderFixes: () => Iterable<[string, number]>;
}

/** Growable Int32Array. */
class IntList {
  a: Int32Array;
  n = 0;
  constructor(cap = 1024, private fill = -1) {
    this.a = new Int32Array(cap).fill(fill);
  }
  ensure(i: number): void {
    if (i < this.a.length) return;
    let cap = this.a.length * 2;
    while (cap <= i) cap *= 2;
    const b = new Int32Array(cap).fill(this.fill);
    b.set(this.a);
    this.a = b;
  }
  set(i: number, v: number): void {
    this.ensure(i);
    this.a[i] = v;
    if (i >= this.n) this.n = i + 1;
  }
  get(i: number): number {
    return i < this.a.length ? this.a[i] : this.fill;
  }
  push(v: number): void {
    this.set(this.n, v);
  }
}

/** Canonical JSON of elements appended to a temp file, comma-separated (UTF-8, through a 4 MiB buffer). */
class Spool {
  private fd: number;
  private buf = Buffer.allocUnsafe(1 << 22);
  private pos = 0;
  count = 0;
  constructor(readonly file: string) {
    this.fd = openSync(file, "w+");
  }
  add(text: string): void {
    if (this.pos + 3 * text.length + 1 > this.buf.length) this.flush();
    if (this.count++ > 0) this.buf[this.pos++] = 0x2c; // ","
    if (3 * text.length + 1 > this.buf.length) {
      this.flush();
      writeSync(this.fd, text);
    } else this.pos += this.buf.write(text, this.pos, "utf8");
  }
  flush(): void {
    if (this.pos === 0) return;
    writeSync(this.fd, this.buf, 0, this.pos);
    this.pos = 0;
  }
  /** Feed the spooled bytes to a hash. */
  hashInto(h: ReturnType<typeof createHash>): void {
    this.flush();
    const buf = Buffer.allocUnsafe(1 << 20);
    let pos = 0;
    for (;;) {
      const n = readSync(this.fd, buf, 0, buf.length, pos);
      if (n <= 0) break;
      h.update(n === buf.length ? buf : buf.subarray(0, n));
      pos += n;
    }
  }
  close(): void {
    closeSync(this.fd);
  }
}

/** Canonical and JSON.stringify texts of member `k` of `o` (null when absent or not JSON: then the member is serialized again where needed). */
function memberTexts(o: Rec, k: string): { canonical: string; json: string } | null {
  const v = o[k];
  if (v === undefined) return null;
  try {
    return canonicalAndJsonOfParsed(v);
  } catch {
    return null;
  }
}

const NODE_TYPE_CODE: Record<string, number> = { agent_action: 1, llm_call: 2, tool_call: 3, tool_result: 4, message: 5, final_result: 6 };
const TYPE_NAME = ["", "agent_action", "llm_call", "tool_call", "tool_result", "message", "final_result"];

/**
 * Read, validate and hash a bundle file as a stream, handing its parts to `sink`.
 * @param file path of a `symtrace.bundle/v1` file (any size)
 * @param opts.onProgress bytes read so far, file size, nodes seen so far
 * @returns the result; `ok: false` with issues (JSON paths) when the bundle is invalid
 * @throws JsonStreamError when the file is not JSON; errors of the sink pass through
 */
export async function streamBundleFile(
  file: string,
  sink: BundleStreamSink,
  opts: { onProgress?: (bytes: number, total: number, nodes: number) => void; tmpDir?: string } = {},
): Promise<BundleStreamResult> {
  const dir = mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), "symtrace-stream-"));
  const spools = {
    nodes: new Spool(path.join(dir, "nodes")),
    edges: new Spool(path.join(dir, "edges")),
    order: new Spool(path.join(dir, "order")),
    records: new Spool(path.join(dir, "records")),
  };
  try {
    const st = new BundleStreamState(sink, spools);
    const r = await readJsonStreamSplit(file, st, {
      onProgress: (b, t) => opts.onProgress?.(b, t, st.nodeCount),
      afterChunk: sink.drain ? () => sink.drain!() : undefined,
    });
    sink.end?.();
    return st.finish(r.bytes);
  } finally {
    for (const s of Object.values(spools)) s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

class BundleStreamState implements JsonStreamHandler {
  private issues: ValidationIssue[] = [];
  private more = 0;
  private header: Rec = {};
  private graphRest: Rec = {};
  private graphIsObject = false;
  private seen = { nodes: false, edges: false, order: false, records: false };
  private rootNotObject: unknown = undefined;
  private rootIsObject = false;
  // Interned node ids (from nodes, edges, order, records alike).
  private ids = new Map<string, number>();
  private idText: string[] = [];
  private nodeIdx = new IntList(1024, -1); // by id -> index in graph.nodes
  private nodeType = new Uint8Array(1024);
  private pos = new IntList(1024, -1); // by id -> position in order
  private provisional = new Uint8Array(1024); // by id -> 1 when its row got orderIndex = idx
  private edgeFrom = new IntList(1024, -1);
  private edgeTo = new IntList(1024, -1);
  private recNode = new IntList(1024, -1);
  private recBoundary = new Uint8Array(1024);
  private agents = new Set<string>();
  // Agent of each declared node, by intern id (index into agentNames; 0 = no agent).
  private agentNames: Array<string | null> = [null];
  private agentCode = new Map<string, number>();
  private nodeAgent = new IntList(1024, 0);
  nodeCount = 0;
  private edgeCount = 0;
  private orderCount = 0;
  private recordCount = 0;
  private failed = false;

  constructor(
    private readonly sink: BundleStreamSink,
    private readonly spools: Record<"nodes" | "edges" | "order" | "records", Spool>,
  ) {}

  private issue(i: ValidationIssue): void {
    this.failed = true;
    if (this.issues.length < MAX_STREAM_ISSUES) this.issues.push(i);
    else this.more++;
  }

  private intern(id: string): number {
    let k = this.ids.get(id);
    if (k === undefined) {
      // Kept as is: JSON.parse makes sequential strings (no slice keeping the read chunk alive).
      k = this.idText.length;
      this.ids.set(id, k);
      this.idText.push(id);
    }
    return k;
  }

  private grow8(a: Uint8Array<ArrayBuffer>, i: number): Uint8Array<ArrayBuffer> {
    if (i < a.length) return a;
    let cap = a.length * 2;
    while (cap <= i) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(a);
    return b;
  }

  select(p: readonly JsonKey[], kind: "object" | "array"): "assemble" | "descend" {
    if (p.length === 0) return kind === "object" ? "descend" : "assemble";
    if (p.length === 1) {
      if (p[0] === "graph" && kind === "object") return "descend";
      if ((p[0] === "order" || p[0] === "records") && kind === "array") return "descend";
      return "assemble";
    }
    if (p.length === 2 && p[0] === "graph" && (p[1] === "nodes" || p[1] === "edges") && kind === "array") return "descend";
    return "assemble";
  }

  /** graph.nodes, graph.edges, order and records: every element is assembled (see `select`). */
  assemblesEach(p: readonly JsonKey[]): boolean {
    if (p.length === 1) return p[0] === "order" || p[0] === "records";
    return p.length === 2 && p[0] === "graph" && (p[1] === "nodes" || p[1] === "edges");
  }

  onEnter(p: readonly JsonKey[]): void {
    if (p.length === 0) this.rootIsObject = true;
    else if (p.length === 1) {
      if (p[0] === "graph") this.graphIsObject = true;
      else if (p[0] === "order") this.seen.order = true;
      else if (p[0] === "records") this.seen.records = true;
    } else if (p.length === 2 && p[0] === "graph") {
      if (p[1] === "nodes") this.seen.nodes = true;
      else if (p[1] === "edges") this.seen.edges = true;
    }
  }

  onValue(p: readonly JsonKey[], v: unknown): void {
    const n = p.length;
    if (n === 0) {
      this.rootNotObject = v;
      return;
    }
    const top = p[0];
    if (n === 1) {
      setMember(this.header, top as string, v);
      return;
    }
    if (top === "graph") {
      if (n === 2) setMember(this.graphRest, p[1] as string, v);
      else if (p[1] === "nodes") this.onNode(p[2] as number, v);
      else this.onEdge(p[2] as number, v);
      return;
    }
    if (top === "order") this.onOrder(p[1] as number, v);
    else this.onRecord(p[1] as number, v);
  }

  /** The element's schema: the fast acceptance check (./schema-fast.ts), else zod, which words the issues. */
  private zod(base: string, schema: z.ZodType, v: unknown, extra: Partial<ValidationIssue>, accepts: (v: unknown) => boolean): boolean {
    if (accepts(v)) return true;
    const r = schema.safeParse(v);
    if (r.success) return true;
    for (const i of r.error.issues) this.issue({ path: base + formatJsonPath(i.path).slice(1), message: i.message, rule: "schema", ...extra });
    return false;
  }

  private tooDeep(v: unknown, base: string, baseDepth: number, extra: Partial<ValidationIssue>): boolean {
    if (!exceedsDepth(v, MAX_JSON_DEPTH, baseDepth)) return false;
    const hits = findTooDeep(v, MAX_JSON_DEPTH, { basePath: base, baseDepth, maxHits: 20 });
    for (const h of hits) {
      this.issue(issues.tooDeep(h.path, extra));
    }
    return hits.length > 0;
  }

  private onNode(i: number, v: unknown): void {
    this.nodeCount = i + 1;
    const base = `$.graph.nodes[${i}]`;
    const nodeId = isRec(v) && typeof v.id === "string" ? v.id : undefined;
    if (this.tooDeep(v, base, 3, nodeId ? { nodeId } : {})) return;
    const schemaOk = this.zod(base, bundleNodeSchema, v, {}, isPlainValidNode);
    if (!isRec(v)) return;
    let k = -1;
    if (typeof v.id === "string") {
      k = this.intern(v.id);
      const first = this.nodeIdx.get(k);
      if (first >= 0) {
        this.issue(issues.duplicateNodeId(i, v.id, first));
        k = -1;
      } else {
        this.nodeIdx.set(k, i);
        this.nodeType = this.grow8(this.nodeType, k);
        this.nodeType[k] = NODE_TYPE_CODE[v.type as string] ?? 0;
      }
    }
    let contentText: string | null = null;
    let contentJson: string | undefined;
    if (typeof v.contentHash === "string" && "content" in v) {
      try {
        const t = canonicalAndJsonOfParsed(v.content);
        contentText = t.canonical;
        contentJson = t.json;
      } catch (e) {
        this.issue(issues.contentNotCanonical(i, nodeId, e));
      }
      if (contentText !== null) {
        const actual = sha256Tagged(contentText);
        if (actual !== v.contentHash) {
          this.issue(issues.contentHashMismatch(i, nodeId, v.id, v.contentHash, actual));
        }
      }
    }
    if (typeof v.agent === "string" && v.agent) this.agents.add(v.agent);
    if (k >= 0 && typeof v.agent === "string") {
      let a = this.agentCode.get(v.agent);
      if (a === undefined) {
        a = this.agentNames.length;
        this.agentNames.push(v.agent);
        this.agentCode.set(v.agent, a);
      }
      this.nodeAgent.set(k, a);
    }
    if (this.failed || !schemaOk || k < 0) return;
    try {
      this.spools.nodes.add(canonicalWith(v, { content: contentText ?? undefined }));
    } catch (e) {
      this.issue({ path: base, rule: "schema", nodeId, message: `node cannot be canonicalized: ${(e as Error).message}` });
      return;
    }
    let orderIndex = this.pos.get(k);
    if (orderIndex < 0) {
      orderIndex = i;
      this.provisional = this.grow8(this.provisional, k);
      this.provisional[k] = 1;
    }
    this.sink.node(v, i, orderIndex, { content: contentJson });
  }

  private onEdge(i: number, v: unknown): void {
    this.edgeCount = i + 1;
    const base = `$.graph.edges[${i}]`;
    if (this.tooDeep(v, base, 3, {})) return;
    const schemaOk = this.zod(base, bundleEdgeSchema, v, {}, isPlainValidEdge);
    if (!isRec(v)) return;
    if (typeof v.from === "string") this.edgeFrom.set(i, this.intern(v.from));
    if (typeof v.to === "string") this.edgeTo.set(i, this.intern(v.to));
    if (this.failed || !schemaOk) return;
    try {
      this.spools.edges.add(canonicalJsonOfParsed(v));
    } catch (e) {
      this.issue({ path: base, rule: "schema", message: `edge cannot be canonicalized: ${(e as Error).message}` });
      return;
    }
    this.sink.edge(v, i);
  }

  private onOrder(i: number, v: unknown): void {
    this.orderCount = i + 1;
    if (typeof v !== "string") {
      this.issue(issues.orderNotString(i));
      return;
    }
    const k = this.intern(v);
    const first = this.pos.get(k);
    if (first >= 0) {
      this.issue(issues.orderDuplicate(i, v, first));
      return;
    }
    this.pos.set(k, i);
    try {
      this.spools.order.add(canonicalJsonOfParsed(v));
    } catch (e) {
      this.issue({ path: `$.order[${i}]`, rule: "order-complete", nodeId: v, message: `order entry cannot be canonicalized: ${(e as Error).message}` });
    }
  }

  private onRecord(i: number, v: unknown): void {
    this.recordCount = i + 1;
    const base = `$.records[${i}]`;
    if (this.tooDeep(v, base, 2, { seq: i })) return;
    const schemaOk = this.zod(base, boundaryRecordSchema, v, {}, isPlainValidRecord);
    if (!isRec(v)) return;
    if (typeof v.seq === "number" && v.seq !== i) {
      this.issue(issues.recordSeq(i, v.seq));
    }
    const nodeId = typeof v.nodeId === "string" ? v.nodeId : undefined;
    if (nodeId !== undefined) this.recNode.set(i, this.intern(nodeId));
    this.recBoundary = this.grow8(this.recBoundary, i);
    this.recBoundary[i] = v.boundary === "llm" ? 1 : v.boundary === "tool" ? 2 : 0;
    let requestText: string | null = null;
    let requestJson: string | undefined;
    if (typeof v.requestHash === "string" && "request" in v) {
      try {
        const t = canonicalAndJsonOfParsed(v.request);
        requestText = t.canonical;
        requestJson = t.json;
      } catch (e) {
        this.issue(issues.requestNotCanonical(i, e));
      }
      if (requestText !== null) {
        const actual = sha256Tagged(requestText);
        if (actual !== v.requestHash) {
          this.issue(issues.requestHashMismatch(i, nodeId, v.requestHash, actual));
        }
      }
    }
    if (this.failed || !schemaOk) return;
    const response = memberTexts(v, "response");
    const meta = memberTexts(v, "meta");
    try {
      this.spools.records.add(canonicalWith(v, { request: requestText ?? undefined, response: response?.canonical, meta: meta?.canonical }));
    } catch (e) {
      this.issue({ path: base, rule: "schema", seq: i, message: `record cannot be canonicalized: ${(e as Error).message}` });
      return;
    }
    this.sink.record(v, i, { request: requestJson, response: response?.json, meta: meta?.json });
  }

  finish(bytes: number): BundleStreamResult {
    // The header: every rule validateBundle applies outside the four big arrays (format, schema
    // of task/config/..., nesting), on the bundle with those arrays empty.
    const probe: Rec = this.rootIsObject ? { ...this.header } : (this.rootNotObject as Rec);
    if (this.rootIsObject) {
      if (this.graphIsObject) probe.graph = { ...this.graphRest, ...(this.seen.nodes ? { nodes: [] } : {}), ...(this.seen.edges ? { edges: [] } : {}) };
      if (this.seen.order) probe.order = [];
      if (this.seen.records) probe.records = [];
    }
    const head = validateBundle(probe);
    if (!head.ok) for (const i of head.issues) this.issue(i);

    this.semanticChecks();

    const header: Rec = { ...this.header };
    delete header.order;
    delete header.records;
    header.graph = { ...this.graphRest };
    const ok = !this.failed;
    const bundleHash = ok ? this.hash() : null;
    const nodeIdx = this.nodeIdx;
    const pos = this.pos;
    const provisional = this.provisional;
    const idText = this.idText;
    return {
      ok,
      lanes: ok ? this.lanes() : [],
      issues: this.issues,
      moreIssues: this.more,
      header,
      bundleHash,
      counts: { nodes: this.nodeCount, edges: this.edgeCount, records: this.recordCount, agents: this.agents.size, bytes },
      orderFixes: function* () {
        for (let k = 0; k < idText.length; k++) {
          if (k < provisional.length && provisional[k] === 1 && nodeIdx.get(k) !== pos.get(k)) yield [idText[k], pos.get(k)] as [string, number];
        }
      },
    };
  }

  /** Agents by first position in the observed order. */
  private lanes(): Array<string | null> {
    const first = new Map<number, number>();
    for (let k = 0; k < this.idText.length; k++) {
      const p = this.pos.get(k);
      if (p < 0 || this.nodeIdx.get(k) < 0) continue;
      const a = this.nodeAgent.get(k);
      const f = first.get(a);
      if (f === undefined || p < f) first.set(a, p);
    }
    return [...first.entries()].sort((x, y) => x[1] - y[1]).map(([a]) => this.agentNames[a]);
  }

  private semanticChecks(): void {
    const ids = this.idText;
    // Rule 1: edge endpoints.
    let endpointsOk = true;
    for (let i = 0; i < this.edgeCount; i++) {
      for (const [end, list] of [["from", this.edgeFrom], ["to", this.edgeTo]] as const) {
        const k = list.get(i);
        if (k >= 0 && this.nodeIdx.get(k) < 0) {
          endpointsOk = false;
          this.issue(issues.edgeEndpoint(i, end, ids[k]));
        }
      }
    }
    // Rule 3: order is a permutation of the node ids.
    let orderComplete = true;
    for (let k = 0; k < ids.length; k++) {
      const p = this.pos.get(k);
      const ni = this.nodeIdx.get(k);
      if (p >= 0 && ni < 0) {
        orderComplete = false;
        this.issue(issues.orderUnknownNode(p, ids[k]));
      } else if (ni >= 0 && p < 0) {
        orderComplete = false;
        this.issue(issues.orderMissingNode(ni, ids[k]));
      }
    }
    // Rule 3: linear extension (which, with a complete order, also proves rule 2: G is acyclic).
    let linear = true;
    for (let i = 0; i < this.edgeCount; i++) {
      const f = this.edgeFrom.get(i);
      const t = this.edgeTo.get(i);
      if (f < 0 || t < 0) continue;
      const pf = this.pos.get(f);
      const pt = this.pos.get(t);
      if (this.nodeIdx.get(f) < 0 || this.nodeIdx.get(t) < 0) continue;
      if (pf >= 0 && pt >= 0 && !(pf < pt)) {
        linear = false;
        this.issue(issues.notLinearExtension(i, ids[f], ids[t], pf, pt));
      }
    }
    // Rule 2: acyclic. Only searched when the order does not already prove it.
    if (!(linear && orderComplete && endpointsOk)) {
      const nodeIds: string[] = [];
      for (let k = 0; k < ids.length; k++) if (this.nodeIdx.get(k) >= 0) nodeIds.push(ids[k]);
      const good: Array<{ from: string; to: string; i: number }> = [];
      for (let i = 0; i < this.edgeCount; i++) {
        const f = this.edgeFrom.get(i);
        const t = this.edgeTo.get(i);
        if (f >= 0 && t >= 0 && this.nodeIdx.get(f) >= 0 && this.nodeIdx.get(t) >= 0) good.push({ from: ids[f], to: ids[t], i });
      }
      const cycle = findCycle(nodeIds, good);
      if (cycle) this.issue(issues.cycle(cycle));
    }
    // Rules 4 and 6: records sit on known nodes, in order, on nodes of the right type.
    let lastPos = -1;
    let lastSeqWithPos = -1;
    for (let i = 0; i < this.recordCount; i++) {
      const k = this.recNode.get(i);
      if (k < 0) continue;
      const nodeId = ids[k];
      if (this.nodeIdx.get(k) < 0) {
        this.issue(issues.recordNode(i, nodeId));
        continue;
      }
      const p = this.pos.get(k);
      if (p >= 0) {
        if (p <= lastPos) {
          this.issue(issues.recordOrder(i, nodeId, p, lastSeqWithPos, lastPos));
        }
        lastPos = Math.max(lastPos, p);
        lastSeqWithPos = i;
      }
      const b = this.recBoundary[i];
      const t = TYPE_NAME[this.nodeType[k]];
      const boundary = b === 1 ? "llm" : b === 2 ? "tool" : null;
      const allowed = allowedNodeTypes(boundary);
      if (boundary && allowed && t && !allowed.includes(t)) this.issue(issues.recordBoundaryType(i, nodeId, boundary, allowed, t));
    }
  }

  /** sha256(JCS(bundle)): the header's members canonicalized here, the four arrays from their spools. */
  private hash(): string {
    const h = createHash("sha256");
    const top: Rec = { ...this.header, graph: null, order: null, records: null };
    const graph: Rec = { ...this.graphRest, nodes: null, edges: null };
    const array = (s: Spool) => {
      h.update("[");
      s.hashInto(h);
      h.update("]");
    };
    const object = (o: Rec, special: Record<string, () => void>) => {
      h.update("{");
      let first = true;
      for (const k of Object.keys(o).sort()) {
        const v = o[k];
        if (v === undefined && !(k in special)) continue;
        if (!first) h.update(",");
        first = false;
        h.update(canonicalJson(k) + ":", "utf8");
        if (k in special) special[k]();
        else h.update(canonicalJson(v), "utf8");
      }
      h.update("}");
    };
    object(top, {
      graph: () => object(graph, { nodes: () => array(this.spools.nodes), edges: () => array(this.spools.edges) }),
      order: () => array(this.spools.order),
      records: () => array(this.spools.records),
    });
    return "sha256:" + h.digest("hex");
  }
}

function setMember(o: Rec, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
