/**
 * Full validation of a replay bundle in memory against the bundle spec v1 §Validation; the issues
 * themselves (rule, path, wording) are rules.ts's, shared with the streamed validator (stream.ts).
 *
 * Every violation is reported (never stop at the first), each with a JSON path
 * (`$.graph.edges[3].to`) and, where one is involved, the node id or record seq.
 * Rules (spec numbering):
 *  1. format; unique node ids; edge endpoints are node ids
 *  2. G is acyclic
 *  3. order holds every node exactly once and is a linear extension of G (seeds/000 eq. 4–5)
 *  4. records[i].seq == i; record nodeIds exist; record positions in order strictly increase
 *  5. contentHash / requestHash equal the recomputed hashes
 *  6. llm records sit on llm_call/agent_action nodes, tool records on tool_call/tool_result
 */
import type { z } from "zod";
import { BUNDLE_FORMAT, bundleSchema, type ReplayBundle } from "./schema";
import { hashContent, hashRequest } from "./hash";
import { findTooDeep, MAX_JSON_DEPTH } from "./depth";
import { allowedNodeTypes, issues, type ValidationIssue } from "./rules";

export type { ValidationIssue, ValidationRule } from "./rules";

export type ValidationResult =
  | { ok: true; bundle: ReplayBundle; issues: [] }
  | { ok: false; bundle: null; issues: ValidationIssue[] };

/** Format a path array as `$.a.b[3].c`. */
export function formatJsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "$";
  for (const k of path) {
    if (typeof k === "number") out += `[${k}]`;
    else if (typeof k === "string" && /^[A-Za-z_$][\w$]*$/.test(k)) out += `.${k}`;
    else out += `[${JSON.stringify(String(k))}]`;
  }
  return out;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({
    path: formatJsonPath(i.path),
    message: i.message,
    rule: "schema" as const,
  }));
}

/**
 * Validate any parsed JSON value as a replay bundle.
 * @param input the parsed JSON (unknown shape)
 * @returns `{ok:true, bundle}` with unknown keys preserved, or `{ok:false, issues}` listing every
 *   violation found: schema violations (from zod) and all semantic rules 1–6 on whatever parts
 *   of the graph, order and records are readable.
 */
export function validateBundle(input: unknown): ValidationResult {
  // Rule 0 (README §Nesting limit): nesting. Checked first and alone, iteratively: the later rules hash
  // and walk content recursively, which is only safe within the limit.
  const deep = depthIssues(input);
  if (deep.length > 0) return { ok: false, bundle: null, issues: deep };
  const issues: ValidationIssue[] = [];
  const parsed = bundleSchema.safeParse(input);
  const badFormat = isRec(input) && input.format !== BUNDLE_FORMAT;
  if (badFormat) {
    // Rule 1 (format) is reported under its own rule, not as zod's generic literal mismatch.
    issues.push({
      path: "$.format",
      rule: "format",
      message: `format is ${JSON.stringify(input.format) ?? "missing"}, expected "${BUNDLE_FORMAT}"`,
    });
  }
  if (!parsed.success) issues.push(...zodIssues(parsed.error).filter((i) => !(badFormat && i.path === "$.format")));
  if (isRec(input)) issues.push(...semanticIssues(input));
  else if (parsed.success === false && issues.length === 0)
    issues.push({ path: "$", message: "bundle must be a JSON object", rule: "schema" });

  if (issues.length === 0 && parsed.success) return { ok: true, bundle: parsed.data, issues: [] };
  return { ok: false, bundle: null, issues: dedupe(issues) };
}

/**
 * Issues of rule `depth`: every object/array nested deeper than MAX_JSON_DEPTH below the top
 * level (up to 20 places), each with its JSON path and node id or record seq. Iterative.
 */
export function depthIssues(input: unknown): ValidationIssue[] {
  return findTooDeep(input, MAX_JSON_DEPTH, { maxHits: 20 }).map((h) => {
    const node = /^\$\.graph\.nodes\[(\d+)\]/.exec(h.path);
    const rec = /^\$\.records\[(\d+)\]/.exec(h.path);
    const nodes = isRec(input) && isRec(input.graph) ? arr(input.graph.nodes) : [];
    const n = node ? nodes[Number(node[1])] : undefined;
    return issues.tooDeep(h.path, { ...(isRec(n) && typeof n.id === "string" ? { nodeId: n.id } : {}), ...(rec ? { seq: Number(rec[1]) } : {}) });
  });
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function semanticIssues(b: Rec): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const graph = isRec(b.graph) ? b.graph : {};
  const nodes = arr(graph.nodes);
  const edges = arr(graph.edges);
  const order = arr(b.order);
  const records = arr(b.records);

  // Rule 1: unique node ids.
  const nodeIndex = new Map<string, number>();
  const nodeType = new Map<string, unknown>();
  nodes.forEach((n, i) => {
    if (!isRec(n) || typeof n.id !== "string") return;
    if (nodeIndex.has(n.id)) {
      out.push(issues.duplicateNodeId(i, n.id, nodeIndex.get(n.id)!));
    } else {
      nodeIndex.set(n.id, i);
      nodeType.set(n.id, n.type);
    }
  });

  // Rule 5a: content hashes.
  nodes.forEach((n, i) => {
    if (!isRec(n) || typeof n.contentHash !== "string" || !("content" in n)) return;
    let actual: string;
    try {
      actual = hashContent(n.content);
    } catch (e) {
      out.push(issues.contentNotCanonical(i, typeof n.id === "string" ? n.id : undefined, e));
      return;
    }
    if (actual !== n.contentHash) {
      out.push(issues.contentHashMismatch(i, typeof n.id === "string" ? n.id : undefined, n.id, n.contentHash, actual));
    }
  });

  // Rule 1: edge endpoints.
  const goodEdges: Array<{ from: string; to: string; i: number }> = [];
  edges.forEach((e, i) => {
    if (!isRec(e)) return;
    let ok = true;
    for (const end of ["from", "to"] as const) {
      const id = e[end];
      if (typeof id !== "string") {
        ok = false;
        continue;
      }
      if (!nodeIndex.has(id)) {
        ok = false;
        out.push(issues.edgeEndpoint(i, end, id));
      }
    }
    if (ok) goodEdges.push({ from: e.from as string, to: e.to as string, i });
  });

  // Rule 2: acyclic (Kahn's algorithm; the nodes left over lie on or behind a cycle).
  const cycle = findCycle([...nodeIndex.keys()], goodEdges);
  if (cycle) out.push(issues.cycle(cycle));

  // Rule 3: order is a permutation of node ids and a linear extension of G.
  const position = new Map<string, number>();
  order.forEach((id, i) => {
    if (typeof id !== "string") {
      out.push(issues.orderNotString(i));
      return;
    }
    if (!nodeIndex.has(id)) {
      out.push(issues.orderUnknownNode(i, id));
      return;
    }
    if (position.has(id)) {
      out.push(issues.orderDuplicate(i, id, position.get(id)!));
      return;
    }
    position.set(id, i);
  });
  for (const [id, i] of nodeIndex) {
    if (!position.has(id)) {
      out.push(issues.orderMissingNode(i, id));
    }
  }
  for (const e of goodEdges) {
    const pf = position.get(e.from);
    const pt = position.get(e.to);
    if (pf !== undefined && pt !== undefined && !(pf < pt)) {
      out.push(issues.notLinearExtension(e.i, e.from, e.to, pf, pt));
    }
  }

  // Rules 4, 5b, 6: records.
  let lastPos = -1;
  let lastSeqWithPos = -1;
  records.forEach((r, i) => {
    if (!isRec(r)) return;
    if (typeof r.seq === "number" && r.seq !== i) {
      out.push(issues.recordSeq(i, r.seq));
    }
    const nodeId = r.nodeId;
    if (typeof nodeId === "string") {
      if (!nodeIndex.has(nodeId)) {
        out.push(issues.recordNode(i, nodeId));
      } else {
        const p = position.get(nodeId);
        if (p !== undefined) {
          if (p <= lastPos) {
            out.push(issues.recordOrder(i, nodeId, p, lastSeqWithPos, lastPos));
          }
          lastPos = Math.max(lastPos, p);
          lastSeqWithPos = i;
        }
        const t = nodeType.get(nodeId);
        const allowed = allowedNodeTypes(r.boundary);
        if (allowed && typeof t === "string" && !allowed.includes(t)) out.push(issues.recordBoundaryType(i, nodeId, String(r.boundary), allowed, t));
      }
    }
    if (typeof r.requestHash === "string" && "request" in r) {
      let actual: string | null = null;
      try {
        actual = hashRequest(r.request);
      } catch (e) {
        out.push(issues.requestNotCanonical(i, e));
      }
      if (actual !== null && actual !== r.requestHash) {
        out.push(issues.requestHashMismatch(i, typeof nodeId === "string" ? nodeId : undefined, r.requestHash, actual));
      }
    }
  });
  return out;
}

/**
 * Find one cycle of a directed graph, if any.
 * @returns the cycle's node ids in edge order and one of its edges, or null when acyclic. O(V+E).
 */
export function findCycle(
  nodeIds: string[],
  edges: Array<{ from: string; to: string; i: number }>,
): { nodes: string[]; edge: { from: string; to: string; i: number } } | null {
  const out = new Map<string, Array<{ from: string; to: string; i: number }>>();
  for (const id of nodeIds) out.set(id, []);
  for (const e of edges) out.get(e.from)?.push(e);
  const state = new Map<string, 0 | 1 | 2>(); // 0 new, 1 on stack, 2 done
  for (const root of nodeIds) {
    if (state.get(root)) continue;
    // iterative DFS
    const stack: Array<{ id: string; k: number }> = [{ id: root, k: 0 }];
    const path: string[] = [root];
    const via: Array<{ from: string; to: string; i: number }> = [];
    state.set(root, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const outs = out.get(top.id) ?? [];
      if (top.k >= outs.length) {
        state.set(top.id, 2);
        stack.pop();
        path.pop();
        via.pop();
        continue;
      }
      const e = outs[top.k++];
      const s = state.get(e.to) ?? 0;
      if (s === 1) {
        const start = path.indexOf(e.to);
        return { nodes: path.slice(start), edge: e };
      }
      if (s === 0) {
        state.set(e.to, 1);
        stack.push({ id: e.to, k: 0 });
        path.push(e.to);
        via.push(e);
      }
    }
  }
  return null;
}
