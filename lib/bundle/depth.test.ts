/**
 * Deep structures (issue 10 item 8): content nested 10,000 levels must be rejected with its JSON
 * path and the limit — never "Maximum call stack size exceeded" — and a moderately deep bundle
 * must serialize to a file whose size is proportional to its compact JSON.
 */
import { describe, expect, test } from "vitest";
import {
  buildBundle,
  BundleValidationError,
  MAX_JSON_DEPTH,
  checkJsonDepth,
  serializeBundle,
  syntheticBundle,
  validateBundle,
  parseJsonText,
} from "./index";
import { exceedsDepth, findTooDeep } from "./depth";

/** `{"a":{"a":…{"a":leaf}}}` nested `depth` objects deep, built without recursion. */
export function nestedObject(depth: number, leaf: unknown = "x"): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** A small valid bundle whose first node's content is replaced (hashes left stale or recomputed). */
function bundleWithContent(content: unknown) {
  const b = syntheticBundle({ id: "deep-test", turns: 1 });
  return { ...b, graph: { ...b.graph, nodes: b.graph.nodes.map((n, i) => (i === 0 ? { ...n, content } : n)) } };
}

describe("depth check", () => {
  test("checkJsonDepth finds the first value nested deeper than the limit, iteratively", () => {
    expect(checkJsonDepth(nestedObject(5), 10)).toBeNull();
    const hit = checkJsonDepth({ x: [nestedObject(20)] }, 10);
    expect(hit).not.toBeNull();
    // $ (depth 0) -> x (1) -> [0] (2) -> .a ×9 reaches depth 11, the first value past 10 levels
    expect(hit!.path).toBe("$.x[0]" + ".a".repeat(9));
    expect(hit!.depth).toBe(11);
    expect(checkJsonDepth(nestedObject(200_000), 512)!.depth).toBe(513);
  });

  test("a 10,000-deep node content: validate reports the path and the limit, no stack overflow", () => {
    const b = bundleWithContent(nestedObject(10_000));
    const res = validateBundle(b);
    expect(res.ok).toBe(false);
    const deep = res.issues.filter((i) => i.rule === "depth");
    expect(deep).toHaveLength(1);
    expect(deep[0].path.startsWith("$.graph.nodes[0].content.a.a")).toBe(true);
    expect(deep[0].message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(deep[0].nodeId).toBe(b.graph.nodes[0].id);
    expect(JSON.stringify(res.issues)).not.toMatch(/call stack/i);
  });

  test("the same bundle as file text parses and validates without a crash", () => {
    // built as text: JSON.stringify itself overflows on 10,000 levels
    const text = JSON.stringify(bundleWithContent("DEEP")).replace('"DEEP"', '{"a":'.repeat(10_000) + '"x"' + "}".repeat(10_000));
    expect(text.length).toBeGreaterThan(60_000);
    const res = validateBundle(parseJsonText(text));
    expect(res.ok).toBe(false);
    expect(res.issues.some((i) => i.rule === "depth")).toBe(true);
  });

  test("buildBundle rejects 10,000-deep content with a BundleValidationError naming the path", () => {
    const b = syntheticBundle({ id: "deep-build", turns: 1 });
    const draft = {
      id: "deep-build",
      task: b.task,
      config: b.config,
      nodes: b.graph.nodes.map((n, i) => ({ ...n, content: i === 1 ? nestedObject(10_000) : n.content })),
      edges: b.graph.edges,
      records: b.records.map((r) => ({ nodeId: r.nodeId, boundary: r.boundary, request: r.request, response: r.response })),
    };
    let err: unknown;
    try {
      buildBundle(draft);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BundleValidationError);
    const issue = (err as BundleValidationError).issues[0];
    expect(issue.rule).toBe("depth");
    expect(issue.path.startsWith("$.graph.nodes[1].content.a")).toBe(true);
  });

  test(`content exactly at the limit is accepted`, () => {
    // the content object sits at level 4 ($.graph.nodes[0].content): MAX_JSON_DEPTH - 3 nested objects end exactly at the limit
    const b = syntheticBundle({ id: "deep-ok", turns: 1 });
    const draft = {
      id: "deep-ok",
      task: b.task,
      config: b.config,
      nodes: b.graph.nodes.map((n, i) => ({ ...n, content: i === 0 ? nestedObject(MAX_JSON_DEPTH - 3, 1) : n.content })),
      edges: b.graph.edges,
    };
    const built = buildBundle(draft);
    expect(validateBundle(JSON.parse(JSON.stringify(built))).ok).toBe(true);
    // one level more is rejected
    const over = { ...draft, nodes: draft.nodes.map((n, i) => (i === 0 ? { ...n, content: nestedObject(MAX_JSON_DEPTH - 2, 1) } : n)) };
    expect(() => buildBundle(over)).toThrow(/nested deeper than 512 levels/);
  });
});

describe("export size stays proportional to the input", () => {
  test("a bundle with 400-deep content serializes within 3x its compact JSON", () => {
    const b = syntheticBundle({ id: "deep-export", turns: 2 });
    const draft = {
      id: "deep-export",
      task: b.task,
      config: b.config,
      nodes: b.graph.nodes.map((n, i) => ({ ...n, content: i === 0 ? nestedObject(400, "leaf") : n.content })),
      edges: b.graph.edges,
    };
    const built = buildBundle(draft);
    const compact = JSON.stringify(built).length;
    const file = serializeBundle(built);
    expect(file.length).toBeLessThan(3 * compact);
    // still the same JSON value, and readable at the top (one key per line)
    expect(JSON.parse(file)).toEqual(built);
    expect(file.startsWith('{\n  "format": "symtrace.bundle/v1",\n')).toBe(true);
  });
});

describe("exceedsDepth: findTooDeep's yes or no", () => {
  test("equal answers on chains around the limit, mixed nesting and base depths", () => {
    const chain = (n: number, arr: boolean): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = arr ? [v] : { a: v, __proto__x: null };
      return v;
    };
    const cases: unknown[] = [null, 1, "s", [], {}];
    for (const n of [0, 1, 5, 6, 7, 8, 20]) cases.push(chain(n, true), chain(n, false), { k: [1, { z: chain(n, n % 2 === 0) }] });
    cases.push(JSON.parse('{"__proto__": [[[[[[[1]]]]]]]}'));
    let yes = 0;
    for (const v of cases) {
      for (const base of [0, 2, 3]) {
        const want = findTooDeep(v, 6, { baseDepth: base }).length > 0;
        expect(exceedsDepth(v, 6, base)).toBe(want);
        if (want) yes++;
      }
    }
    expect(yes).toBeGreaterThan(10);
    expect(exceedsDepth(chain(600, true), MAX_JSON_DEPTH, 3)).toBe(true);
    expect(exceedsDepth(chain(500, false), MAX_JSON_DEPTH, 3)).toBe(false);
  });
});
