import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../bundle";
import { importOtel, isLangfuseTraceExport, isOtlpJson, type OtelBundleSource } from "./otel";
import { normalizeMessages } from "./otel-messages";
import { unflattenIndexed, unwrapJson } from "./otel-values";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const LANGFUSE_DIR = path.join(SHARED, "datasets/langfuse_framework_traces");
const FIXTURES = path.join(import.meta.dirname, "fixtures");

const read = (p: string) => fs.readFileSync(p, "utf8");
const sampleFiles = fs.readdirSync(LANGFUSE_DIR).filter((f) => f.endsWith(".trace.json")).sort();

// Node content is arbitrary JSON read back from the bundle; the tests index into it freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Content = Record<string, any>;
const node = (b: ReplayBundle, id: string) => {
  const n = b.graph.nodes.find((x) => x.id === id);
  if (!n) throw new Error(`no node ${id}`);
  return n;
};
const content = (b: ReplayBundle, id: string) => node(b, id).content as Content;
const edgeSet = (b: ReplayBundle) => new Set(b.graph.edges.map((e) => `${e.from}->${e.to}:${e.kind}`));

function importOne(file: string) {
  const r = importOtel(read(path.join(LANGFUSE_DIR, file)), { fileName: file });
  expect(r.failures).toEqual([]);
  expect(r.cases).toHaveLength(1);
  return r.cases[0];
}

/** Per-sample expectations, read off the files by hand (SOURCE.md §Files here). */
const EXPECTED: Record<
  string,
  {
    traceId: string;
    observations: number;
    tools: number;
    order: string[];
    agents: Record<string, string | undefined>;
    mas: string;
    model: string;
    prompt: string;
    records: Array<[string, "llm" | "tool"]>;
    dataEdges: string[];
    scoreNames: string[];
    finalFrom: string;
    finalText: string;
  }
> = {
  "microsoft-agent-2025-12-17.trace.json": {
    traceId: "8e419d3288419b5d944270505640e183",
    observations: 4,
    tools: 1,
    order: ["agent_action_0000", "llm_call_0001", "tool_call_0002", "tool_result_0003", "llm_call_0004", "final_result_0005"],
    agents: {
      agent_action_0000: "171105b7-59dd-49c0-9677-0b95395aa46a",
      llm_call_0004: "171105b7-59dd-49c0-9677-0b95395aa46a",
    },
    mas: "microsoft-agent-framework",
    model: "gpt-5-mini",
    prompt: "What's the weather in Tokyo?",
    records: [
      ["llm_call_0001", "llm"],
      ["tool_call_0002", "tool"],
      ["llm_call_0004", "llm"],
    ],
    dataEdges: ["llm_call_0001->tool_call_0002", "tool_call_0002->tool_result_0003", "tool_result_0003->llm_call_0004", "llm_call_0004->final_result_0005"],
    scoreNames: ["correctness", "hallucination", "toxicity"],
    finalFrom: "trace.output",
    finalText: "Current conditions in Tokyo, Japan: stormy, high around 23°C.",
  },
  "openai-agents-2025-09-30.trace.json": {
    traceId: "fee618f96dc31e0ca38b2f7b26eb8b29",
    observations: 5,
    tools: 1,
    order: [
      "agent_action_0000",
      "agent_action_0001",
      "llm_call_0002",
      "tool_call_0003",
      "tool_result_0004",
      "llm_call_0005",
      "final_result_0006",
    ],
    agents: { agent_action_0000: "Agent workflow", agent_action_0001: "Hello world", tool_call_0003: "Hello world" },
    mas: "openai-agents",
    model: "gpt-4.1-2025-04-14",
    prompt: "What's the weather in Tokyo?",
    records: [
      ["llm_call_0002", "llm"],
      ["tool_call_0003", "tool"],
      ["llm_call_0005", "llm"],
    ],
    dataEdges: ["llm_call_0002->tool_call_0003", "tool_call_0003->tool_result_0004", "tool_result_0004->llm_call_0005", "llm_call_0005->final_result_0006"],
    scoreNames: ["toxicity", "hallucination"],
    finalFrom: "last_generation.output",
    finalText:
      "The weather in Tokyo is currently sunny. If you need more details like temperature or forecast for the upcoming days, just let me know!",
  },
  "pydantic-ai-tools-2025-06-06.trace.json": {
    traceId: "25f4bdeebaab60e6e1bee7e8469554bc",
    observations: 3,
    tools: 0,
    order: ["agent_action_0000", "agent_action_0001", "llm_call_0002", "final_result_0003"],
    agents: { agent_action_0000: undefined, agent_action_0001: "qa_agent", llm_call_0002: "qa_agent" },
    mas: "pydantic-ai",
    model: "gpt-4o",
    prompt: "What is Langfuse?",
    records: [["llm_call_0002", "llm"]],
    dataEdges: ["llm_call_0002->final_result_0003"],
    scoreNames: [],
    finalFrom: "trace.output",
    finalText: "Langfuse is a tool designed for observability and monitoring of applications that utilize large language models",
  },
};

describe("Langfuse trace exports (every sample file)", () => {
  test("every sample file in the shared folder has expectations here", () => {
    expect(sampleFiles).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(sampleFiles)("%s: node count = deduplicated observations + one tool_result per TOOL + 1 final_result", (file) => {
    const raw = JSON.parse(read(path.join(LANGFUSE_DIR, file)));
    const ex = EXPECTED[file];
    // Each observation is listed twice (slim + full): the source rule the importer must undo.
    expect(raw.observations).toHaveLength(ex.observations);
    expect(raw.trace.observations).toHaveLength(ex.observations);
    const uniqueIds = new Set([...raw.observations, ...raw.trace.observations].map((o: { id: string }) => o.id));
    expect(uniqueIds.size).toBe(ex.observations);
    const tools = raw.observations.filter((o: { type: string }) => o.type === "TOOL").length;
    expect(tools).toBe(ex.tools);

    const { bundle } = importOne(file);
    expect(bundle.graph.nodes).toHaveLength(uniqueIds.size + tools + 1);
    expect(bundle.graph.nodes).toHaveLength(ex.order.length);
    // One node per observation id, none duplicated.
    const spanIds = bundle.graph.nodes
      .filter((n) => n.type !== "tool_result" && n.type !== "final_result")
      .map((n) => (n.content as Content).spanId);
    expect(new Set(spanIds)).toEqual(uniqueIds);
  });

  test.each(sampleFiles)("%s: ids, types at positions, observed order, agents", (file) => {
    const ex = EXPECTED[file];
    const { bundle } = importOne(file);
    expect(bundle.id).toBe(`langfuse/${ex.traceId}`);
    expect(bundle.order).toEqual(ex.order);
    expect(bundle.graph.nodes.map((n) => n.id)).toEqual(ex.order);
    expect(bundle.graph.nodes.map((n) => n.type)).toEqual(ex.order.map((id) => id.replace(/_\d{4}$/, "")));
    for (const [id, agent] of Object.entries(ex.agents)) expect(node(bundle, id).agent ?? undefined).toBe(agent);
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    for (const n of bundle.graph.nodes) {
      expect(n.label).toBeTruthy();
      expect(Array.from(n.label!).length).toBeLessThanOrEqual(80);
      expect(n.label).not.toMatch(/\n/);
    }
  });

  test.each(sampleFiles)("%s: task, config, outcome", (file) => {
    const ex = EXPECTED[file];
    const { bundle, source } = importOne(file);
    expect(bundle.task.prompt).toBe(ex.prompt);
    expect(bundle.task.id).toBe(ex.traceId);
    expect(bundle.config.mas).toBe(ex.mas);
    expect(bundle.config.model).toBe(ex.model);
    expect(bundle.outcome).toMatchObject({ passed: null, evaluator: "langfuse" });
    expect(source).toMatchObject({ dataset: "langfuse", file, recordKey: ex.traceId });
    expect(source.traceSha256).toMatch(/^[0-9a-f]{64}$/);
    expect((bundle as Content).source).toEqual(source);
  });

  test.each(sampleFiles)("%s: edges (containment, tool data, call-id data flow, final result)", (file) => {
    const ex = EXPECTED[file];
    const { bundle } = importOne(file);
    const edges = edgeSet(bundle);
    for (const e of ex.dataEdges) expect(edges).toContain(`${e}:data`);
    // Containment: every span node with a parent span has a control (or data) edge from it.
    const bySpan = new Map(bundle.graph.nodes.map((n) => [(n.content as Content).spanId, n.id]));
    for (const n of bundle.graph.nodes) {
      if (n.type === "tool_result" || n.type === "final_result") continue;
      const parent = (n.content as Content).parentSpanId;
      if (parent) expect([...edges].some((e) => e.startsWith(`${bySpan.get(parent)}->${n.id}:`))).toBe(true);
    }
  });

  test.each(sampleFiles)("%s: boundary records in observed order", (file) => {
    const ex = EXPECTED[file];
    const { bundle } = importOne(file);
    expect(bundle.records.map((r) => [r.nodeId, r.boundary])).toEqual(ex.records);
    const pos = bundle.records.map((r) => bundle.order.indexOf(r.nodeId));
    expect([...pos].sort((a, b) => a - b)).toEqual(pos);
    for (const r of bundle.records) {
      if (r.boundary === "llm") {
        const req = r.request as Content;
        expect(req.model).toBe(ex.model);
        expect(req.messages.length).toBeGreaterThan(0);
        // ids dropped: no id / tool_call_id keys anywhere in the normalized messages
        for (const m of req.messages) {
          expect(Object.keys(m).sort()).toEqual(expect.arrayContaining(["content", "role"]));
          expect(m).not.toHaveProperty("tool_call_id");
          expect(m).not.toHaveProperty("id");
          for (const tc of m.tool_calls ?? []) expect(Object.keys(tc).sort()).toEqual(["arguments", "name"]);
        }
        expect(r.meta).toHaveProperty("latencyMs");
      }
    }
  });

  test.each(sampleFiles)("%s: final_result holds the trace output", (file) => {
    const ex = EXPECTED[file];
    const { bundle } = importOne(file);
    const last = bundle.order[bundle.order.length - 1];
    expect(node(bundle, last).type).toBe("final_result");
    const c = content(bundle, last);
    expect(c.from).toBe(ex.finalFrom);
    expect(c.text.startsWith(ex.finalText)).toBe(true);
  });

  test.each(sampleFiles)("%s: LLM-as-judge scores stay in source.scores, never labels", (file) => {
    const ex = EXPECTED[file];
    const { source, referenceLabels } = importOne(file);
    const scores = ((source as OtelBundleSource).scores ?? []) as Array<{ name: string; source: string }>;
    expect(scores.map((s) => s.name)).toEqual(ex.scoreNames);
    expect(scores.every((s) => s.source === "EVAL")).toBe(true);
    expect(referenceLabels.some((l) => ex.scoreNames.includes(String(l.extra.name)))).toBe(false);
  });

  test("import is deterministic (stable ids and hashes)", () => {
    for (const file of sampleFiles) {
      const a = importOne(file).bundle;
      const b = importOne(file).bundle;
      expect(a).toEqual(b);
    }
  });
});

describe("Langfuse quirks (SOURCE.md §Things to handle)", () => {
  test("openai-agents: observations are out of time order in the file; order follows startTime", () => {
    const raw = JSON.parse(read(path.join(LANGFUSE_DIR, "openai-agents-2025-09-30.trace.json")));
    // In the file the second generation (90d9…, 09:04:01.001) comes before the first (9887…, 09:03:59.963).
    expect(raw.observations.map((o: { id: string }) => o.id)).toEqual([
      "e5a76f27f51ad40e",
      "d950b668796240b5",
      "90d94774e8e3724d",
      "98870087af69bf06",
      "5b99c3e3411ed17b",
    ]);
    const { bundle } = importOne("openai-agents-2025-09-30.trace.json");
    expect(content(bundle, "llm_call_0002").spanId).toBe("98870087af69bf06");
    expect(content(bundle, "llm_call_0005").spanId).toBe("90d94774e8e3724d");
  });

  test("pydantic-ai: a child is listed before its root; the tree is rebuilt from parentObservationId", () => {
    const raw = JSON.parse(read(path.join(LANGFUSE_DIR, "pydantic-ai-tools-2025-06-06.trace.json")));
    expect(raw.observations[0].parentObservationId).toBe("538fed87d11686d3");
    expect(raw.observations[1].id).toBe("538fed87d11686d3");
    const { bundle, source } = importOne("pydantic-ai-tools-2025-06-06.trace.json");
    // All three start at 14:40:28.562: depth breaks the tie, root first.
    expect(bundle.order.map((id) => content(bundle, id).spanId ?? null)).toEqual([
      "538fed87d11686d3",
      "0a4fac2553f22f2e",
      "5cb389a3bdd21a6e",
      null,
    ]);
    expect(edgeSet(bundle)).toContain("agent_action_0000->agent_action_0001:control");
    expect(edgeSet(bundle)).toContain("agent_action_0001->llm_call_0002:control");
    expect(source.notes!.join(" ")).toMatch(/out of tree order/);
  });

  test("dedupe keeps the full observation (with metadata attributes), not the slim copy", () => {
    const { bundle, source } = importOne("openai-agents-2025-09-30.trace.json");
    const c = content(bundle, "llm_call_0002");
    expect(c.attributes["openinference.span.kind"]).toBe("LLM");
    expect(c.usage).toMatchObject({ input: 55, output: 15, total: 70 });
    expect(source.notes).toContain("5 duplicate observation(s) (slim copies in trace.observations) dropped; full copies kept");
  });

  test("openai-agents: the tool call id is recovered from call_id (generation output -> next generation's function_call_output)", () => {
    const { bundle } = importOne("openai-agents-2025-09-30.trace.json");
    const tool = content(bundle, "tool_call_0003");
    expect(tool.tool).toEqual({
      name: "get_weather",
      arguments: { city: "Tokyo" },
      callId: "call_Kud0j0DxWSmLzv9W5m6qVqXn",
      callIdSource: "inferred",
    });
    expect(content(bundle, "tool_result_0004")).toEqual({
      tool: "get_weather",
      callId: "call_Kud0j0DxWSmLzv9W5m6qVqXn",
      spanId: "5b99c3e3411ed17b",
      output: "The weather in Tokyo is sunny.",
    });
    expect(bundle.outcome?.details).toEqual({
      dataFlow: [
        { from: "llm_call_0002", to: "tool_call_0003", callId: "call_Kud0j0DxWSmLzv9W5m6qVqXn" },
        { from: "tool_result_0004", to: "llm_call_0005", callId: "call_Kud0j0DxWSmLzv9W5m6qVqXn" },
      ],
    });
  });

  test("microsoft: gen_ai.tool.call.id gives the data edge; double-encoded trace.input/output decoded", () => {
    const { bundle, source } = importOne("microsoft-agent-2025-12-17.trace.json");
    expect(content(bundle, "tool_call_0002").tool.callIdSource).toBe("attribute");
    expect(content(bundle, "tool_call_0002").tool.callId).toBe("call_CwaJHuXTm9dmHFQPlVbqyzJ0");
    const fin = content(bundle, "final_result_0005");
    expect(Array.isArray(fin.output)).toBe(true);
    expect(fin.output).toHaveLength(3);
    expect(source.notes).toContain("trace.input/output are double-encoded JSON strings; decoded");
    // GenAI parts messages normalized for the detail view.
    expect(content(bundle, "llm_call_0004").messages.input).toEqual([
      {
        role: "tool",
        content:
          '{"type": "function_result", "call_id": "call_CwaJHuXTm9dmHFQPlVbqyzJ0", "result": "The weather in Tokyo, Japan is stormy with a high of 23\\u00b0C."}',
        tool_call_id: "call_CwaJHuXTm9dmHFQPlVbqyzJ0",
      },
    ]);
  });

  test("metadata -> attributes -> values: llm.invocation_parameters is parsed to an object", () => {
    const { bundle } = importOne("openai-agents-2025-09-30.trace.json");
    const attrs = content(bundle, "llm_call_0002").attributes;
    expect(attrs["llm.invocation_parameters"]).toMatchObject({ model: "gpt-4.1-2025-04-14", temperature: 1 });
    expect(bundle.config.temperature).toBe(1);
    const pyd = importOne("pydantic-ai-tools-2025-06-06.trace.json").bundle;
    expect(Array.isArray(content(pyd, "agent_action_0001").attributes.all_messages_events)).toBe(true);
  });

  test("OpenInference indexed keys are un-flattened into arrays in the node content", () => {
    const { bundle } = importOne("openai-agents-2025-09-30.trace.json");
    const attrs = content(bundle, "llm_call_0005").attributes;
    expect(attrs["llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments"]).toBeUndefined();
    expect(attrs["llm.input_messages"]).toHaveLength(4);
    expect(attrs["llm.input_messages"][2].message.tool_calls[0].tool_call.function).toEqual({
      name: "get_weather",
      arguments: { city: "Tokyo" },
    });
    expect(content(bundle, "llm_call_0005").messages.input.map((m: { role: string }) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
  });

  test("llm record: normalized request (no ids), response as received, meta latency/model/usage", () => {
    const { bundle } = importOne("openai-agents-2025-09-30.trace.json");
    const rec = bundle.records[2];
    expect(rec.request).toMatchObject({
      model: "gpt-4.1-2025-04-14",
      temperature: 1,
      messages: [
        { role: "system", content: "You are a helpful agent." },
        { role: "user", content: "What's the weather in Tokyo?" },
        { role: "assistant", content: null, tool_calls: [{ name: "get_weather", arguments: { city: "Tokyo" } }] },
        { role: "tool", content: "The weather in Tokyo is sunny." },
      ],
    });
    expect((rec.request as Content).tools).toHaveLength(1);
    expect((rec.response as Content).id).toBe("resp_0f00ca5b7e22bb4c0068db9d0110d8819da676bd1f2dd03a40");
    expect(rec.meta).toEqual({
      latencyMs: 1150,
      latencyNs: "1150000000",
      model: "gpt-4.1-2025-04-14",
      usage: { output: 29, input: 85, total: 114, "prompt_details.cache_read": 0, "completion_details.reasoning": 0 },
      spanId: "90d94774e8e3724d",
    });
    expect(bundle.records[1]).toMatchObject({
      boundary: "tool",
      request: { name: "get_weather", arguments: { city: "Tokyo" } },
      response: "The weather in Tokyo is sunny.",
    });
  });

  test("pydantic-ai: the human ANNOTATION correction is one reference label on the final result", () => {
    const { bundle, referenceLabels } = importOne("pydantic-ai-tools-2025-06-06.trace.json");
    expect(referenceLabels).toHaveLength(1);
    const l = referenceLabels[0];
    expect(l).toMatchObject({
      source: "langfuse",
      annotator: "cm167x5rh00018bk3mcnituff",
      nodeId: "final_result_0003",
      agent: null,
      failureModes: [],
    });
    expect(l.reason).toMatch(/^Langfuse is a tool designed for observability/);
    expect(l.extra).toMatchObject({ dataType: "CORRECTION", name: "output", value: 0, id: "9c7e9644-912b-46c5-9a1a-859c1724695c" });
    expect((bundle as Content).referenceLabels).toEqual(referenceLabels);
    expect((bundle.task.reference as Content).correctedOutput).toBe(l.reason);
    // The correction equals the produced output verbatim: surfaced as a note.
    expect((bundle as Content).source.notes).toContain("human correction trace.corrections[0] is identical to the trace output");
  });

  test("Langfuse level ERROR maps to status error with statusMessage; a null endTime is 'not ended', zero-width", () => {
    const raw = JSON.parse(read(path.join(LANGFUSE_DIR, "microsoft-agent-2025-12-17.trace.json")));
    const tool = raw.observations.find((o: { id: string }) => o.id === "a2de97aac476c036");
    tool.level = "ERROR";
    tool.statusMessage = "TimeoutError: weather service did not answer";
    tool.endTime = null;
    const r = importOtel(JSON.stringify(raw), { fileName: "err.json" });
    expect(r.failures).toEqual([]);
    const b = r.cases[0].bundle;
    for (const id of ["tool_call_0002", "tool_result_0003"]) {
      expect(node(b, id).status).toBe("error");
      expect(node(b, id).error).toEqual({ type: "error", message: "TimeoutError: weather service did not answer" });
    }
    expect(node(b, "llm_call_0001").status ?? null).toBeNull();
    expect(content(b, "tool_call_0002").durationNs).toBe("0");
    expect(content(b, "tool_call_0002").duration).toBe("0 ns");
    expect(content(b, "tool_call_0002").importWarnings).toEqual(["not ended"]);
    expect(r.cases[0].warnings!.map((w) => [w.kind, w.path])).toEqual([["not-ended", "$.observations[3].endTime"]]);
  });

  test("a Langfuse score with source ANNOTATION is a human label; EVAL scores are not", () => {
    const raw = JSON.parse(read(path.join(LANGFUSE_DIR, "openai-agents-2025-09-30.trace.json")));
    raw.trace.scores[0].source = "ANNOTATION";
    raw.trace.scores[0].authorUserId = "user_42";
    const r = importOtel(JSON.stringify(raw), { fileName: "edited.json" });
    expect(r.cases[0].referenceLabels).toHaveLength(1);
    expect(r.cases[0].referenceLabels[0]).toMatchObject({ annotator: "user_42", extra: { name: "toxicity" } });
    expect(((r.cases[0].source as OtelBundleSource).scores as Array<{ name: string }>).map((s) => s.name)).toEqual(["hallucination"]);
  });
});

describe("OTLP/JSON fixtures", () => {
  const oiText = read(path.join(FIXTURES, "otlp-openinference.json"));
  const gaText = read(path.join(FIXTURES, "otlp-genai.json"));

  test("OpenInference file holds two traces: two cases, ids otlp/<traceId>", () => {
    const r = importOtel(oiText, { fileName: "otlp-openinference.json" });
    expect(r.failures).toEqual([]);
    expect(r.cases.map((c) => c.bundle.id)).toEqual([
      "otlp/fee618f96dc31e0ca38b2f7b26eb8b29",
      "otlp/3c9e1f0a7b2d4e6f8a1b2c3d4e5f6a7b",
    ]);
    expect(r.cases.map((c) => c.source.recordKey)).toEqual([
      "fee618f96dc31e0ca38b2f7b26eb8b29",
      "3c9e1f0a7b2d4e6f8a1b2c3d4e5f6a7b",
    ]);
    expect(r.cases[0].source.traceSha256).not.toBe(r.cases[1].source.traceSha256);
    for (const c of r.cases) {
      expect(c.source.dataset).toBe("otlp");
      expect(c.bundle.graph.nodes).toHaveLength(7);
      expect(c.bundle.config.mas).toBe("openai-agents");
      expect(c.bundle.records.map((x) => x.boundary)).toEqual(["llm", "tool", "llm"]);
      expect(validateBundle(JSON.parse(JSON.stringify(c.bundle))).ok).toBe(true);
    }
  });

  test("trace 1 (converted from the openai-agents sample) maps exactly like its Langfuse export", () => {
    const otlp = importOtel(oiText, { fileName: "otlp-openinference.json" }).cases[0].bundle;
    const lf = importOne("openai-agents-2025-09-30.trace.json").bundle;
    expect(otlp.order).toEqual(lf.order);
    expect(otlp.graph.nodes.map((n) => [n.type, n.agent, n.label])).toEqual(lf.graph.nodes.map((n) => [n.type, n.agent, n.label]));
    expect(edgeSet(otlp)).toEqual(edgeSet(lf));
    expect(otlp.records.map((r) => r.requestHash)).toEqual(lf.records.map((r) => r.requestHash));
  });

  test("error status on a tool span: tool_call and tool_result get status error with {type, message}", () => {
    const b = importOtel(oiText, { fileName: "otlp-openinference.json" }).cases[1].bundle;
    const call = node(b, "tool_call_0003");
    expect(call.status).toBe("error");
    expect(call.error).toEqual({ type: "ValueError", message: "ValueError: Unknown city: Atlantis" });
    expect((call.content as Content).status).toEqual({ code: "ERROR", message: "ValueError: Unknown city: Atlantis" });
    expect((call.content as Content).events[0].name).toBe("exception");
    const res = node(b, "tool_result_0004");
    expect(res.status).toBe("error");
    expect((res.content as Content).output).toBe(
      "An error occurred while running the tool. Please try again. Error: Unknown city: Atlantis",
    );
    expect(b.records[1].meta).toMatchObject({ status: "error", callId: "call_Q3xLwS9bXh2JmP0eR7tYvNa1" });
    // The model saw the error message: data edge tool_result -> second generation.
    expect(edgeSet(b)).toContain("tool_result_0004->llm_call_0005:data");
    for (const id of ["agent_action_0000", "llm_call_0002", "llm_call_0005"]) expect(node(b, id).status ?? null).toBeNull();
  });

  test("GenAI semconv fixture: invoke_agent/chat/execute_tool mapped, gen_ai.tool.call.id data edge", () => {
    const r = importOtel(gaText, { fileName: "otlp-genai.json" });
    expect(r.failures).toEqual([]);
    expect(r.cases).toHaveLength(1);
    const b = r.cases[0].bundle;
    expect(b.id).toBe("otlp/8e419d3288419b5d944270505640e183");
    expect(b.graph.nodes.map((n) => n.type)).toEqual(["agent_action", "llm_call", "tool_call", "tool_result", "llm_call", "final_result"]);
    expect(b.graph.nodes.map((n) => (n.content as Content).kind ?? null)).toEqual([
      "invoke_agent",
      "chat",
      "execute_tool",
      undefined,
      "chat",
      undefined,
    ].map((k) => k ?? null));
    expect(content(b, "tool_call_0002").tool).toEqual({
      name: "get_weather",
      arguments: { location: "Tokyo, Japan" },
      callId: "call_CwaJHuXTm9dmHFQPlVbqyzJ0",
      callIdSource: "attribute",
    });
    expect(content(b, "tool_result_0003").output).toBe("The weather in Tokyo, Japan is stormy with a high of 23°C.");
    expect(node(b, "llm_call_0001").agent).toBe("171105b7-59dd-49c0-9677-0b95395aa46a");
    expect(content(b, "llm_call_0001").usage).toEqual({ input: 77, output: 86, total: 163 });
    expect(content(b, "llm_call_0001").model).toBe("gpt-5-mini-2025-08-07");
    expect(content(b, "llm_call_0001").attributes["gen_ai.usage.input_tokens"]).toBe(77); // intValue -> number
    expect(b.config).toMatchObject({ mas: "microsoft-agent-framework", model: "gpt-5-mini" });
    expect(b.task.prompt).toBe("What's the weather in Tokyo?");
    expect(edgeSet(b)).toContain("llm_call_0001->tool_call_0002:data");
    expect(edgeSet(b)).toContain("tool_result_0003->llm_call_0004:data");
    expect(content(b, "final_result_0005").from).toBe("root.output");
    // Same trace as the Langfuse microsoft sample: same graph.
    const lf = importOne("microsoft-agent-2025-12-17.trace.json").bundle;
    expect(edgeSet(b)).toEqual(edgeSet(lf));
    expect(b.records.map((x) => x.requestHash)).toEqual(lf.records.map((x) => x.requestHash));
  });
});

describe("errors are reported with where and a JSON path, never thrown", () => {
  type OtlpDoc = { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
  const oi = (): OtlpDoc => JSON.parse(read(path.join(FIXTURES, "otlp-openinference.json")));
  const spans = (v: OtlpDoc) => v.resourceSpans[0].scopeSpans[0].spans;
  const TRACE2 = "3c9e1f0a7b2d4e6f8a1b2c3d4e5f6a7b";

  test("a span with a missing parent: its trace imports, the span is an extra root marked with the path", () => {
    const v = oi();
    const i = spans(v).findIndex((s) => s.spanId === "e85b0c6d2a7f1394");
    expect(i).toBe(3);
    spans(v)[i].parentSpanId = "deadbeefdeadbeef";
    const r = importOtel(JSON.stringify(v), { fileName: "broken.json" });
    expect(r.failures).toEqual([]);
    expect(r.cases.map((c) => c.bundle.id)).toEqual(["otlp/fee618f96dc31e0ca38b2f7b26eb8b29", `otlp/${TRACE2}`]);
    const c = r.cases[1];
    expect(c.warnings).toEqual([
      {
        kind: "parent-not-in-trace",
        path: "$.resourceSpans[0].scopeSpans[0].spans[3].parentSpanId",
        message: `span e85b0c6d2a7f1394: parent span deadbeefdeadbeef is not in trace ${TRACE2}: imported as an extra root`,
      },
    ]);
    const orphan = c.bundle.graph.nodes.find((n) => n.type !== "tool_result" && (n.content as Content).spanId === "e85b0c6d2a7f1394")!;
    expect((orphan.content as Content).importWarnings).toEqual(["parent not in trace: deadbeefdeadbeef"]);
    expect((orphan.content as Content).parentSpanId).toBe("deadbeefdeadbeef");
    expect(c.bundle.graph.edges.filter((e) => e.to === orphan.id && e.kind === "control")).toEqual([]);
  });

  test("a parent cycle is broken at one span (a marked root); the trace imports", () => {
    const v = oi();
    const root = spans(v).find((s) => s.spanId === "7f3a9c2e1b4d6a80")!;
    root.parentSpanId = "2b6e8d4f0a1c3e57"; // Hello world's parent is the root: now a 2-cycle
    const r = importOtel(JSON.stringify(v), { fileName: "cycle.json" });
    expect(r.failures).toEqual([]);
    expect(r.cases).toHaveLength(2);
    const w = r.cases.flatMap((c) => c.warnings ?? []);
    expect(w).toHaveLength(1);
    expect(w[0].kind).toBe("parent-cycle");
    expect(w[0].message).toMatch(/parent chain forms a cycle/);
    expect(w[0].path).toMatch(/^\$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[(8|9)\]\.parentSpanId$/);
  });

  test("bad times: an unparseable start still fails the trace; an end before start is only flagged", () => {
    const v = oi();
    const s5 = spans(v)[5];
    s5.endTimeUnixNano = "1759223000000000000";
    const s1 = spans(v)[1];
    s1.startTimeUnixNano = "yesterday";
    const r = importOtel(JSON.stringify(v), { fileName: "times.json" });
    // Both broken spans belong to trace 1 (the openai-agents conversion): trace 2 still imports.
    expect(r.cases.map((c) => c.bundle.id)).toEqual([`otlp/${TRACE2}`]);
    expect(r.failures.map((f) => f.where)).toEqual(["times.json#traceId=fee618f96dc31e0ca38b2f7b26eb8b29"]);
    const paths = r.failures.flatMap((f) => f.errors.map((e) => e.path)).sort();
    expect(paths).toEqual(["$.resourceSpans[0].scopeSpans[0].spans[1].startTimeUnixNano"]);
    s1.startTimeUnixNano = "1759223040100000000";
    const r2 = importOtel(JSON.stringify(v), { fileName: "times.json" });
    expect(r2.failures).toEqual([]);
    expect(r2.cases[0].warnings!.map((w) => [w.kind, w.path])).toEqual([["clock-skew", "$.resourceSpans[0].scopeSpans[0].spans[5].endTimeUnixNano"]]);
  });

  test("a span without traceId is a file-level failure; the traces still import", () => {
    const v = oi();
    delete spans(v)[0].traceId;
    const r = importOtel(JSON.stringify(v), { fileName: "notrace.json" });
    expect(r.failures[0]).toEqual({
      where: "notrace.json",
      errors: [
        {
          path: "$.resourceSpans[0].scopeSpans[0].spans[0].traceId",
          message: "traceId is missing or not a string; span cannot be placed in a trace",
        },
      ],
    });
    // Trace 1 lost its first generation (the one that emitted call_id): one node fewer, and the
    // tool's call id can no longer be inferred, so only the containment/sequence edges remain.
    expect(r.cases).toHaveLength(2);
    const b = r.cases[0].bundle;
    expect(b.graph.nodes.map((n) => n.type)).toEqual(["agent_action", "agent_action", "tool_call", "tool_result", "llm_call", "final_result"]);
    expect(content(b, "tool_call_0002").tool.callId).toBeNull();
    expect(b.graph.edges.filter((e) => e.kind === "data").map((e) => `${e.from}->${e.to}`)).toEqual([
      "tool_call_0002->tool_result_0003",
      "llm_call_0004->final_result_0005",
    ]);
  });

  test("a child starting before its parent is ordered at the parent's start (kept, with a note)", () => {
    const v = oi();
    const gen = spans(v).find((s) => s.spanId === "c41d7e9a3f2b8065")!;
    gen.startTimeUnixNano = "1759223041000000000"; // 200 ms before its parent
    const r = importOtel(JSON.stringify(v), { fileName: "skew.json" });
    expect(r.failures).toEqual([]);
    const c = r.cases[1];
    expect(c.bundle.order.slice(0, 3)).toEqual(["agent_action_0000", "agent_action_0001", "llm_call_0002"]);
    expect(c.source.notes).toContain("1 span(s) start before their parent: ordered at the parent's start");
  });

  test("Langfuse: a missing parent is named at $.observations[i].parentObservationId; an all-zero parent is a root", () => {
    const raw = JSON.parse(read(path.join(LANGFUSE_DIR, "openai-agents-2025-09-30.trace.json")));
    raw.observations[4].parentObservationId = "0000000000000000";
    raw.trace.observations = [];
    const r = importOtel(JSON.stringify(raw), { fileName: "lf.json" });
    expect(r.failures).toEqual([]);
    expect(r.cases[0].warnings!.map((w) => [w.kind, w.path])).toEqual([["zero-parent-id", "$.observations[4].parentObservationId"]]);
    raw.observations[4].parentObservationId = "abcdef0123456789";
    const r2 = importOtel(JSON.stringify(raw), { fileName: "lf.json" });
    expect(r2.failures).toEqual([]);
    expect(r2.cases[0].warnings).toEqual([
      {
        kind: "parent-not-in-trace",
        path: "$.observations[4].parentObservationId",
        message: "span 5b99c3e3411ed17b: parent span abcdef0123456789 is not in trace fee618f96dc31e0ca38b2f7b26eb8b29: imported as an extra root",
      },
    ]);
  });

  test("non-JSON: one failure naming line and column", () => {
    const r = importOtel('{\n  "resourceSpans": [\n    { oops }\n  ]\n}', { fileName: "bad.json" });
    expect(r.cases).toEqual([]);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0].where).toBe("bad.json");
    expect(r.failures[0].errors[0].message).toMatch(/line 3, column 7/);
  });

  test("truncated file and unknown shape", () => {
    const t = importOtel(read(path.join(FIXTURES, "otlp-genai.json")).slice(0, 500), { fileName: "cut.json" });
    expect(t.failures[0].errors[0].message).toMatch(/truncated/);
    const u = importOtel('{"hello": 1}', { fileName: "x.json" });
    expect(u.failures).toEqual([
      {
        where: "x.json",
        errors: [
          {
            path: "$",
            message:
              "not an OpenTelemetry trace: expected a Langfuse trace export {trace, observations} or OTLP/JSON {resourceSpans: [...]}",
          },
        ],
      },
    ]);
  });
});

describe("detection and helpers", () => {
  test("isLangfuseTraceExport / isOtlpJson", () => {
    const lf = JSON.parse(read(path.join(LANGFUSE_DIR, sampleFiles[0])));
    const ot = JSON.parse(read(path.join(FIXTURES, "otlp-genai.json")));
    expect(isLangfuseTraceExport(lf)).toBe(true);
    expect(isOtlpJson(lf)).toBe(false);
    expect(isOtlpJson(ot)).toBe(true);
    expect(isLangfuseTraceExport(ot)).toBe(false);
    for (const v of [null, [], "x", { trace: {} }, { resourceSpans: {} }]) {
      expect(isLangfuseTraceExport(v)).toBe(false);
      expect(isOtlpJson(v)).toBe(false);
    }
  });

  test("unwrapJson decodes triple-encoded JSON and leaves plain text alone", () => {
    const triple = JSON.stringify(JSON.stringify(JSON.stringify({ a: [1] })));
    expect(unwrapJson(triple)).toEqual({ value: { a: [1] }, depth: 3 });
    expect(unwrapJson("The weather in Tokyo is sunny.")).toEqual({ value: "The weather in Tokyo is sunny.", depth: 0 });
    expect(unwrapJson("[1] is not [json")).toEqual({ value: "[1] is not [json", depth: 0 });
  });

  test("unflattenIndexed nests indexed keys and keeps the others flat", () => {
    expect(
      unflattenIndexed({
        "llm.model_name": "m",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.0.message.tool_calls.1.tool_call.id": "c2",
      }),
    ).toEqual({
      "llm.model_name": "m",
      "llm.input_messages": [{ message: { tool_calls: [null, { tool_call: { id: "c2" } }] } }, { message: { role: "user" } }],
    });
  });

  test("normalizeMessages reads pydantic-ai choice events", () => {
    expect(normalizeMessages({ index: 0, message: { role: "assistant", content: "hi" }, "event.name": "gen_ai.choice" }, "assistant")).toEqual([
      { role: "assistant", content: "hi" },
    ]);
  });
});
