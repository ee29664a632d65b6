import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseJsonText, validateBundle, type ReplayBundle } from "../bundle";
import { resolveTarget } from "../replay/target";
import { detectSymptoms, scanRules } from "./detect";
import { RULES } from "./rules";
import { trace, type N } from "./test-helpers";

const TASK: N = ["task_0000", "message", { role: "user", text: "Find it." }, { agent: "User" }];

/** Rule id → a trace where it fires on `node`, and a near miss where it stays quiet. */
const CASES: Array<{ rule: string; node: string; fire: ReplayBundle; miss: ReplayBundle }> = [
  {
    rule: "C1.placeholder",
    node: "tool_call_0000",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "__SHOPPING__" } }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://shop.test/" } }], ["agent_action_0000", "agent_action", { text: "class A:\n    def __init__(self): pass" }]]),
  },
  {
    rule: "C1.skipped-action",
    node: "agent_action_0000",
    fire: trace([TASK, ["agent_action_0000", "agent_action", { text: "To get the data I would browse to the admin page." }]]),
    miss: trace([TASK, ["agent_action_0000", "agent_action", { text: "I browsed the admin page and read the orders." }]]),
  },
  {
    rule: "C1.unresolved-request",
    node: "final_result",
    fire: trace([TASK, ["final_result", "final_result", { action: "browse", url: "https://w.potash.test/" }]]),
    miss: trace([TASK, ["final_result", "final_result", { answer: "Potash Markets - Clark Street" }]]),
  },
  {
    rule: "C1.format",
    node: "final_result",
    fire: trace([TASK, ["final_result", "final_result", { answer: "about 58 dollars" }]], { prompt: "How much? Return the value as a number only." }),
    miss: trace([TASK, ["final_result", "final_result", { answer: 58.99 }]], { prompt: "How much? Return the value as a number only." }),
  },
  {
    rule: "C1.format",
    node: "final_result",
    fire: trace([TASK, ["final_result", "final_result", { answer: [{ name: "A", cost: 1 }] }]], { prompt: "Return a list of objects with keys name and price only." }),
    miss: trace([TASK, ["final_result", "final_result", { answer: [{ name: "A", price: 1 }] }]], { prompt: "Return a list of objects with keys name and price only." }),
  },
  {
    rule: "C2.repeated-action",
    node: "tool_call_0001",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://a.test/x" } }], ["tool_result_0000", "tool_result", { text: "page A" }], ["tool_call_0001", "tool_call", { tool: "browse", arguments: { url: "https://a.test/x" } }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://a.test/x" } }], ["tool_result_0000", "tool_result", { text: "page A" }], ["tool_call_0001", "tool_call", { tool: "browse", arguments: { url: "https://a.test/y" } }]]),
  },
  {
    rule: "C2.repeated-url",
    node: "tool_call_0001",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://a.test/x" } }], ["tool_call_0001", "tool_call", { tool: "api_query", arguments: { url: "https://A.test/x/", prop: "coordinates" } }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://a.test/x" } }], ["tool_call_0001", "tool_call", { tool: "api_query", arguments: { url: "https://a.test/w/api.php", prop: "coordinates" } }]]),
  },
  {
    rule: "C2.no-new-evidence",
    node: "tool_result_0001",
    fire: trace([TASK, ["tool_result_0000", "tool_result", { status: "success", text: "Stephen King was born in Portland, Maine", id: "r1" }], ["tool_result_0001", "tool_result", { status: "success", text: "Stephen King was born in Portland, Maine", id: "r2" }]]),
    miss: trace([TASK, ["tool_result_0000", "tool_result", { status: "success", text: "Stephen King was born in Portland, Maine" }], ["tool_result_0001", "tool_result", { status: "success", text: "Bangor is 130 miles from Acadia National Park" }]]),
  },
  {
    rule: "C2.final-without-progress",
    node: "agent_action_0001",
    fire: trace([TASK, ["agent_action_0000", "agent_action", { text: "Final answer: 5" }], ["agent_action_0001", "agent_action", { text: "Final answer: 6" }]]),
    miss: trace([TASK, ["agent_action_0000", "agent_action", { text: "Final answer: 5" }], ["tool_call_0000", "tool_call", { tool: "search", arguments: { q: "x" } }], ["tool_result_0000", "tool_result", { text: "x is 6" }], ["agent_action_0001", "agent_action", { text: "Final answer: 6" }]]),
  },
  {
    rule: "C3.node-error",
    node: "tool_call_0000",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "search", arguments: { q: "x" } }, { error: { type: "Timeout", message: "read timed out" } }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "search", arguments: { q: "x" } }, { error: null }]]),
  },
  {
    rule: "C3.tool-error",
    node: "tool_result_0000",
    fire: trace([TASK, ["tool_result_0000", "tool_result", { error: { type: "MissingSchema", message: "Invalid URL" } }]]),
    miss: trace([TASK, ["tool_result_0000", "tool_result", { error: null, text: "ok" }]]),
  },
  {
    rule: "C3.failed-status",
    node: "tool_result_0000",
    fire: trace([TASK, ["tool_result_0000", "tool_result", { text: "…" }, { status: "timed_out" }]]),
    miss: trace([TASK, ["tool_result_0000", "tool_result", { text: "…" }, { status: "success" }]]),
  },
  {
    rule: "C3.http-error",
    node: "tool_result_0000",
    fire: trace([TASK, ["tool_result_0000", "tool_result", { http_status: 503, text: "busy" }]]),
    miss: trace([TASK, ["tool_result_0000", "tool_result", { http_status: 200, text: "fine" }]]),
  },
  {
    rule: "C3.error-text",
    node: "tool_result_0000",
    fire: trace([TASK, ["tool_result_0000", "tool_result", { text: "exitcode: 1 (execution failed)\nCode output: \nunknown language" }]]),
    miss: trace([TASK, ["tool_result_0000", "tool_result", { text: "exitcode: 0 (execution succeeded)\nCode output: 3/4" }]]),
  },
  {
    rule: "C3.inaccessible-evidence",
    node: "agent_action_0000",
    fire: trace([TASK, ["agent_action_0000", "agent_action", { text: "I was unable to access the PDF of the paper." }]]),
    miss: trace([TASK, ["agent_action_0000", "agent_action", { text: "I accessed the PDF of the paper." }]]),
  },
  {
    rule: "C3.unresolved-upstream-error",
    node: "final_result",
    fire: trace([TASK, ["tool_result_0000", "tool_result", { text: "x" }, { status: "failed" }], ["agent_action_0000", "agent_action", { text: "58.99" }], ["final_result", "final_result", { answer: 58.99 }]]),
    miss: trace([TASK, ["tool_result_0000", "tool_result", { text: "x" }, { status: "failed" }], ["tool_result_0001", "tool_result", { text: "orders: 406.53" }, { status: "success" }], ["final_result", "final_result", { answer: 406.53 }]]),
  },
  {
    rule: "C4.browser-no-url",
    node: "tool_call_0000",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { reason: "open the shop" } }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://shop.test/" } }]]),
  },
  {
    rule: "C4.view-source-url",
    node: "tool_call_0000",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "view-source:https://shop.test/" } }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://shop.test/view-source" } }]]),
  },
  {
    rule: "C4.html-for-structured",
    node: "tool_result_0000",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "api_query", arguments: { url: "https://wiki.test/w/api.php", prop: "coordinates" } }], ["tool_result_0000", "tool_result", { text: "<!DOCTYPE html><html><body>Main page</body></html>" }]], { data: [["tool_call_0000", "tool_result_0000"]] }),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "api_query", arguments: { url: "https://wiki.test/w/api.php", prop: "coordinates" } }], ["tool_result_0000", "tool_result", { text: '{"query":{"pages":{}}}' }]], { data: [["tool_call_0000", "tool_result_0000"]] }),
  },
  {
    rule: "C4.completion-after-failure",
    node: "final_result",
    fire: trace([TASK, ["tool_call_0000", "tool_call", { tool: "search", arguments: { q: "x" } }], ["tool_result_0000", "tool_result", { error: { type: "ConnectionError", message: "Failed to resolve" } }], ["final_result", "final_result", { answer: 1 }]]),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "search", arguments: { q: "x" } }], ["tool_result_0000", "tool_result", { text: "x = 1" }], ["final_result", "final_result", { answer: 1 }]]),
  },
  {
    rule: "C4.answer-without-tool-evidence",
    node: "agent_action_0000",
    fire: trace([TASK, ["agent_action_0000", "agent_action", { text: 'Final answer: [{"name":"B","price":9.99}]' }]], { startUrls: ["__SHOPPING_ADMIN__"] }),
    miss: trace([TASK, ["tool_call_0000", "tool_call", { tool: "browse", arguments: { url: "https://admin.test/orders" } }], ["tool_result_0000", "tool_result", { text: "order: B 9.99" }], ["agent_action_0000", "agent_action", { text: 'Final answer: [{"name":"B","price":9.99}]' }]], { startUrls: ["https://admin.test"] }),
  },
];

function firing(b: ReplayBundle, rule: string): string[] {
  return detectSymptoms(b).nodes.filter((n) => n.rules.some((r) => r.id === rule)).map((n) => n.id);
}

describe("Table 10 rules (lib/symptoms/rules.ts, one object per rule)", () => {
  test("every rule of the catalogue has a firing case", () => {
    expect(new Set(CASES.map((c) => c.rule))).toEqual(new Set(RULES.map((r) => r.id)));
  });

  test.each(CASES.map((c, i) => [c.rule, i] as const))("%s fires on its trace and stays quiet on the near miss (#%i)", (rule, i) => {
    const c = CASES[i];
    expect(firing(c.fire, rule)).toContain(c.node);
    expect(firing(c.miss, rule)).toEqual([]);
    // evidence is concrete: a path into the node and an exact quote found there
    const hit = detectSymptoms(c.fire).nodes.find((n) => n.id === c.node)!.rules.find((r) => r.id === rule)!;
    expect(hit.category).toBe(rule.slice(0, 2));
    for (const ev of hit.evidence) {
      const node = c.fire.graph.nodes.find((n) => n.id === (ev.nodeId ?? c.node))!;
      const at = ev.path.replace(/^\$/, "").match(/\.[A-Za-z_$][\w$]*|\[\d+\]/g) ?? [];
      let v: unknown = node;
      for (const seg of at) v = seg.startsWith("[") ? (v as unknown[])[Number(seg.slice(1, -1))] : (v as Record<string, unknown>)[seg.slice(1)];
      const text = typeof v === "string" ? v : JSON.stringify(v);
      expect(text, `${rule}: ${ev.path} in ${node.id}`).toContain(ev.quote);
    }
  });

  test("S(v) = max(S_node, S_tool, S_status) (F.6 eq. 40-43)", () => {
    const b = trace([
      TASK,
      ["tool_result_0000", "tool_result", { error: { message: "x" } }],
      ["tool_result_0001", "tool_result", { status: "Timeout" }],
      ["tool_result_0002", "tool_result", { text: "exitcode: 1 (execution failed)" }],
      ["agent_action_0000", "agent_action", { text: "ok" }, { error: { type: "E" } }],
    ]);
    const S = Object.fromEntries(detectSymptoms(b).nodes.map((n) => [n.id, n.runtimeFailure]));
    expect(S).toEqual({ tool_result_0000: 1, tool_result_0001: 1, tool_result_0002: 0, agent_action_0000: 1 });
  });

  test("propagation follows edges, not the observed order: a failure on a parallel branch does not reach the final node", () => {
    // task → A (fails) ; task → B (succeeds) → final. A is before B in the observed order but not upstream of final.
    const b = trace([TASK, ["tool_result_0000", "tool_result", { text: "x" }, { status: "failed" }], ["tool_result_0001", "tool_result", { text: "y = 1" }], ["final_result", "final_result", { answer: 1 }]]);
    b.graph.edges = [
      { from: "task_0000", to: "tool_result_0000", kind: "control" },
      { from: "task_0000", to: "tool_result_0001", kind: "control" },
      { from: "tool_result_0001", to: "final_result", kind: "data" },
    ];
    const fin = detectSymptoms(b).nodes.find((n) => n.id === "final_result");
    expect(fin?.rules.map((r) => r.id) ?? []).not.toContain("C3.unresolved-upstream-error");
    b.graph.edges.push({ from: "tool_result_0000", to: "final_result", kind: "data" });
    expect(detectSymptoms(b).nodes.find((n) => n.id === "final_result")!.rules.map((r) => r.id)).toContain("C3.unresolved-upstream-error");
  });
});

const GOLD_DIR = path.resolve(__dirname, "../../../shared/fixtures/bundles");
function gold(c: string): ReplayBundle {
  const r = validateBundle(parseJsonText(readFileSync(path.join(GOLD_DIR, `gold-${c}.bundle.json`), "utf8")));
  if (!r.ok) throw new Error(`gold-${c} invalid`);
  return r.bundle;
}

describe("anchor (Algorithm 4)", () => {
  test("the anchor is the LLM boundary of the first eligible node, mapped by the lib/replay/target.ts rule", () => {
    // tool_result fails (eligible) → the next llm_call consumes it: that is the anchor.
    const b = trace(
      [TASK, ["llm_call_0000", "llm_call", { response: "search" }], ["agent_action_0000", "agent_action", { text: "search x" }], ["tool_call_0000", "tool_call", { tool: "search", arguments: { q: "x" } }], ["tool_result_0000", "tool_result", { error: { message: "boom" } }], ["llm_call_0001", "llm_call", { response: "retry" }], ["agent_action_0001", "agent_action", { text: "retry" }], ["llm_call_0002", "llm_call", { response: "done" }]],
      { llm: ["llm_call_0000", "llm_call_0001", "llm_call_0002"], tool: ["tool_call_0000"] },
    );
    const d = detectSymptoms(b);
    expect(d.replayable).toBe(true);
    expect(d.anchorNode).toBe("tool_result_0000");
    expect(d.anchor).toBe("llm_call_0001");
    expect(d.anchor).toBe(resolveTarget(b, "tool_result_0000").boundaryNodeId);
  });

  test("an eligible agent_action maps to the llm call that produced it (data edge), else to the next llm call (imported transcript)", () => {
    const nodes: N[] = [TASK, ["llm_call_0000", "llm_call", { response: "report" }], ["agent_action_0000", "agent_action", { role: "assistant", content: "FACT: unit price of K-1 = [insert unit price] EUR." }], ["llm_call_0001", "llm_call", { response: "answer" }], ["agent_action_0001", "agent_action", { role: "assistant", content: "Final answer: 10.00" }]];
    const recorded = trace(nodes, { llm: ["llm_call_0000", "llm_call_0001"], data: [["llm_call_0000", "agent_action_0000"], ["llm_call_0001", "agent_action_0001"]] });
    const d = detectSymptoms(recorded);
    expect(d.anchorNode).toBe("agent_action_0000");
    expect(d.anchor).toBe("llm_call_0000");
    expect(d.anchor).toBe(resolveTarget(recorded, "agent_action_0000").boundaryNodeId);
    const imported = trace(nodes, { llm: ["llm_call_0000", "llm_call_0001"] });
    expect(detectSymptoms(imported).anchor).toBe("llm_call_0001");
    expect(resolveTarget(imported, "agent_action_0000").boundaryNodeId).toBe("llm_call_0001");
  });

  test("an eligible node with no LLM boundary at or after it is skipped; a non-replayable bundle gets anchor null and an offline anchorNode", () => {
    const nodes: N[] = [TASK, ["llm_call_0000", "llm_call", { response: "ok" }], ["tool_result_0000", "tool_result", { error: { message: "late failure" } }]];
    const d = detectSymptoms(trace(nodes, { llm: ["llm_call_0000"] }));
    expect(d.nodes.find((n) => n.id === "tool_result_0000")!.eligible).toBe(true);
    expect(d.anchor).toBeNull();
    expect(d.anchorNode).toBeNull();
    const off = detectSymptoms(trace(nodes));
    expect(off.replayable).toBe(false);
    expect(off.anchor).toBeNull();
    expect(off.anchorNode).toBe("tool_result_0000");
  });

  test.each(["c1", "c2", "c3", "c4"])("gold-%s: every node's boundary equals resolveTarget (or null where it throws)", (c) => {
    const b = gold(c);
    const scan = scanRules(b);
    for (const t of scan.triggered) {
      let want: string | null;
      try {
        want = resolveTarget(b, t.node.id).boundaryNodeId;
      } catch {
        want = null;
      }
      expect(t.boundary, t.node.id).toBe(want);
    }
  });

  test("gold-c3: first eligible node is tool_call_0000 (placeholder URL); its LLM boundary llm_call_0001 is the anchor", () => {
    const d = detectSymptoms(gold("c3"));
    expect(d.anchorNode).toBe("tool_call_0000");
    expect(d.anchor).toBe("llm_call_0001");
  });
});

describe("near misses from recorded runs", () => {
  test("a final_result without an answer ({final: null}, as the recorder writes it) is not 'answered without tool evidence'", () => {
    const b = trace([["task_0000", "message", { role: "user", text: "Look up the price on the site." }, { agent: "User" }], ["final_result", "final_result", { final: null }]], { startUrls: ["https://shop.test"] });
    expect(firing(b, "C4.answer-without-tool-evidence")).toEqual([]);
    const answered = trace([["task_0000", "message", { role: "user", text: "Look up the price on the site." }, { agent: "User" }], ["final_result", "final_result", { final: "12.50" }]], { startUrls: ["https://shop.test"] });
    expect(firing(answered, "C4.answer-without-tool-evidence")).toEqual(["final_result"]);
  });
});
