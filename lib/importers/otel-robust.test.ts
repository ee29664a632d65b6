/**
 * Imperfect OTel input (issue 10 items 3, 4, 5, 7, 8, 11): duplicate span ids, orphans, skewed and
 * open spans, links, tool-call arguments that are not a JSON object, nanosecond times and int64
 * attributes, deep parent chains. Every input here is hand-written OTLP/JSON or a Langfuse export.
 */
import { describe, expect, test } from "vitest";
import type { ReplayBundle } from "../bundle";
import { importOtel } from "./otel";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Content = Record<string, any>;
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const T0 = 1_700_000_000_000_000_000n;

interface SpanSpec {
  id: string;
  parent?: string;
  name?: string;
  start?: bigint | string | null;
  end?: bigint | string | null;
  attrs?: Record<string, unknown>;
  status?: { code: number; message?: string };
  links?: Array<{ traceId: string; spanId: string }>;
}

const attr = (key: string, v: unknown) =>
  typeof v === "string"
    ? { key, value: { stringValue: v } }
    : typeof v === "number" || typeof v === "bigint"
      ? { key, value: { intValue: String(v) } }
      : { key, value: { boolValue: v } };

function span(s: SpanSpec): Record<string, unknown> {
  const o: Record<string, unknown> = {
    traceId: TRACE,
    spanId: s.id,
    parentSpanId: s.parent ?? "",
    name: s.name ?? `span ${s.id}`,
    kind: 1,
    attributes: Object.entries(s.attrs ?? {}).map(([k, v]) => attr(k, v)),
    status: s.status ?? { code: 1 },
  };
  if (s.start !== null) o.startTimeUnixNano = String(s.start ?? T0);
  if (s.end !== null) o.endTimeUnixNano = String(s.end ?? (typeof s.start === "bigint" ? s.start : T0) + 1_000_000n);
  if (s.links) o.links = s.links;
  return o;
}

const otlp = (spans: Array<Record<string, unknown>>) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "test-scope" }, spans }] }] });

function importOk(text: string) {
  const r = importOtel(text, { fileName: "t.json" });
  expect(r.failures).toEqual([]);
  expect(r.cases).toHaveLength(1);
  return r.cases[0];
}
/** The span's own node (its tool_result, which also names the span, excluded). */
const bySpan = (b: ReplayBundle, spanId: string) =>
  b.graph.nodes.filter((n) => n.type !== "tool_result" && (n.content as Content).spanId === spanId);
const one = (b: ReplayBundle, spanId: string) => {
  const ns = bySpan(b, spanId);
  expect(ns).toHaveLength(1);
  return ns[0];
};

describe("item 3: duplicate span ids", () => {
  test("a failed attempt and its successful retry sharing one id are both kept, with a warning naming both paths", () => {
    const root = span({ id: "a000000000000001", name: "agent" });
    const failed = span({ id: "b000000000000002", parent: "a000000000000001", name: "call", status: { code: 2, message: "timeout" } });
    const retry = span({ id: "b000000000000002", parent: "a000000000000001", name: "call", start: T0 + 5_000_000n });
    const c = importOk(otlp([root, failed, retry]));
    const ns = bySpan(c.bundle, "b000000000000002");
    expect(ns).toHaveLength(2);
    expect(new Set(ns.map((n) => n.id)).size).toBe(2);
    expect(ns.map((n) => n.status ?? null).sort()).toEqual(["error", null].sort());
    const w = c.warnings!.filter((x) => x.kind === "duplicate-span-id-conflict");
    expect(w).toHaveLength(1);
    expect(w[0].message).toContain("$.resourceSpans[0].scopeSpans[0].spans[1]");
    expect(w[0].message).toContain("$.resourceSpans[0].scopeSpans[0].spans[2]");
    // The second copy has a deterministic distinct internal id, shown in its content.
    const second = ns.find((n) => (n.content as Content).duplicateOf);
    expect((second!.content as Content).duplicateOf).toEqual({ spanId: "b000000000000002", copy: 2, firstAt: "$.resourceSpans[0].scopeSpans[0].spans[1]" });
  });

  test("byte-identical re-exports are deduplicated and counted", () => {
    const root = span({ id: "a000000000000001" });
    const child = span({ id: "c000000000000003", parent: "a000000000000001" });
    const c = importOk(otlp([root, child, child, child]));
    expect(bySpan(c.bundle, "c000000000000003")).toHaveLength(1);
    expect(c.warnings!.filter((x) => x.kind === "duplicate-span-identical")).toHaveLength(2);
  });

  test("Langfuse: two different top-level observations with one id are both kept", () => {
    const obs = (extra: Record<string, unknown>) => ({
      id: "obs-1",
      traceId: "t1",
      type: "SPAN",
      name: "step",
      startTime: "2025-01-01T00:00:00.000Z",
      endTime: "2025-01-01T00:00:01.000Z",
      metadata: "{}",
      ...extra,
    });
    const text = JSON.stringify({ trace: { id: "t1", name: "x" }, observations: [obs({ level: "ERROR" }), obs({ level: "DEFAULT", startTime: "2025-01-01T00:00:02.000Z", endTime: "2025-01-01T00:00:03.000Z" })] });
    const c = importOk(text);
    expect(bySpan(c.bundle, "obs-1")).toHaveLength(2);
    expect(c.warnings!.find((x) => x.kind === "duplicate-span-id-conflict")!.message).toContain("$.observations[1]");
  });
});

describe("item 4: one imperfect span never rejects the trace", () => {
  test("a parent id naming a span never exported: the subtree becomes an extra root, marked", () => {
    const c = importOk(
      otlp([
        span({ id: "a000000000000001" }),
        span({ id: "d000000000000004", parent: "ffffffffffffffff" }),
        span({ id: "e000000000000005", parent: "d000000000000004" }),
      ]),
    );
    const orphan = one(c.bundle, "d000000000000004");
    expect((orphan.content as Content).importWarnings).toEqual(["parent not in trace: ffffffffffffffff"]);
    expect(c.bundle.graph.edges.some((e) => e.to === orphan.id && e.kind === "control" && e.from === one(c.bundle, "a000000000000001").id)).toBe(false);
    expect(c.bundle.graph.edges).toContainEqual({ from: orphan.id, to: one(c.bundle, "e000000000000005").id, kind: "control" });
    expect(c.warnings!.filter((w) => w.kind === "parent-not-in-trace").map((w) => w.path)).toEqual(["$.resourceSpans[0].scopeSpans[0].spans[1].parentSpanId"]);
  });

  test("all-zero and empty parent ids mean root", () => {
    const c = importOk(otlp([span({ id: "a000000000000001", parent: "0000000000000000" }), span({ id: "b000000000000002", parent: "" })]));
    expect((one(c.bundle, "a000000000000001").content as Content).parentSpanId).toBeNull();
    expect((one(c.bundle, "a000000000000001").content as Content).importWarnings).toBeUndefined();
    expect(c.warnings!.filter((w) => w.kind === "zero-parent-id")).toHaveLength(1);
  });

  test("end before start is drawn zero-width and flagged; end 0 and no end are 'not ended'", () => {
    const c = importOk(
      otlp([
        span({ id: "a000000000000001", start: T0, end: T0 + 10_000_000n }),
        span({ id: "b000000000000002", parent: "a000000000000001", start: T0 + 2_000n, end: T0 + 1_000n }),
        span({ id: "c000000000000003", parent: "a000000000000001", start: T0 + 3_000n, end: "0" }),
        span({ id: "d000000000000004", parent: "a000000000000001", start: T0 + 4_000n, end: null }),
      ]),
    );
    const skew = one(c.bundle, "b000000000000002").content as Content;
    expect(skew.durationNs).toBe("0");
    expect(skew.importWarnings[0]).toMatch(/^clock skew: end time .* before start time/);
    for (const id of ["c000000000000003", "d000000000000004"]) {
      const k = one(c.bundle, id).content as Content;
      expect(k.importWarnings).toEqual(["not ended"]);
      expect(k.durationNs).toBe("0");
    }
    const kinds = c.warnings!.map((w) => w.kind).sort();
    expect(kinds).toEqual(["clock-skew", "not-ended", "not-ended"]);
  });

  test("span links never become parent edges; a link to a span not in the trace is an unresolved reference", () => {
    const c = importOk(
      otlp([
        span({ id: "a000000000000001" }),
        span({ id: "b000000000000002", start: T0 + 5_000_000n, links: [{ traceId: TRACE, spanId: "a000000000000001" }, { traceId: TRACE, spanId: "9999999999999999" }] }),
      ]),
    );
    const a = one(c.bundle, "a000000000000001");
    const b = one(c.bundle, "b000000000000002");
    const links = (b.content as Content).links;
    expect(links).toEqual([
      { traceId: TRACE, spanId: "a000000000000001", nodeId: a.id },
      { traceId: TRACE, spanId: "9999999999999999", nodeId: null, unresolved: true },
    ]);
    expect((b.content as Content).importWarnings).toEqual(["unresolved link: span 9999999999999999 not in trace"]);
    expect((b.content as Content).parentSpanId).toBeNull();
    expect(c.warnings!.filter((w) => w.kind === "unresolved-link")).toHaveLength(1);
  });

  test("a parent cycle is broken at one span, which becomes a marked root", () => {
    const c = importOk(otlp([span({ id: "a000000000000001", parent: "b000000000000002" }), span({ id: "b000000000000002", parent: "a000000000000001" })]));
    expect(c.bundle.graph.nodes).toHaveLength(3);
    expect(c.warnings!.filter((w) => w.kind === "parent-cycle")).toHaveLength(1);
  });
});

describe("item 5: tool-call arguments that are not a JSON object", () => {
  const cases: Array<[string, string, string | null]> = [
    ["a JSON string literal", '"Paris"', "not an object"],
    ["truncated JSON", '{"city": "Par', "not valid JSON"],
    ["a Python repr", "{'city': 'Paris'}", "not valid JSON"],
    ["an empty string", "", "not valid JSON"],
    ["a JSON object", '{"city":"Paris"}', null],
  ];
  test("every call is a node; the raw text is kept verbatim and tagged (OpenInference tool spans)", () => {
    const spans = [span({ id: "a000000000000001", attrs: { "openinference.span.kind": "AGENT" } })];
    cases.forEach(([, raw], i) =>
      spans.push(
        span({
          id: `b00000000000001${i}`,
          parent: "a000000000000001",
          start: T0 + BigInt(i + 1) * 10_000_000n,
          attrs: { "openinference.span.kind": "TOOL", "tool.name": "get_weather", "input.value": raw, "output.value": "sunny" },
        }),
      ),
    );
    const c = importOk(otlp(spans));
    expect(c.bundle.graph.nodes.filter((n) => n.type === "tool_call")).toHaveLength(cases.length);
    cases.forEach(([, raw, tag], i) => {
      const n = one(c.bundle, `b00000000000001${i}`);
      const tool = (n.content as Content).tool;
      if (tag === null) {
        expect(tool.arguments).toEqual({ city: "Paris" });
        expect(tool.argumentsNote).toBeUndefined();
      } else {
        expect(tool.arguments).toBe(raw);
        expect(tool.argumentsNote).toBe(tag);
      }
      const rec = c.bundle.records.find((r) => r.nodeId === n.id)!;
      expect((rec.request as Content).arguments).toEqual(tag === null ? { city: "Paris" } : raw);
    });
    expect(c.warnings!.filter((w) => w.kind === "tool-arguments-not-object")).toHaveLength(4);
  });

  test("GenAI tool spans and LLM output tool calls keep raw arguments with the tag", () => {
    const c = importOk(
      otlp([
        span({
          id: "a000000000000001",
          attrs: {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "weather?" }] }]),
            "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "w", arguments: '"Paris"' }] }]),
          },
        }),
        span({ id: "b000000000000002", start: T0 + 5_000_000n, attrs: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "w", "gen_ai.tool.call.id": "c1", "gen_ai.tool.call.arguments": '"Paris"' } }),
      ]),
    );
    const tool = (one(c.bundle, "b000000000000002").content as Content).tool;
    expect(tool.arguments).toBe('"Paris"');
    expect(tool.argumentsNote).toBe("not an object");
    const out = (one(c.bundle, "a000000000000001").content as Content).messages.output[0].tool_calls[0];
    expect(out).toEqual({ id: "c1", name: "w", arguments: '"Paris"', argumentsNote: "not an object" });
  });

  test("Langfuse TOOL observations: a Python repr and a truncated input are kept verbatim and tagged", () => {
    const obs = (id: string, input: string, t: number) => ({
      id,
      traceId: "t1",
      type: "TOOL",
      name: "get_weather",
      startTime: `2025-01-01T00:00:0${t}.000Z`,
      endTime: `2025-01-01T00:00:0${t}.500Z`,
      metadata: "{}",
      input,
      output: '"sunny"',
    });
    const c = importOk(JSON.stringify({ trace: { id: "t1" }, observations: [obs("o1", "{'city': 'Paris'}", 1), obs("o2", '{"city": "Pa', 2), obs("o3", '{"city": "Paris"}', 3)] }));
    expect(c.bundle.graph.nodes.filter((n) => n.type === "tool_call")).toHaveLength(3);
    expect((one(c.bundle, "o1").content as Content).tool).toMatchObject({ arguments: "{'city': 'Paris'}", argumentsNote: "not valid JSON" });
    expect((one(c.bundle, "o2").content as Content).tool).toMatchObject({ arguments: '{"city": "Pa', argumentsNote: "not valid JSON" });
    expect((one(c.bundle, "o3").content as Content).tool.arguments).toEqual({ city: "Paris" });
  });

  test("OpenInference flattened tool-call arguments in LLM output: a string literal is not decoded", () => {
    const c = importOk(
      otlp([
        span({
          id: "a000000000000001",
          attrs: {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "hi",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "w",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '"Paris"',
            "output.value": "x",
          },
        }),
      ]),
    );
    const tc = (one(c.bundle, "a000000000000001").content as Content).messages.output[0].tool_calls[0];
    expect(tc.arguments).toBe('"Paris"');
    expect(tc.argumentsNote).toBe("not an object");
  });
});

describe("item 7: nanosecond timestamps and int64 attributes", () => {
  test("a 110 ns span shows 110 ns, exact", () => {
    const c = importOk(otlp([span({ id: "a000000000000001", start: T0 + 7n, end: T0 + 117n })]));
    const k = one(c.bundle, "a000000000000001").content as Content;
    expect(k.durationNs).toBe("110");
    expect(k.duration).toBe("110 ns");
    expect(k.startTime).toBe(String(T0 + 7n));
  });

  test("int64 attributes keep every digit (string intValue, number intValue, Langfuse metadata)", () => {
    const big = "9007199254740993123";
    const text = otlp([span({ id: "a000000000000001", attrs: { "app.big": big } })]).replace(`{"stringValue":"${big}"}`, `{"intValue":${big}}`);
    expect(text).toContain(`{"intValue":${big}}`);
    const c = importOk(text);
    expect((one(c.bundle, "a000000000000001").content as Content).attributes["app.big"]).toBe(big);
    const c2 = importOk(otlp([span({ id: "a000000000000001", attrs: { "llm.invocation_parameters": `{"seed": ${big}}` } })]));
    expect((one(c2.bundle, "a000000000000001").content as Content).attributes["llm.invocation_parameters"]).toEqual({ seed: big });
    const lf = JSON.stringify({
      trace: { id: "t1" },
      observations: [{ id: "o1", type: "SPAN", startTime: "2025-01-01T00:00:00.000Z", endTime: "2025-01-01T00:00:00.001Z", metadata: `{"attributes": {"x": ${big}}}` }],
    });
    expect((one(importOk(lf).bundle, "o1").content as Content).attributes.x).toBe(big);
  });

  test("unix-nano times given as JSON numbers keep every digit", () => {
    const text = otlp([span({ id: "a000000000000001", start: T0 + 1n, end: T0 + 123n })])
      .replace(`"startTimeUnixNano":"${T0 + 1n}"`, `"startTimeUnixNano":${T0 + 1n}`)
      .replace(`"endTimeUnixNano":"${T0 + 123n}"`, `"endTimeUnixNano":${T0 + 123n}`);
    const k = one(importOk(text).bundle, "a000000000000001").content as Content;
    expect(k.durationNs).toBe("122");
  });
});

describe("item 8: deep parent chains import in linear time, without recursion", () => {
  for (const depth of [6_000, 50_000]) {
    test(`a ${depth}-deep span chain imports with ${depth + 1} nodes and ${depth} edges`, () => {
      const spans: Array<Record<string, unknown>> = [];
      for (let i = 0; i < depth; i++) {
        spans.push(span({ id: (i + 1).toString(16).padStart(16, "0"), parent: i === 0 ? "" : i.toString(16).padStart(16, "0"), start: T0 + BigInt(i), end: T0 + 10_000_000n - BigInt(i) }));
      }
      const t0 = performance.now();
      const c = importOk(otlp(spans));
      const ms = performance.now() - t0;
      console.log(`bench: ${depth}-deep span chain imported in ${ms.toFixed(0)} ms`);
      expect(c.bundle.graph.nodes).toHaveLength(depth + 1);
      // depth-1 containment edges + 1 data edge into final_result
      expect(c.bundle.graph.edges.filter((e) => e.kind === "control")).toHaveLength(depth - 1);
      expect(c.bundle.graph.edges).toHaveLength(depth);
      // the depth is reported (issue 20 item 11): on the case and on the deepest span's node
      const n = depth.toLocaleString("en-US");
      const deepId = depth.toString(16).padStart(16, "0");
      expect(c.warnings!.filter((w) => w.kind === "deep-span-tree")).toEqual([
        { kind: "deep-span-tree", path: `$.resourceSpans[0].scopeSpans[0].spans[${depth - 1}].parentSpanId`, message: `span tree is ${n} levels deep (deepest span ${deepId}); more than 100 levels` },
      ]);
      expect((one(c.bundle, deepId).content as Content).importWarnings).toEqual([`span tree depth ${n}: deepest span`]);
    }, 120_000);
  }
});

describe("item 11: errors name the innermost path", () => {
  test("a lone surrogate in one span attribute is reported at that attribute's path", () => {
    const text = otlp([span({ id: "a000000000000001", attrs: { "app.note": "ok" } })]).replace('"stringValue":"ok"', '"stringValue":"bad \\ud800 here"');
    const r = importOtel(text, { fileName: "t.json" });
    expect(r.cases).toHaveLength(0);
    expect(r.failures[0].errors[0].path).toBe("$.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.stringValue");
    expect(r.failures[0].errors[0].message).toMatch(/lone UTF-16 surrogate/);
  });
});

describe("issue 20 item 10: every tool call named in an assistant message is a tool_call node", () => {
  // Five calls in one LLM output, none with JSON-object arguments; the framework ran only two of
  // them (it refuses arguments it cannot parse), so only two TOOL spans exist.
  const raws = ['"Paris"', '{"city": "Par', "{'city': 'Paris'}", "", "[1, 2]"];
  const notes = ["not an object", "not valid JSON", "not valid JSON", "not valid JSON", "not an object"];
  const output = JSON.stringify({
    choices: [{ message: { role: "assistant", content: null, tool_calls: raws.map((a, i) => ({ id: `c${i + 1}`, type: "function", function: { name: "get_weather", arguments: a } })) } }],
  });
  const spans = [
    span({ id: "a000000000000001", name: "agent", start: T0, end: T0 + 100_000_000n, attrs: { "openinference.span.kind": "AGENT" } }),
    span({
      id: "b000000000000002",
      parent: "a000000000000001",
      name: "chat",
      start: T0 + 1_000_000n,
      end: T0 + 10_000_000n,
      attrs: { "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify([{ role: "user", content: "weather?" }]), "output.value": output },
    }),
    ...[0, 1].map((i) =>
      span({
        id: `c00000000000000${i + 3}`,
        parent: "a000000000000001",
        name: "execute_tool get_weather",
        start: T0 + BigInt(20 + 10 * i) * 1_000_000n,
        end: T0 + BigInt(25 + 10 * i) * 1_000_000n,
        attrs: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": `c${i + 1}`, "gen_ai.tool.call.arguments": raws[i] },
      }),
    ),
    // the next generation sees the framework's error for c3 in place of a result
    span({
      id: "d000000000000005",
      parent: "a000000000000001",
      name: "chat",
      start: T0 + 50_000_000n,
      end: T0 + 60_000_000n,
      attrs: {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": JSON.stringify([
          { role: "user", content: "weather?" },
          { role: "tool", tool_call_id: "c3", content: "error: arguments are not valid JSON" },
        ]),
        "output.value": "sorry",
      },
    }),
  ];

  test("5 calls with non-JSON arguments, 2 run: 5 tool_call nodes; the 3 not run hold the raw argument text verbatim", () => {
    const c = importOk(otlp(spans));
    const calls = c.bundle.graph.nodes.filter((n) => n.type === "tool_call");
    expect(calls).toHaveLength(5);
    const llm = one(c.bundle, "b000000000000002");
    const unrun = calls.filter((n) => (n.content as Content).executed === false);
    expect(unrun.map((n) => (n.content as Content).tool.callId)).toEqual(["c3", "c4", "c5"]);
    unrun.forEach((n, k) => {
      const tool = (n.content as Content).tool;
      expect(tool).toEqual({ name: "get_weather", arguments: raws[k + 2], argumentsNote: notes[k + 2], callId: `c${k + 3}`, callIdSource: "message" });
      expect(typeof tool.arguments).toBe("string"); // never a decoded value ("[1, 2]" stays text)
      expect((n.content as Content).namedBy).toEqual({ nodeId: llm.id, spanId: "b000000000000002", message: 0, call: k + 2 });
      expect(c.bundle.graph.edges).toContainEqual({ from: llm.id, to: n.id, kind: "data" });
      // right after the LLM, before the tool spans that ran
      expect(c.bundle.order.indexOf(n.id)).toBeGreaterThan(c.bundle.order.indexOf(llm.id));
      expect(c.bundle.order.indexOf(n.id)).toBeLessThan(c.bundle.order.indexOf(one(c.bundle, "c000000000000003").id));
      // no tool ran it: no boundary record
      expect(c.bundle.records.some((r) => r.nodeId === n.id)).toBe(false);
    });
    // the ones that ran are their spans' nodes, with their raw text
    expect((one(c.bundle, "c000000000000003").content as Content).tool).toMatchObject({ arguments: '"Paris"', callId: "c1", callIdSource: "attribute" });
    // c3's error answer feeds the next generation
    expect(c.bundle.graph.edges).toContainEqual({ from: unrun[0].id, to: one(c.bundle, "d000000000000005").id, kind: "data" });
    expect(c.source.notes).toContain("3 tool call(s) named in an LLM's output with no tool span that ran them: each is a tool_call node (executed: false) after its LLM");
    expect(c.warnings!.filter((w) => w.kind === "tool-arguments-not-object" && w.path === "$.resourceSpans[0].scopeSpans[0].spans[1]")).toHaveLength(3);
  });

  test("OpenInference calls without ids: a call matched by name and arguments to a tool span is not doubled", () => {
    const c = importOk(
      otlp([
        span({
          id: "a000000000000001",
          start: T0,
          end: T0 + 5_000_000n,
          attrs: {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "hi",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "w",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{'city': 'Paris'}",
            "llm.output_messages.0.message.tool_calls.1.tool_call.function.name": "w",
            "llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments": '{"city": "Rome"}',
            "output.value": "x",
          },
        }),
        span({ id: "b000000000000002", start: T0 + 6_000_000n, attrs: { "openinference.span.kind": "TOOL", "tool.name": "w", "input.value": '{"city": "Rome"}', "output.value": "sunny" } }),
      ]),
    );
    const calls = c.bundle.graph.nodes.filter((n) => n.type === "tool_call");
    expect(calls).toHaveLength(2);
    const unrun = calls.find((n) => (n.content as Content).executed === false)!;
    expect((unrun.content as Content).tool).toEqual({ name: "w", arguments: "{'city': 'Paris'}", argumentsNote: "not valid JSON", callId: null, callIdSource: null });
    expect(unrun.label).toBe("w({'city': 'Paris'}) · not run");
  });
});
