/**
 * The fast acceptance checks (./schema-fast.ts) against the zod schemas: accepted only when zod
 * accepts (on valid elements and on every field replaced by values of other kinds), and valid
 * elements as bundles have them are accepted (so the fast path is the one taken).
 */
import { describe, expect, test } from "vitest";
import { boundaryRecordSchema, bundleEdgeSchema, bundleNodeSchema } from "./schema";
import { isPlainValidEdge, isPlainValidNode, isPlainValidRecord } from "./schema-fast";
import { syntheticBundle } from "./synthetic";

const H = "sha256:" + "ab".repeat(32);
const ODD: unknown[] = [undefined, null, "", "x", "llm", "data", "success", "message", H, H.toUpperCase(), "sha256:12", 0, -1, 1.5, 2 ** 53, -0, true, [], ["x"], {}, { type: 1 }, { type: "t", message: "m" }, Object.create(null)];

function check(name: string, fast: (v: unknown) => boolean, schema: { safeParse(v: unknown): { success: boolean } }, valid: Record<string, unknown>[]) {
  test(`${name}: accepted only when zod accepts; the valid ones accepted`, () => {
    let accepted = 0;
    let tried = 0;
    for (const base of valid) {
      expect(fast(base)).toBe(true);
      expect(schema.safeParse(base).success).toBe(true);
      const keys = [...new Set([...Object.keys(base), "status", "error", "meta", "agent", "label", "response"])];
      for (const k of keys) {
        for (const x of ODD) {
          const v: Record<string, unknown> = { ...base };
          if (x === undefined) delete v[k];
          else v[k] = x;
          tried++;
          if (fast(v)) {
            accepted++;
            expect(schema.safeParse(v).success, `${name}.${k} = ${JSON.stringify(x)}`).toBe(true);
          }
        }
      }
    }
    for (const x of ODD) if (fast(x)) expect(schema.safeParse(x).success).toBe(true);
    expect(tried).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(10);
  });
}

describe("schema-fast", () => {
  const b = syntheticBundle({ id: "fast", turns: 6, seed: 5 });
  const nodes = b.graph.nodes.map((n) => JSON.parse(JSON.stringify(n)) as Record<string, unknown>);
  nodes.push({ id: "e", type: "tool_result", content: null, contentHash: H, status: "error", error: { type: "Timeout", message: "late", extra: 1 }, extra: [1] });
  const records = b.records.map((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>);
  records.push({ seq: 0, nodeId: "n", boundary: "tool", request: 0, requestHash: H, response: null, meta: null });
  check("node", isPlainValidNode, bundleNodeSchema, nodes);
  check("edge", isPlainValidEdge, bundleEdgeSchema, b.graph.edges.map((e) => ({ ...e })));
  check("record", isPlainValidRecord, boundaryRecordSchema, records);
});
