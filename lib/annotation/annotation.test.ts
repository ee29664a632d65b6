import { describe, expect, test } from "vitest";
import { canSeeOthersWork, formatCategories, parseRoles, quoteOccursIn, relateFinal, tupleKey, validateDraft, validateForSubmit, type AnnotationFields, type StrictTuple } from "./index";

const graph = {
  nodeType: (id: string) => ({ n1: "tool_result", n2: "agent_action", n3: "final_result" })[id],
  nodeContent: (id: string) => ({ n1: { text: "Stephen King was born\n  in Portland, Maine", code: 200 } })[id],
};
const ok: AnnotationFields = { categories: ["C2"], primary: "C2", nodeId: "n1", nodeType: "tool_result", confidence: "high", rationale: "r", evidence: [{ nodeId: "n1", quote: "born in Portland" }] };

describe("validateForSubmit (annotation-protocol.md, One annotation)", () => {
  test("a complete annotation passes", () => expect(validateForSubmit(ok, graph)).toEqual([]));
  test.each([
    ["empty set", { categories: [], primary: null }, ["categories", "primary"]],
    ["primary not in the set", { categories: ["C1"], primary: "C2" }, ["primary"]],
    ["node not in the graph", { nodeId: "zz" }, ["nodeId"]],
    ["node type mismatch", { nodeType: "agent_action" }, ["nodeType"]],
    ["no confidence", { confidence: null }, ["confidence"]],
    ["no rationale", { rationale: "  " }, ["rationale"]],
    ["quote not in the node", { evidence: [{ nodeId: "n1", quote: "Bangor" }] }, ["evidence[0].quote"]],
    ["evidence node not in the graph", { evidence: [{ nodeId: "zz", quote: "x" }] }, ["evidence[0].nodeId"]],
    ["a quote with the key name", { evidence: [{ nodeId: "n1", quote: 'text: "Stephen King' }] }, ["evidence[0].quote"]],
    ["the same quote twice on a node", { evidence: [{ nodeId: "n1", quote: "born in Portland" }, { nodeId: "n1", quote: "born  in\u00a0Portland" }] }, ["evidence[1].quote"]],
  ] as const)("%s", (_n, patch, fields) => {
    const errs = validateForSubmit({ ...ok, ...(patch as Partial<AnnotationFields>) }, graph);
    expect(errs.map((e) => e.field)).toEqual(fields);
    for (const e of errs) expect(e.message.length).toBeGreaterThan(10);
  });
  test("drafts only check what is already wrong", () => {
    expect(validateDraft({ ...ok, categories: [], confidence: null }, graph)).toEqual([]);
    expect(validateDraft({ ...ok, nodeId: "zz" }, graph).map((e) => e.field)).toEqual(["nodeId"]);
  });
});

describe("quoteOccursIn", () => {
  test.each([
    ["born in Portland", true], // whitespace folded (a browser selection loses line breaks)
    ["Stephen King was born", true],
    ["200", true],
    ["Portland, Oregon", false],
    ["Portland,\u00a0Maine", true], // NBSP = space
    ["Stephen King was born\r\n in", true], // CRLF = LF = a space
    ["   ", false],
  ])("%s -> %s", (q, expected) => expect(quoteOccursIn(graph.nodeContent("n1"), q)).toBe(expected));
});

describe("relateFinal (Table 5)", () => {
  const t = (cats: string[], primary: string, node = "n1"): StrictTuple => ({ categories: cats as StrictTuple["categories"], primary: primary as StrictTuple["primary"], nodeId: node, nodeType: "tool_result" });
  test.each([
    ["unanimous kept", [t(["C2"], "C2"), t(["C2"], "C2"), t(["C2"], "C2")], t(["C2"], "C2"), { pattern: "unanimous", kept: "kept_unanimous", supportedBy: 3 }],
    ["majority kept", [t(["C2"], "C2"), t(["C2"], "C2"), t(["C3"], "C3")], t(["C2"], "C2"), { pattern: "split_2_1", kept: "kept_majority", supportedBy: 2 }],
    ["minority kept", [t(["C2"], "C2"), t(["C2"], "C2"), t(["C3"], "C3")], t(["C3"], "C3"), { pattern: "split_2_1", kept: "kept_minority", supportedBy: 1 }],
    ["new tuple", [t(["C1"], "C1"), t(["C2"], "C2"), t(["C3"], "C3")], t(["C4"], "C4"), { pattern: "all_distinct", kept: "new_tuple", supportedBy: 0 }],
    ["one proposed kept (all distinct)", [t(["C1"], "C1"), t(["C2"], "C2"), t(["C3"], "C3")], t(["C2"], "C2"), { pattern: "all_distinct", kept: "kept_proposed", supportedBy: 1 }],
  ] as const)("%s", (_n, initials, final, expected) => expect(relateFinal([...initials], final)).toMatchObject(expected));
  test("categories added and removed against the union", () => {
    const r = relateFinal([t(["C1", "C2"], "C1"), t(["C2"], "C2"), t(["C2"], "C2")], t(["C2", "C4"], "C2"));
    expect(r).toMatchObject({ added: ["C4"], removed: ["C1"], setEqualsUnion: false });
  });
  test("tuple keys ignore category order", () => expect(tupleKey(t(["C3", "C1"], "C1"))).toBe(tupleKey(t(["C1", "C3"], "C1"))));
});

describe("blindness (canSeeOthersWork)", () => {
  test.each([
    [["annotator"], { isAssignedAnnotator: true, hasSubmittedInitial: false, isAssignedAdjudicator: false }, false],
    [["annotator"], { isAssignedAnnotator: true, hasSubmittedInitial: true, isAssignedAdjudicator: false }, true],
    [["annotator"], { isAssignedAnnotator: false, hasSubmittedInitial: false, isAssignedAdjudicator: false }, false],
    [["researcher", "annotator"], { isAssignedAnnotator: true, hasSubmittedInitial: false, isAssignedAdjudicator: false }, false],
    [["researcher"], { isAssignedAnnotator: false, hasSubmittedInitial: false, isAssignedAdjudicator: false }, true],
    [["adjudicator"], { isAssignedAnnotator: false, hasSubmittedInitial: false, isAssignedAdjudicator: true }, true],
  ] as const)("%j %j -> %s", (roles, state, expected) => expect(canSeeOthersWork({ id: "v", roles: [...roles] }, state)).toBe(expected));
  test("roles and category sets parse to their canonical forms", () => {
    expect(parseRoles("annotator, admin,bogus")).toEqual(["annotator", "admin"]);
    expect(formatCategories(["C3", "C1", "C3"])).toBe("C1,C3");
  });
});

describe("guidanceFromAnnotation (repair signals, Table 1)", () => {
  test("primary first, each category's repair signal, the node and the rationale", async () => {
    const { guidanceFromAnnotation, CATEGORY_INFO } = await import("./index");
    const g = guidanceFromAnnotation({ categories: ["C2", "C3"], primary: "C3", nodeId: "tool_result_0002", nodeType: "tool_result", rationale: "the query returned nothing" }, "tool_result_0002");
    const lines = g.split("\n");
    expect(lines[1]).toBe("Observed: the query returned nothing");
    expect(lines[2]).toBe(`- Unresolved runtime condition (C3) at tool_result_0002 (tool_result): ${CATEGORY_INFO.C3.repair}`);
    expect(lines[3]).toContain(CATEGORY_INFO.C2.repair);
  });
  test("a proposed correction leads the guidance at the annotated node, and is left out elsewhere", async () => {
    const { guidanceFromAnnotation } = await import("./index");
    const a = { categories: ["C1" as const], primary: "C1" as const, nodeId: "final_result", nodeType: "final_result", rationale: "returns a browse action", correction: "Answer: Potash Markets - Clark Street" };
    const g = guidanceFromAnnotation(a, "final_result").split("\n");
    expect(g[2]).toBe("Proposed correction at final_result: instead of the original step, do this:");
    expect(g[3]).toBe("Answer: Potash Markets - Clark Street");
    expect(g[4]).toMatch(/^- Task-constraint violation \(C1\) at final_result/);
    expect(guidanceFromAnnotation(a, "tool_result_0001")).not.toContain("Potash");
    expect(guidanceFromAnnotation({ ...a, correction: "  " }, "final_result")).not.toContain("Proposed correction");
  });
  test("without an annotation: a generic prompt naming the node", async () => {
    const { guidanceFromAnnotation } = await import("./index");
    expect(guidanceFromAnnotation(null, "n7")).toMatch(/continuing from n7/);
  });
});
