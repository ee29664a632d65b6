import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseJsonText, validateBundle } from "../bundle";
import { fieldsSwapped, importMad, isMadFile, masSlug, modeCode, sha256Hex, slugify, type MadSource } from "./mad";
import { splitHyperAgent, splitTrace } from "./mad-parsers";
import type { ImportedCase } from "./types";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const FILE = "MAD_human_labelled_sample.json";
const TEXT = readFileSync(path.join(SHARED, "datasets/mast_mad", FILE), "utf8");
const RAW = parseJsonText(TEXT, { allowNaN: true }) as Array<Record<string, unknown>>;
const RESULT = importMad(TEXT, { fileName: FILE });
const byTraceId = (id: number): ImportedCase => {
  const c = RESULT.cases.find((k) => (k.source as MadSource).record.trace_id === id);
  if (!c) throw new Error(`no case for trace_id ${id}`);
  return c;
};
const rawOf = (id: number) => RAW.find((r) => r.trace_id === id)!;
const texts = (c: ImportedCase) => c.bundle.graph.nodes.map((n) => (n.content as { text: string }).text);
const dataEdges = (c: ImportedCase) => c.bundle.graph.edges.filter((e) => e.kind === "data").map((e) => `${e.from}->${e.to}`);

// Expected per record, computed by reading the traces (see mad.md for the rules):
//  0 AppWorld: preamble + 31 section headers (Response from/Code Execution Output/Message to/Reply from/Response from send_message API)
//  2, 7 AG2: one node per trajectory item (10, 4)
//  3, 8 ChatDev: preamble + 12 "System: **[chatting]**" + 14 "**A<->B on : Phase, turn N**"
//  4, 9 MetaGPT: 5 "Name(Role): to do Action" lines, no preamble
//  17 Magentic-One: preamble + 13 "---------- X ----------" separators
//  18 OpenManus: preamble + plan + 24 "Executing step" + 18 "Tool ... completed its mission" + summary + "Request processed"
const EXPECTED: Array<{
  id: number; bundleId: string; mas: string; benchmark: string; nodes: number; first: string; last: string; data: number; trues: [number, number, number];
}> = [
  { id: 0, bundleId: "mad/round-1/0", mas: "appworld", benchmark: "Test-C", nodes: 32, first: "message", last: "tool_result", data: 8, trues: [2, 2, 2] },
  { id: 2, bundleId: "mad/round-1/2", mas: "ag2", benchmark: "GSM-Plus", nodes: 10, first: "message", last: "final_result", data: 0, trues: [2, 2, 2] },
  { id: 3, bundleId: "mad/round-1/3", mas: "chatdev", benchmark: "ProgramDev", nodes: 27, first: "message", last: "agent_action", data: 0, trues: [9, 9, 9] },
  { id: 4, bundleId: "mad/round-1/4", mas: "metagpt", benchmark: "ProgramDev", nodes: 5, first: "agent_action", last: "agent_action", data: 0, trues: [9, 9, 9] },
  { id: 7, bundleId: "mad/round-2/7", mas: "ag2", benchmark: "GSM-Plus", nodes: 4, first: "message", last: "final_result", data: 1, trues: [1, 1, 1] },
  { id: 8, bundleId: "mad/round-2/8", mas: "chatdev", benchmark: "ProgramDev", nodes: 27, first: "message", last: "agent_action", data: 0, trues: [2, 2, 2] },
  { id: 9, bundleId: "mad/round-2/9", mas: "metagpt", benchmark: "ProgramDev", nodes: 5, first: "agent_action", last: "agent_action", data: 0, trues: [2, 2, 2] },
  { id: 17, bundleId: "mad/generlazability/17", mas: "magentic-one", benchmark: "GAIA", nodes: 14, first: "message", last: "final_result", data: 5, trues: [3, 1, 3] },
  { id: 18, bundleId: "mad/generlazability/18", mas: "openmanus", benchmark: "GAIA", nodes: 46, first: "message", last: "final_result", data: 18, trues: [0, 0, 0] },
];

describe("MAD sample file", () => {
  test("all 9 records import, no failures", () => {
    expect(RESULT.failures).toEqual([]);
    expect(RESULT.cases.map((c) => c.bundle.id)).toEqual(EXPECTED.map((e) => e.bundleId));
  });

  test("the file really has bare NaN (JSON.parse rejects it)", () => {
    expect(() => JSON.parse(TEXT)).toThrow();
  });

  test("isMadFile detects the sample, a single record, and rejects other shapes", () => {
    expect(isMadFile(RAW)).toBe(true);
    expect(isMadFile(RAW[0])).toBe(true);
    expect(isMadFile([])).toBe(false);
    expect(isMadFile([1, 2])).toBe(false);
    expect(isMadFile({ history: [], mistake_agent: "x" })).toBe(false);
    expect(isMadFile([{ trace: "x", annotations: [{ "failure mode": "1.1 a", annotator_1: true }] }])).toBe(false);
  });
});

describe.each(EXPECTED)("record $id ($mas)", (e) => {
  const c = () => byTraceId(e.id);

  test("bundle id, config.mas, benchmark, node count, first/last type, data edges", () => {
    const b = c().bundle;
    expect(b.id).toBe(e.bundleId);
    expect(b.config.mas).toBe(e.mas);
    expect(b.task.benchmark).toBe(e.benchmark);
    expect(b.graph.nodes.length).toBe(e.nodes);
    expect(b.graph.nodes[0].type).toBe(e.first);
    expect(b.graph.nodes[e.nodes - 1].type).toBe(e.last);
    expect(dataEdges(c()).length).toBe(e.data);
    expect(b.task.prompt.trim()).not.toBe("");
    expect(b.outcome?.evaluator).toBe("mad");
  });

  test("graph: ids msg_NNNN in order, control chain, data edges go forward, bundle re-validates", () => {
    const b = c().bundle;
    expect(b.graph.nodes.map((n) => n.id)).toEqual(Array.from({ length: e.nodes }, (_, i) => `msg_${String(i).padStart(4, "0")}`));
    expect(b.order).toEqual(b.graph.nodes.map((n) => n.id));
    const control = b.graph.edges.filter((x) => x.kind === "control");
    expect(control.length).toBe(e.nodes - 1);
    control.forEach((x, i) => expect([x.from, x.to]).toEqual([b.graph.nodes[i].id, b.graph.nodes[i + 1].id]));
    for (const d of b.graph.edges.filter((x) => x.kind === "data")) {
      const to = b.graph.nodes.find((n) => n.id === d.to)!;
      expect(to.type).toBe("tool_result");
      expect(d.from < d.to).toBe(true);
    }
    expect(validateBundle(JSON.parse(JSON.stringify(b))).ok).toBe(true);
  });

  test("labels are single-line, <= 80 chars, non-empty", () => {
    for (const n of c().bundle.graph.nodes) {
      expect(n.label!.length).toBeGreaterThan(0);
      expect(n.label!.length).toBeLessThanOrEqual(80);
      expect(n.label).not.toMatch(/\n/);
    }
  });

  test("no text lost: node texts rebuild the trace", () => {
    const k = c();
    const trace = rawOf(e.id).trace as string;
    const src = k.source as MadSource;
    if (e.mas === "ag2") {
      const parsed = JSON.parse(trace);
      const ref = k.bundle.task.reference as { otherData: unknown };
      const rebuilt = {
        ...src.traceFields,
        other_data: ref.otherData,
        note: src.legacyNote,
        trajectory: k.bundle.graph.nodes.map((n) => {
          const ct = n.content as { role: string; name: string; lines: string[]; text: string };
          expect(ct.text).toBe(ct.lines.join("\n"));
          return { content: ct.lines, role: ct.role, name: ct.name };
        }),
      };
      expect(rebuilt).toEqual(parsed);
    } else if (e.mas === "metagpt") {
      const parsed = JSON.parse(trace);
      expect(texts(k).join("")).toBe(parsed.content);
      expect({ ...src.traceFields, content: texts(k).join("") }).toEqual(parsed);
    } else {
      const tail = (k.bundle.task.reference as { evaluationText?: string } | undefined)?.evaluationText ?? "";
      expect(texts(k).join("") + tail).toBe(trace);
    }
  });

  test("3 reference labels (annotator_1..3), every mode string exact, true counts", () => {
    const k = c();
    const anns = rawOf(e.id).annotations as Array<Record<string, unknown>>;
    expect(k.referenceLabels.map((l) => l.annotator)).toEqual(["annotator_1", "annotator_2", "annotator_3"]);
    expect(k.bundle.referenceLabels).toEqual(k.referenceLabels);
    expect(k.bundle.source).toEqual(k.source);
    k.referenceLabels.forEach((l, ai) => {
      expect(l.source).toBe("mad");
      expect(l.nodeId).toBeNull();
      expect(l.failureModes.map((m) => m.mode)).toEqual(anns.map((a) => a["failure mode"]));
      expect(l.failureModes.map((m) => m.code)).toEqual(anns.map((a) => (a["failure mode"] as string).split(" ")[0]));
      expect(l.failureModes.filter((m) => m.present === true).length).toBe(e.trues[ai]);
    });
  });

  test("source: dataset, file, subset, traceSha256", () => {
    const s = c().source as MadSource;
    const raw = rawOf(e.id);
    expect(s.dataset).toBe("mad");
    expect(s.file).toBe(FILE);
    expect(s.recordKey).toBe(String(e.id));
    expect(s.subset).toBe(raw.round);
    expect(s.traceSha256).toBe(sha256Hex(raw.trace as string));
    expect(s.traceSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("quirks (SOURCE.md 'Things to handle')", () => {
  test("record 18: annotator_3 NaN on modes 3.2 and 3.3 -> present null", () => {
    const a3 = byTraceId(18).referenceLabels[2];
    const nulls = a3.failureModes.filter((m) => m.present === null);
    expect(nulls.map((m) => m.code)).toEqual(["3.2", "3.3"]);
    expect(nulls[0].mode.startsWith("3.2 No or Incomplete Verification")).toBe(true);
    expect(byTraceId(18).referenceLabels[0].failureModes.every((m) => m.present === false)).toBe(true);
  });

  test("records 17/18: swapped mas_name/benchmark_name repaired and noted", () => {
    for (const [id, mas] of [[17, "magentic-one"], [18, "openmanus"]] as const) {
      const k = byTraceId(id);
      const s = k.source as MadSource;
      expect(k.bundle.config.mas).toBe(mas);
      expect(k.bundle.task.benchmark).toBe("GAIA");
      expect(s.record.mas_name).toBe("GAIA");
      expect(s.notes!.some((n) => n.includes("swapped"))).toBe(true);
    }
    expect((byTraceId(0).source as MadSource).notes).toEqual([]);
    expect(fieldsSwapped("GAIA", "Magentic")).toBe(true);
    expect(fieldsSwapped("AG2", "GSM-Plus")).toBe(false);
  });

  test("records 3 and 8: identical trace, two cases, same traceSha256, note on the later one", () => {
    const a = byTraceId(3);
    const b = byTraceId(8);
    expect(a.bundle.id).not.toBe(b.bundle.id);
    expect(a.source.traceSha256).toBe(b.source.traceSha256);
    expect(a.source.notes).toEqual([]);
    expect(b.source.notes).toEqual(["trace text identical to mad/round-1/3"]);
    // same nodes, different labels (rounds use different taxonomies)
    expect(texts(a)).toEqual(texts(b));
    expect(a.referenceLabels[0].failureModes.length).toBe(18);
    expect(b.referenceLabels[0].failureModes.length).toBe(17);
  });

  test("three taxonomy versions: same code, different mode strings; trailing spaces kept", () => {
    const r1 = byTraceId(0).referenceLabels[0].failureModes.find((m) => m.code === "2.2")!;
    const gen = byTraceId(17).referenceLabels[0].failureModes.find((m) => m.code === "2.2")!;
    expect(r1.mode.startsWith("2.2 Step repetition")).toBe(true);
    expect(gen.mode.startsWith("2.2 Fail to ask for clarification")).toBe(true);
    expect(byTraceId(0).referenceLabels[0].failureModes.find((m) => m.code === "2.4")!.mode.startsWith("2.4 Conversation reset \n")).toBe(true);
  });

  test("binary Fleiss' kappa pooling: 149 (trace, mode) items without a null, 151 in all", () => {
    let all = 0;
    let usable = 0;
    for (const k of RESULT.cases) {
      const [a1, a2, a3] = k.referenceLabels;
      a1.failureModes.forEach((m, j) => {
        all++;
        if ([m, a2.failureModes[j], a3.failureModes[j]].every((x) => x.present !== null)) usable++;
      });
    }
    expect(all).toBe(151);
    expect(usable).toBe(149);
  });
});

describe("per-MAS mapping details", () => {
  test("AG2 (2): inverted roles, task message, final answer, note and other_data kept out of nodes", () => {
    const k = byTraceId(2);
    const n = k.bundle.graph.nodes;
    expect([n[0].type, n[0].agent]).toEqual(["message", "mathproxyagent"]);
    expect([n[1].type, n[1].agent, (n[1].content as { role: string }).role]).toEqual(["agent_action", "assistant", "user"]);
    expect([n[2].type, n[2].agent, (n[2].content as { role: string }).role]).toEqual(["tool_result", "mathproxyagent", "assistant"]);
    expect(n[9].type).toBe("final_result");
    expect(k.bundle.task.id).toBe("02da9c1f-7c36-5739-b723-33a7d4f8e7e7");
    expect(k.bundle.task.prompt.startsWith("Monica is wrapping Christmas gifts.")).toBe(true);
    expect(k.bundle.outcome?.passed).toBe(true);
    const note = (k.source as MadSource).legacyNote as { options: Record<string, string> };
    expect(Object.keys(note.options).length).toBe(22);
    expect(note.options["Unaware of stopping conditions"]).toBe("yes");
    expect(k.referenceLabels.length).toBe(3);
    for (const t of texts(k)) expect(t).not.toContain("seed_solution");
  });

  test("AG2 (7): code block -> proxy output is a data edge; failed outcome; gold answer evaluator-only", () => {
    const k = byTraceId(7);
    expect(dataEdges(k)).toEqual(["msg_0001->msg_0002"]);
    expect((k.bundle.graph.nodes[2].content as { text: string }).text).toBe("29.0");
    expect(k.bundle.outcome?.passed).toBe(false);
    expect((k.bundle.task.reference as { otherData: { answer: string } }).otherData.answer).toBe("30");
  });

  test("AppWorld (0): sections typed, Evaluation is evaluator-only, task id and prompt", () => {
    const k = byTraceId(0);
    const n = k.bundle.graph.nodes;
    expect(k.bundle.task.id).toBe("692c77d_1");
    expect(k.bundle.task.prompt).toBe(
      "Give a 5-star rating to all songs in my Spotify playlists which I have liked. If I have already rated it lower, increase it to 5.",
    );
    expect([n[1].type, n[1].agent]).toEqual(["agent_action", "Supervisor"]);
    expect(n[2].type).toBe("tool_result");
    expect([n[4].type, n[4].agent, (n[4].content as { depth: number }).depth]).toEqual(["agent_action", "Spotify", 1]);
    expect([n[9].type, n[9].agent]).toEqual(["message", "Spotify"]);
    expect([n[10].type, n[10].agent]).toEqual(["tool_result", "send_message API"]);
    expect(n[19].status).toBe("error");
    expect(dataEdges(k)).toContain("msg_0009->msg_0010");
    expect(k.bundle.outcome?.passed).toBe(false);
    const ref = k.bundle.task.reference as { evaluationText: string; evaluation: { num_tests: number } };
    expect(ref.evaluationText.startsWith("Evaluation\n{")).toBe(true);
    expect(ref.evaluation.num_tests).toBe(7);
    for (const t of texts(k)) expect(t).not.toContain("no_op_fail");
  });

  test("ChatDev (3): phases and turns, prompt, model, speaker is the agent", () => {
    const k = byTraceId(3);
    const n = k.bundle.graph.nodes;
    expect(k.bundle.task.prompt.startsWith("Develop a classic Sudoku puzzle solver/creator")).toBe(true);
    expect(k.bundle.config.model).toBe("gpt-4o");
    expect([n[1].type, n[1].agent, (n[1].content as { phase: string }).phase]).toEqual(["message", "System", "DemandAnalysis"]);
    expect([n[2].type, n[2].agent]).toEqual(["agent_action", "Chief Product Officer"]);
    expect([n[3].type, n[3].agent]).toEqual(["agent_action", "Chief Executive Officer"]);
    expect((n[26].content as { phase: string }).phase).toBe("Manual");
    expect(n.filter((x) => x.type === "agent_action").length).toBe(14);
    expect((n[26].content as { text: string }).text).toContain("**[Post Info]**");
  });

  test("MetaGPT (4): Name(Role) agents in order, prompt from the JSON", () => {
    const k = byTraceId(4);
    expect(k.bundle.graph.nodes.map((x) => x.agent)).toEqual([
      "Alice(SimpleCoder)", "Bob(SimpleTester)", "Charlie(SimpleReviewer)", "Bob(SimpleTester)", "Charlie(SimpleReviewer)",
    ]);
    expect(k.bundle.task.prompt).toBe("develop a program that detects palindromes in a text file");
    expect((k.source as MadSource).traceFields).toEqual({ run_id: 21, prompt: "develop a program that detects palindromes in a text file", timestamp: "2025-01-17 11:40:27", cost: 0.039, log_file: "logs/21.txt" });
  });

  test("Magentic-One (17): user prompt, WebSurfer tool results, FINAL ANSWER", () => {
    const k = byTraceId(17);
    const n = k.bundle.graph.nodes;
    expect(k.bundle.task.prompt).toBe("How many at bats did the Yankee with the most walks in the 1977 regular season have that same season?");
    expect([n[1].type, n[1].agent]).toEqual(["message", "user"]);
    expect([n[4].type, n[4].agent]).toEqual(["tool_result", "WebSurfer"]);
    expect(dataEdges(k)).toEqual(["msg_0003->msg_0004", "msg_0005->msg_0006", "msg_0007->msg_0008", "msg_0009->msg_0010", "msg_0011->msg_0012"]);
    expect([n[13].type, n[13].agent, (n[13].content as { finalAnswer: string }).finalAnswer]).toEqual(["final_result", "MagenticOneOrchestrator", "525"]);
    expect(k.bundle.outcome?.passed).toBeNull();
  });

  test("OpenManus (18): plan, steps, tool results, summary, printed result; prompt not in the log", () => {
    const k = byTraceId(18);
    const n = k.bundle.graph.nodes;
    expect(k.bundle.task.prompt).toBe("OpenManus on GAIA, trace 18");
    expect([n[1].type, n[1].agent]).toEqual(["agent_action", "PlanningFlow"]);
    expect([n[2].type, n[2].agent, (n[2].content as { step: number }).step]).toEqual(["agent_action", "Manus", 1]);
    expect([n[3].type, n[3].agent]).toEqual(["tool_result", "browser_use"]);
    expect(n.filter((x) => x.type === "agent_action" && x.agent === "Manus").length).toBe(24);
    expect(n.filter((x) => x.status === "error").map((x) => x.id)).toEqual(["msg_0015", "msg_0036"]);
    expect([n[44].agent, n[44].type]).toEqual(["PlanningFlow", "agent_action"]);
    expect((n[45].content as { text: string }).text).toContain("Terminated: Reached max steps (20)");
  });
});

describe("bad input", () => {
  test("a broken record inside a good array is reported with JSON paths; the others import", () => {
    const arr = JSON.parse(JSON.stringify(RAW)) as Array<Record<string, unknown>>;
    (arr[3].annotations as Array<Record<string, unknown>>)[2].annotator_3 = "yes";
    const noId = { ...arr[4] };
    delete noId.trace_id;
    noId.trace = 42;
    arr[4] = noId;
    const r = importMad(JSON.stringify(arr, null, 2), { fileName: "bad.json" });
    expect(r.cases.length).toBe(7);
    expect(r.failures).toEqual([
      { where: "bad.json#trace_id=4", errors: [{ path: "$[3].annotations[2].annotator_3", message: 'expected true, false or NaN/null, got "yes"' }] },
      {
        where: "bad.json#[4]",
        errors: [
          { path: "$[4].trace", message: "expected a non-empty string, got 42" },
          { path: "$[4].trace_id", message: "expected a non-negative integer, got missing" },
        ],
      },
    ]);
    expect(r.cases.map((c) => c.bundle.id)).not.toContain("mad/round-1/4");
  });

  test("non-JSON text: one failure naming line and column, no throw", () => {
    const r = importMad('[\n  {"round": "Round 1",\n   oops }\n]', { fileName: "x.json" });
    expect(r.cases).toEqual([]);
    expect(r.failures.length).toBe(1);
    expect(r.failures[0].where).toBe("x.json");
    expect(r.failures[0].errors[0].message).toMatch(/line 3, column 4/);
    const t = importMad(TEXT.slice(0, 5000), { fileName: FILE });
    expect(t.failures.length).toBe(1);
    expect(t.failures[0].errors[0].message).toMatch(/line \d+, column \d+/);
    expect(importMad("", { fileName: "e.json" }).failures[0].errors[0].message).toMatch(/empty/);
  });

  test("JSON that is not records", () => {
    expect(importMad("42", { fileName: "n.json" }).failures).toEqual([
      { where: "n.json", errors: [{ path: "$", message: "expected a JSON array of MAD records, got 42" }] },
    ]);
    expect(importMad("[]", { fileName: "n.json" }).failures[0].errors[0].message).toMatch(/no MAD records/);
    expect(importMad("[1]", { fileName: "n.json" }).failures[0]).toEqual({ where: "n.json#[0]", errors: [{ path: "$[0]", message: "expected a MAD record object, got 1" }] });
  });

  test("a single record object imports; duplicate case id is reported", () => {
    const one = importMad(JSON.stringify(RAW[1]), { fileName: "one.json" });
    expect(one.failures).toEqual([]);
    expect(one.cases[0].bundle.id).toBe("mad/round-1/2");
    const two = importMad(JSON.stringify([RAW[1], RAW[1]]), { fileName: "two.json" });
    expect(two.cases.length).toBe(1);
    expect(two.failures).toEqual([{ where: "two.json#trace_id=2", errors: [{ path: "$[1].trace_id", message: "duplicate case id mad/round-1/2 (first at $[0])" }] }]);
  });

  test("unknown MAS -> generic single node; unparsable AG2 trace -> generic with a note", () => {
    const rec = { ...RAW[6], mas_name: "SomeNewMAS", benchmark_name: "Bench", trace: "line 1\nline 2\n" };
    const r = importMad(JSON.stringify([rec]), { fileName: "u.json" });
    expect(r.failures).toEqual([]);
    const k = r.cases[0];
    expect(k.bundle.config.mas).toBe("somenewmas");
    expect(k.bundle.graph.nodes.length).toBe(1);
    expect((k.bundle.graph.nodes[0].content as { text: string }).text).toBe("line 1\nline 2\n");
    expect(k.bundle.task.prompt).toBe("SomeNewMAS on Bench, trace 9");
    expect(k.source.notes!.some((n) => n.includes('no splitter for MAS "somenewmas"'))).toBe(true);
    const bad = importMad(JSON.stringify([{ ...RAW[1], trace: "{not json" }]), { fileName: "b.json" });
    expect(bad.failures).toEqual([]);
    expect(bad.cases[0].bundle.graph.nodes.length).toBe(1);
    expect(bad.cases[0].source.notes!.some((n) => n.startsWith("ag2 splitter failed"))).toBe(true);
  });
});

describe("helpers", () => {
  test("slugify, masSlug, modeCode", () => {
    expect(slugify("Round 1")).toBe("round-1");
    expect(slugify("Generlazability")).toBe("generlazability");
    expect(masSlug("Magentic")).toBe("magentic-one");
    expect(masSlug("Magentic-One")).toBe("magentic-one");
    expect(masSlug("OpenManus")).toBe("openmanus");
    expect(masSlug("HyperAgent")).toBe("hyperagent");
    expect(modeCode("1.3 Step Repetition\n\nx")).toBe("1.3");
    expect(modeCode("FM-1.3 Step Repetition")).toBe("FM-1.3");
    expect(modeCode("Step Repetition")).toBeNull();
  });

  test("HyperAgent splitter (synthetic: the sample has no HyperAgent record) groups lines by role", () => {
    const trace = JSON.stringify({
      instance_id: "x",
      trajectory: [
        "HyperAgent_x - INFO - Initialized HyperAgent",
        "HyperAgent_x - INFO - Planner's Response: look at foo.py",
        "HyperAgent_x - INFO - more planning",
        "HyperAgent_x - INFO - Navigator->Planner: found foo",
        "HyperAgent_x - INFO - Editor->Planner: patched",
      ],
    });
    const p = splitHyperAgent(trace);
    expect(p.nodes.map((n) => [n.agent, (n.content.lines as string[]).length])).toEqual([["Planner", 3], ["Navigator", 1], ["Editor", 1]]);
    expect(splitTrace("hyperagent", "not json").splitter).toBe("generic");
  });
});

describe("errors name the record (issue 10 item 11)", () => {
  test("a lone surrogate in one record's trace text is reported at $[i].trace; the other records import", () => {
    const raw = RAW.map((r) => ({ ...r }));
    const i = raw.findIndex((r) => r.trace_id === 7);
    raw[i].trace = `${String(raw[i].trace).slice(0, 40)}\ud800${String(raw[i].trace).slice(40)}`;
    const r = importMad(JSON.stringify(raw), { fileName: FILE });
    expect(r.cases).toHaveLength(RAW.length - 1);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0].where).toBe(`${FILE}#trace_id=7`);
    expect(r.failures[0].errors).toEqual([{ path: `$[${i}].trace`, message: expect.stringMatching(/lone UTF-16 surrogate \(U\+D800 at character 40\)/) }]);
  });
});
