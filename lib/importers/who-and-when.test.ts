import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../bundle";
import { importWhoWhen, isWhoWhenRecord, type WhoWhenSubset } from "./who-and-when";
import type { ImportedCase } from "./types";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const DIR = path.join(SHARED, "datasets/who_and_when");

interface RawMsg {
  content: string;
  role: string;
  name?: string;
}
interface RawRecord {
  history: RawMsg[];
  question: string;
  question_ID: string;
  mistake_step: string;
  mistake_agent: string;
  [k: string]: unknown;
}

const readText = (subset: WhoWhenSubset, n: number) => readFileSync(path.join(DIR, subset, `${n}.json`), "utf8");
const readRaw = (subset: WhoWhenSubset, n: number) => JSON.parse(readText(subset, n)) as RawRecord;

function load(subset: WhoWhenSubset, n: number, withSubset = false): ImportedCase {
  const r = importWhoWhen(readText(subset, n), { fileName: `${n}.json`, ...(withSubset ? { subset } : {}) });
  expect(r.failures).toEqual([]);
  expect(r.cases).toHaveLength(1);
  return r.cases[0];
}
const node = (b: ReplayBundle, id: string) => {
  const found = b.graph.nodes.find((x) => x.id === id);
  if (!found) throw new Error(`no node ${id}`);
  return found;
};
const text = (b: ReplayBundle, id: string) => (node(b, id).content as { text: string }).text;
const hasEdge = (b: ReplayBundle, from: string, to: string, kind: "data" | "control") =>
  b.graph.edges.some((e) => e.from === from && e.to === to && e.kind === kind);

// Every sample file with values read off the real data (SOURCE.md §Sample in this folder).
// types: a=agent_action, c=tool_call, r=tool_result, m=message, f=final_result (small files only).
const SAMPLES: Array<{
  subset: WhoWhenSubset;
  n: number;
  nodes: number;
  dataEdges: number;
  step: number;
  stepType: string;
  agent: string;
  types?: string;
}> = [
  { subset: "Hand-Crafted", n: 1, nodes: 29, dataEdges: 7, step: 12, stepType: "tool_result", agent: "WebSurfer" },
  { subset: "Hand-Crafted", n: 3, nodes: 93, dataEdges: 20, step: 32, stepType: "tool_result", agent: "WebSurfer" },
  { subset: "Hand-Crafted", n: 6, nodes: 8, dataEdges: 1, step: 5, stepType: "agent_action", agent: "Orchestrator", types: "maaaraaf" },
  { subset: "Hand-Crafted", n: 22, nodes: 24, dataEdges: 5, step: 4, stepType: "tool_result", agent: "FileSurfer" },
  { subset: "Hand-Crafted", n: 27, nodes: 51, dataEdges: 11, step: 4, stepType: "tool_result", agent: "WebSurfer" },
  { subset: "Hand-Crafted", n: 30, nodes: 121, dataEdges: 27, step: 82, stepType: "agent_action", agent: "Assistant" },
  { subset: "Algorithm-Generated", n: 1, nodes: 6, dataEdges: 2, step: 0, stepType: "tool_call", agent: "Excel_Expert", types: "crcraf" },
  { subset: "Algorithm-Generated", n: 14, nodes: 10, dataEdges: 4, step: 2, stepType: "tool_result", agent: "Culinary_Awards_Expert", types: "acrcrcrcrf" },
  { subset: "Algorithm-Generated", n: 30, nodes: 7, dataEdges: 0, step: 3, stepType: "agent_action", agent: "Culinary_Expert", types: "araaarf" },
  { subset: "Algorithm-Generated", n: 36, nodes: 9, dataEdges: 3, step: 2, stepType: "tool_call", agent: "ProblemSolving_Expert", types: "crcrcraaf" },
  { subset: "Algorithm-Generated", n: 108, nodes: 10, dataEdges: 1, step: 8, stepType: "agent_action", agent: "Corporate_Governance_Expert", types: "aaaacraaaf" },
];
const TYPE_CODE: Record<string, string> = {
  agent_action: "a",
  tool_call: "c",
  tool_result: "r",
  message: "m",
  final_result: "f",
};

describe("importWhoWhen on every sample file", () => {
  test.each(SAMPLES)("$subset $n", ({ subset, n, nodes, dataEdges, step, stepType, agent, types }) => {
    const raw = readRaw(subset, n);
    const c = load(subset, n); // subset inferred from keys
    const b = c.bundle;
    const slug = subset === "Hand-Crafted" ? "hand-crafted" : "algorithm-generated";

    // one node per message, numbered as in the source
    expect(raw.history.length).toBe(nodes);
    expect(b.graph.nodes).toHaveLength(nodes);
    expect(b.id).toBe(`who_and_when/${slug}/${n}`);
    expect(b.order).toEqual(raw.history.map((_, i) => `msg_${String(i).padStart(4, "0")}`));
    expect(validateBundle(b).ok).toBe(true);
    b.graph.nodes.forEach((nd, i) => {
      const m = raw.history[i];
      const delegateTo = /^Orchestrator \(-> (.+)\)$/.exec(m.role)?.[1];
      expect(nd.content).toEqual({ role: m.role, name: m.name ?? null, text: m.content, ...(delegateTo ? { delegateTo } : {}) });
      expect(text(b, nd.id)).toBe(m.content); // full text, byte for byte
      expect(nd.agent).toBe(subset === "Hand-Crafted" ? m.role.replace(/ \(.*\)$/, "") : m.name);
      expect(nd.label!.length).toBeGreaterThan(0);
      expect(Array.from(nd.label!).length).toBeLessThanOrEqual(80);
      expect(nd.label).not.toMatch(/\n/);
    });
    if (types) expect(b.graph.nodes.map((x) => TYPE_CODE[x.type]).join("")).toBe(types);
    expect(b.graph.nodes[nodes - 1].type).toBe("final_result");

    // edges: i -> i+1 exactly once (control, or data when a data dependency links the pair), no duplicates
    const keys = b.graph.edges.map((e) => `${e.from}>${e.to}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let i = 0; i + 1 < nodes; i++) {
      const from = b.order[i];
      const to = b.order[i + 1];
      expect(b.graph.edges.filter((e) => e.from === from && e.to === to)).toHaveLength(1);
    }
    expect(b.graph.edges.filter((e) => e.kind === "data")).toHaveLength(dataEdges);
    for (const e of b.graph.edges.filter((x) => x.kind === "data")) {
      const from = node(b, e.from);
      const to = node(b, e.to);
      if (subset === "Hand-Crafted") {
        const target = (from.content as { delegateTo?: string }).delegateTo;
        expect(target).toBeDefined();
        expect((to.content as { role: string }).role).toBe(target);
      } else {
        expect(from.type).toBe("tool_call");
        expect(to.agent).toBe("Computer_terminal");
      }
    }

    // the consensus label
    const stepId = `msg_${String(step).padStart(4, "0")}`;
    expect(raw.mistake_step).toBe(String(step));
    expect(c.referenceLabels).toHaveLength(1);
    const l = c.referenceLabels[0];
    expect(l).toMatchObject({ source: "who_and_when", annotator: "consensus", agent, nodeId: stepId, failureModes: [] });
    expect(l.reason).toBe(raw.mistake_reason);
    expect(l.extra.mistakeStep).toBe(String(step));
    expect(node(b, stepId).type).toBe(stepType);

    // bundle carries source + labels; task, config, outcome
    const bx = b as ReplayBundle & { source: unknown; referenceLabels: unknown };
    expect(bx.referenceLabels).toEqual(c.referenceLabels);
    expect(bx.source).toEqual(c.source);
    expect(c.source).toMatchObject({ dataset: "who_and_when", file: `${n}.json`, subset });
    expect(c.source.traceSha256).toBe(createHash("sha256").update(readText(subset, n)).digest("hex"));
    expect(b.task).toMatchObject({ id: raw.question_ID, prompt: raw.question, reference: { ground_truth: raw.ground_truth } });
    expect(b.config.mas).toBe(subset === "Hand-Crafted" ? "magentic-one" : "captain-agent");
    expect(b.outcome).toEqual({
      passed: false,
      evaluator: "who_and_when",
      details: subset === "Hand-Crafted" ? { is_corrected: false } : { is_correct: false },
    });

    // subset given by the caller gives the same bundle; import is deterministic
    expect(load(subset, n, true).bundle).toEqual(b);
  });

  test.each([
    ["Hand-Crafted", 1, "AssistantBench", null],
    ["Hand-Crafted", 6, "AssistantBench", null],
    ["Hand-Crafted", 22, "GAIA", 1],
    ["Hand-Crafted", 3, "GAIA", 2],
    ["Algorithm-Generated", 1, "GAIA", "2"],
    ["Algorithm-Generated", 108, "AssistantBench", "Hard"],
  ] as const)("%s/%i: benchmark %s from the question_ID shape, level %s", (subset, n, benchmark, level) => {
    const b = load(subset, n).bundle;
    expect(b.task.benchmark).toBe(benchmark);
    expect(b.task.level).toBe(level);
  });
});

describe("Who&When quirks (SOURCE.md §Things to handle)", () => {
  test("HC/6: mistake_agent 'Orchestrator' matches 'Orchestrator (thought)' by prefix", () => {
    const c = load("Hand-Crafted", 6);
    expect(readRaw("Hand-Crafted", 6).history.some((m) => m.role === "Orchestrator")).toBe(false);
    expect(c.referenceLabels[0].extra).toMatchObject({
      agentMatchesStep: true,
      matchedRole: "Orchestrator (thought)",
      stepRole: "Orchestrator (thought)",
    });
    expect(node(c.bundle, "msg_0005").agent).toBe("Orchestrator");
    expect(c.source.notes).toContain('mistake_agent "Orchestrator" matched role "Orchestrator (thought)" of history[5] by prefix');
  });

  test.each([
    ["Hand-Crafted", 22, "FileSurfer", "WebSurfer", 4],
    ["Algorithm-Generated", 14, "Culinary_Awards_Expert", "Computer_terminal", 2],
  ] as const)("%s/%i: label agent %s differs from the step's author %s (kept, flagged)", (subset, n, agent, author, step) => {
    const c = load(subset, n);
    const l = c.referenceLabels[0];
    expect(l.agent).toBe(agent);
    expect(l.nodeId).toBe(`msg_000${step}`);
    expect(node(c.bundle, l.nodeId!).agent).toBe(author);
    expect(l.extra).toMatchObject({ agentMatchesStep: false, matchedRole: null, stepRole: author });
    expect(c.source.notes).toContain(
      `annotation inconsistency: mistake_agent "${agent}" is not the author of history[${step}] (mistake_step), which is "${author}"`,
    );
  });

  test("consistent samples carry no inconsistency note", () => {
    for (const s of SAMPLES) {
      const c = load(s.subset, s.n);
      const inconsistent = (s.subset === "Hand-Crafted" && s.n === 22) || (s.subset === "Algorithm-Generated" && s.n === 14);
      expect(c.referenceLabels[0].extra.agentMatchesStep).toBe(!inconsistent);
      expect(c.source.notes!.some((x) => x.startsWith("annotation inconsistency"))).toBe(inconsistent);
    }
  });

  test("HC/30: the two ~88K-char web-page dumps stay whole, emoji intact", () => {
    const raw = readRaw("Hand-Crafted", 30);
    const b = load("Hand-Crafted", 30).bundle;
    // lengths in code points (the 🔍 is two UTF-16 units)
    expect(Array.from(text(b, "msg_0024"))).toHaveLength(88054);
    expect(Array.from(text(b, "msg_0028"))).toHaveLength(87482);
    expect(text(b, "msg_0024")).toBe(raw.history[24].content);
    expect(text(b, "msg_0028")).toBe(raw.history[28].content);
    expect(text(b, "msg_0028")).toContain("🔍");
    expect(node(b, "msg_0028").type).toBe("tool_result");
    expect(node(b, "msg_0120")).toMatchObject({ type: "final_result", agent: "Orchestrator", label: "FINAL ANSWER: 445000" });
    expect(node(b, "msg_0082")).toMatchObject({ type: "agent_action", agent: "Assistant" });
    expect(hasEdge(b, "msg_0080", "msg_0082", "data")).toBe(true); // Orchestrator (-> Assistant) -> Assistant
  });

  test("HC/1: 346 CJK characters and typographic symbols preserved", () => {
    const b = load("Hand-Crafted", 1).bundle;
    const all = b.graph.nodes.map((x) => (x.content as { text: string }).text).join("");
    expect(all.match(/[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]/g)).toHaveLength(346);
    expect(text(b, "msg_0008")).toContain("台灣基恩斯");
    expect(text(b, "msg_0024")).toContain("三次元量測的");
    expect(text(b, "msg_0004")).toContain("›");
  });

  test("HC/27: the data: URL stays plain text inside content (no parsed link)", () => {
    const b = load("Hand-Crafted", 27).bundle;
    const n28 = node(b, "msg_0028");
    expect(Object.keys(n28.content as object).sort()).toEqual(["name", "role", "text"]);
    expect(text(b, "msg_0028")).toContain("[Download Successful](data:text/html;base64,PGh0bWw+PGhlYWQ+");
    expect(text(b, "msg_0028").startsWith("I clicked 'Download'.\n\nHere is a screenshot of [Download Successful](data:")).toBe(true);
    expect(n28.label).toBe("I clicked 'Download'.");
    // the last delegation (history[49] -> FileSurfer) got no reply: no data edge from it
    expect(b.graph.edges.filter((e) => e.from === "msg_0049")).toEqual([{ from: "msg_0049", to: "msg_0050", kind: "control" }]);
    expect(node(b, "msg_0050").type).toBe("final_result");
  });

  test("AG/36: message 7 with empty content stays empty", () => {
    const b = load("Algorithm-Generated", 36).bundle;
    expect(node(b, "msg_0007")).toMatchObject({
      type: "agent_action",
      agent: "Verification_Expert",
      label: "(empty message)",
      content: { role: "user", name: "Verification_Expert", text: "" },
    });
  });

  test("AG/30: the extra `labels` field lands in the label's extra", () => {
    const c = load("Algorithm-Generated", 30);
    expect(c.referenceLabels[0].extra.labels).toBe("Factual_Error");
    expect(c.referenceLabels[0].extra).not.toHaveProperty("mistakeType");
    // "There is no code from the last 1 message" — the expert before it had no code block
    expect(node(c.bundle, "msg_0000").type).toBe("agent_action");
    expect(node(c.bundle, "msg_0001").type).toBe("tool_result");
  });

  test("HC/3: mistake_type lands in the label's extra", () => {
    const c = load("Hand-Crafted", 3);
    expect(c.referenceLabels[0].extra.mistakeType).toBe("Tool failure");
    expect(c.referenceLabels[0].extra).not.toHaveProperty("labels");
    expect(load("Hand-Crafted", 1).referenceLabels[0].extra).not.toHaveProperty("mistakeType");
  });

  test("HC/1: delegation edges, types and agents around a reply", () => {
    const b = load("Hand-Crafted", 1).bundle;
    expect(node(b, "msg_0000")).toMatchObject({ type: "message", agent: "human" });
    expect(node(b, "msg_0003")).toMatchObject({ type: "agent_action", agent: "Orchestrator" });
    expect(node(b, "msg_0003").content).toMatchObject({ role: "Orchestrator (-> WebSurfer)", delegateTo: "WebSurfer" });
    expect(node(b, "msg_0003").label!.startsWith("→ WebSurfer: ")).toBe(true);
    // adjacent delegation -> reply: one data edge, no control duplicate
    expect(hasEdge(b, "msg_0003", "msg_0004", "data")).toBe(true);
    expect(hasEdge(b, "msg_0003", "msg_0004", "control")).toBe(false);
    // reply two steps later: data edge over "Next speaker WebSurfer", plus the sequence
    expect(hasEdge(b, "msg_0006", "msg_0008", "data")).toBe(true);
    expect(hasEdge(b, "msg_0006", "msg_0007", "control")).toBe(true);
    expect(hasEdge(b, "msg_0007", "msg_0008", "control")).toBe(true);
    expect(node(b, "msg_0005").label).toBe("Ledger: next → WebSurfer (satisfied: false)");
    expect(node(b, "msg_0028").type).toBe("final_result"); // last message (a WebSurfer reply)
  });

  test("AG/1: tool_call -> tool_result data edges replace the sequence edge; system prompts kept", () => {
    const b = load("Algorithm-Generated", 1).bundle;
    expect(b.graph.edges).toEqual([
      { from: "msg_0000", to: "msg_0001", kind: "data" },
      { from: "msg_0001", to: "msg_0002", kind: "control" },
      { from: "msg_0002", to: "msg_0003", kind: "data" },
      { from: "msg_0003", to: "msg_0004", kind: "control" },
      { from: "msg_0004", to: "msg_0005", kind: "control" },
    ]);
    expect(node(b, "msg_0001")).toMatchObject({ agent: "Computer_terminal", label: "exitcode: 0 (execution succeeded)" });
    expect(b.config.systemPrompts).toEqual(readRaw("Algorithm-Generated", 1).system_prompt);
  });
});

describe("bundle id and subset inference", () => {
  test("a path as fileName uses its basename; an empty one falls back to question_ID", () => {
    const t = readText("Hand-Crafted", 6);
    expect(importWhoWhen(t, { fileName: "x/Hand-Crafted/6.json" }).cases[0].bundle.id).toBe("who_and_when/hand-crafted/6");
    expect(importWhoWhen(t, { fileName: "" }).cases[0].bundle.id).toBe(
      "who_and_when/hand-crafted/e6bc98089608217e45b6956a46518fe3cce64a799b3ac43c6974c449ae14c408",
    );
  });

  test("a caller's subset that contradicts the keys wins and is noted", () => {
    const c = importWhoWhen(readText("Algorithm-Generated", 30), { fileName: "30.json", subset: "Hand-Crafted" }).cases[0];
    expect(c.source.subset).toBe("Hand-Crafted");
    expect(c.source.notes).toContain(
      "subset given as Hand-Crafted but the record's keys look like Algorithm-Generated; used Hand-Crafted",
    );
  });

  test("without the telltale keys: `name` on messages => Algorithm-Generated, Orchestrator roles => Hand-Crafted", () => {
    const ag = { question: "q", history: [{ role: "user", name: "A_Expert", content: "hi" }] };
    const hc = { question: "q", history: [{ role: "human", content: "q" }, { role: "Orchestrator (thought)", content: "x" }] };
    expect(importWhoWhen(JSON.stringify(ag), { fileName: "a.json" }).cases[0].source.subset).toBe("Algorithm-Generated");
    expect(importWhoWhen(JSON.stringify(hc), { fileName: "h.json" }).cases[0].source.subset).toBe("Hand-Crafted");
    expect(importWhoWhen(JSON.stringify(hc), { fileName: "h.json" }).cases[0].referenceLabels).toEqual([]);
  });
});

describe("isWhoWhenRecord", () => {
  test.each(SAMPLES)("true on $subset $n", ({ subset, n }) => {
    expect(isWhoWhenRecord(readRaw(subset, n))).toBe(true);
  });
  test.each([
    ["null", null],
    ["array", [{ history: [] }]],
    ["empty object", {}],
    ["history not an array", { history: "x", question: "q" }],
    ["history without label or question", { history: [] }],
    ["a replay bundle", { format: "symtrace.bundle/v1", graph: { nodes: [] } }],
  ])("false on %s", (_, v) => {
    expect(isWhoWhenRecord(v)).toBe(false);
  });
  test("true on a minimal record", () => {
    expect(isWhoWhenRecord({ history: [], mistake_step: "0" })).toBe(true);
  });
});

describe("malformed records become failures with a path, never throw", () => {
  const valid = readRaw("Algorithm-Generated", 30);
  test.each([
    ["not JSON", "{ history: [", "$", /line 1, column 3/],
    ["truncated JSON", JSON.stringify(valid).slice(0, 200), "$", /truncated/],
    ["empty file", "", "$", /empty file/],
    ["JSON array", "[1,2]", "$", /expected a JSON object/],
    ["no history", JSON.stringify({ question: "q", mistake_step: "0" }), "$.history", /missing/],
    ["history is a string", JSON.stringify({ ...valid, history: "oops" }), "$.history", /expected an array/],
    ["empty history", JSON.stringify({ ...valid, history: [] }), "$.history", /empty/],
    [
      "message content not a string",
      JSON.stringify({ ...valid, history: [valid.history[0], { role: "user", name: "X", content: 5 }] }),
      "$.history[1].content",
      /expected a string/,
    ],
    ["message not an object", JSON.stringify({ ...valid, history: [valid.history[0], "hello"] }), "$.history[1]", /message object/],
    ["subset undecidable", JSON.stringify({ question: "q", history: [{ role: "user", content: "x" }] }), "$", /cannot tell the subset/],
  ])("%s", (_, input, where, msg) => {
    let r!: ReturnType<typeof importWhoWhen>;
    expect(() => (r = importWhoWhen(input, { fileName: "Algorithm-Generated/bad.json" }))).not.toThrow();
    expect(r.cases).toEqual([]);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0].where).toBe("Algorithm-Generated/bad.json");
    expect(r.failures[0].errors[0].path).toBe(where);
    expect(r.failures[0].errors[0].message).toMatch(msg);
  });

  test("a mistake_step past the end imports the trace, with a label on no node and a note", () => {
    const r = importWhoWhen(JSON.stringify({ ...valid, mistake_step: "99" }), { fileName: "30.json" });
    expect(r.failures).toEqual([]);
    expect(r.cases[0].referenceLabels[0]).toMatchObject({ nodeId: null, agent: "Culinary_Expert" });
    expect(r.cases[0].referenceLabels[0].extra).toMatchObject({ mistakeStep: "99", agentMatchesStep: null });
    expect(r.cases[0].source.notes).toContain('mistake_step "99" is past the end of history (7 messages): label has no node');
  });

  test("unknown top-level keys are kept under sourceExtra", () => {
    const r = importWhoWhen(JSON.stringify({ ...valid, annotator_note: "x" }), { fileName: "30.json" });
    expect((r.cases[0].bundle as Record<string, unknown>).sourceExtra).toEqual({ annotator_note: "x" });
  });
});

describe("errors name the record (issue 10 item 11)", () => {
  test("a lone surrogate in one message is reported at that message's path, not at $", () => {
    const raw = readRaw("Hand-Crafted", 6);
    const t = JSON.stringify(raw).replace(JSON.stringify(raw.history[3].content), JSON.stringify(raw.history[3].content).replace(/^"/, '"\\ud800'));
    const r = importWhoWhen(t, { fileName: "6.json", subset: "Hand-Crafted" });
    expect(r.cases).toEqual([]);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0].errors).toHaveLength(1);
    expect(r.failures[0].errors[0].path).toBe("$.history[3].content");
    expect(r.failures[0].errors[0].message).toMatch(/lone UTF-16 surrogate \(U\+D800 at character 0\)/);
  });
});
