/**
 * The OTLP/HTTP receiver behind a node http server (the same receiveOtlpTraces as the app's
 * route handlers), on a fresh migrated test database: refusals write nothing, protobuf / JSON /
 * gzip / partial success, out-of-order batches assembled into `otlp/<traceId>`, a late span
 * updating the case, and the assembled case equal to the file import of the same spans.
 */
import { createServer, type Server } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshTestDb } from "../db/test-db";
import { bundleHash, claimOtlpTrace, createApiKey, exportBundle, getOtlpTraceState, otlpIngestCounts, releaseOtlpClaim, revokeApiKey, type Db } from "../db";
import { importOtel } from "../importers";
import { decodeExportResponse, encodeProtobufRequest } from "../otlp/codec";
import { otlpNodeHandler } from "./otlp-receiver";
import { assembleDueOtlpTraces, OTLP_LIVE_FILE, startOtlpAssembler } from "./otlp-assembler";

const PORT = 4711; // this worktree's port range (4700-4799)
const MAX = 64 * 1024;
let db: Db;
let server: Server;
let key: string;
const url = (p = "/v1/traces") => `http://127.0.0.1:${PORT}${p}`;

type Span = Record<string, unknown>;
const TRACE = "5b8efff798038103d269b633813fc60c";
const T0 = 1_767_000_000_000_000_000n;
const ns = (ms: number) => String(T0 + BigInt(ms) * 1_000_000n);
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

/** A small OpenInference agent run: root CHAIN → AGENT → LLM (tool call) → TOOL → LLM (answer). */
function runSpans(traceId = TRACE): Span[] {
  const sp = (id: string, parent: string, name: string, kind: string, a: number, b: number, attrs: Array<{ key: string; value: unknown }> = []): Span => ({
    traceId,
    spanId: id,
    parentSpanId: parent,
    name,
    kind: 1,
    startTimeUnixNano: ns(a),
    endTimeUnixNano: ns(b),
    attributes: [str("openinference.span.kind", kind), ...attrs],
    status: { code: 1 },
  });
  return [
    sp("a000000000000001", "", "workflow", "CHAIN", 0, 100, [str("input.value", "What is 6*7?")]),
    sp("a000000000000002", "a000000000000001", "Solver", "AGENT", 1, 99),
    sp("a000000000000003", "a000000000000002", "ChatCompletion", "LLM", 2, 20, [
      str("llm.model_name", "scripted-model"),
      str("llm.input_messages.0.message.role", "user"),
      str("llm.input_messages.0.message.content", "What is 6*7?"),
      str("llm.output_messages.0.message.role", "assistant"),
      str("llm.output_messages.0.message.tool_calls.0.tool_call.id", "call_1"),
      str("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "calculator"),
      str("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", '{"expression":"6*7"}'),
    ]),
    sp("a000000000000004", "a000000000000002", "calculator", "TOOL", 21, 30, [str("tool.name", "calculator"), str("input.value", '{"expression":"6*7"}'), str("output.value", "42")]),
    sp("a000000000000005", "a000000000000002", "ChatCompletion", "LLM", 31, 50, [
      str("llm.model_name", "scripted-model"),
      str("llm.input_messages.0.message.role", "user"),
      str("llm.input_messages.0.message.content", "What is 6*7?"),
      str("llm.input_messages.1.message.role", "tool"),
      str("llm.input_messages.1.message.content", "42"),
      str("llm.output_messages.0.message.role", "assistant"),
      str("llm.output_messages.0.message.content", "6*7 = 42"),
    ]),
  ];
}

const request = (spans: Span[]) => ({
  resourceSpans: [{ resource: { attributes: [str("service.name", "receiver-test")] }, scopeSpans: [{ scope: { name: "openinference.instrumentation.openai", version: "4.2.7" }, spans }] }],
});

async function post(body: Uint8Array | string, headers: Record<string, string>, path?: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const r = await fetch(url(path), { method: "POST", headers, body: body as BodyInit });
  return { status: r.status, type: r.headers.get("content-type"), bytes: Buffer.from(await r.arrayBuffer()) };
}
const proto = (k = key) => ({ "content-type": "application/x-protobuf", authorization: `Bearer ${k}` });

async function nothingStored(): Promise<void> {
  expect(await otlpIngestCounts(db)).toEqual({ spans: 0, batches: 0, traces: 0, pending: 0 });
}

beforeAll(async () => {
  ({ db } = await freshTestDb());
  key = (await createApiKey(db, { name: "receiver-test" })).key;
  server = createServer(otlpNodeHandler(db, { maxBytes: MAX }));
  await new Promise<void>((res) => server.listen(PORT, "127.0.0.1", res));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((res) => server.close(() => res()));
  await db.$disconnect();
});

describe("refusals write nothing", () => {
  it("401 without a key, with a wrong key, with a revoked key", async () => {
    const body = encodeProtobufRequest(request(runSpans()));
    const none = await post(body, { "content-type": "application/x-protobuf" });
    expect(none.status).toBe(401);
    expect(none.type).toBe("application/x-protobuf");
    expect((await post(body, proto("stk_" + "x".repeat(43)))).status).toBe(401);
    const other = await createApiKey(db, { name: "to-revoke" });
    await revokeApiKey(db, { idOrPrefix: other.apiKey.prefix });
    expect((await post(body, proto(other.key))).status).toBe(401);
    await nothingStored();
  });

  it("413 over the limit: declared, streamed, and after gunzip (a gzip bomb)", async () => {
    const big = Buffer.alloc(MAX + 1, 1);
    expect((await post(big, proto())).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(MAX * 20, 0));
    expect(bomb.length).toBeLessThan(MAX);
    expect((await post(bomb, { ...proto(), "content-encoding": "gzip" })).status).toBe(413);
    await nothingStored();
  });

  it("400 for malformed protobuf, invalid JSON, bad gzip; 415 for another content type", async () => {
    const good = encodeProtobufRequest(request(runSpans()));
    const truncated = good.subarray(0, good.length - 7);
    const r = await post(truncated, proto());
    expect(r.status).toBe(400);
    expect(r.type).toBe("application/x-protobuf");
    expect((await post("{not json", { "content-type": "application/json", authorization: `Bearer ${key}` })).status).toBe(400);
    expect((await post('{"resourceSpans": 3}', { "content-type": "application/json", authorization: `Bearer ${key}` })).status).toBe(400);
    // not an ExportTraceServiceRequest (issue 22 item 5): an object with other keys and no resourceSpans
    const hello = await post('{"hello":1}', { "content-type": "application/json", authorization: `Bearer ${key}` });
    expect(hello.status).toBe(400);
    expect(hello.bytes.toString("utf8")).toContain('no \\"resourceSpans\\"');
    expect((await post(Buffer.from("plainly not gzip"), { ...proto(), "content-encoding": "gzip" })).status).toBe(400);
    expect((await post("x", { "content-type": "text/plain", authorization: `Bearer ${key}` })).status).toBe(415);
    await nothingStored();
  });
});

describe("accepted requests", () => {
  it("protobuf + gzip, JSON, Basic auth and the /api/public/otel path all store spans; partial success counts the refused ones", async () => {
    const [s1, s2, s3, s4, s5] = runSpans("11111111111111111111111111111111");
    const gz = await post(gzipSync(encodeProtobufRequest(request([s1, s2]))), { ...proto(), "content-encoding": "gzip" });
    expect(gz.status).toBe(200);
    expect(gz.type).toBe("application/x-protobuf");
    expect(decodeExportResponse(gz.bytes)).toEqual({ rejectedSpans: 0, errorMessage: "" });

    const json = await post(JSON.stringify(request([s3])), { "content-type": "application/json", authorization: `Bearer ${key}` }, "/api/public/otel/v1/traces");
    expect(json.status).toBe(200);
    expect(JSON.parse(json.bytes.toString())).toEqual({});

    const basic = Buffer.from(`anyone:${key}`).toString("base64");
    const bad = { ...s5, spanId: "abcd1234" }; // 4 bytes, not 8
    const noStart = { ...s5, spanId: "a0000000000000ee", startTimeUnixNano: undefined };
    const partial = await post(encodeProtobufRequest(request([s4, bad, noStart])), { "content-type": "application/x-protobuf", authorization: `Basic ${basic}` });
    expect(partial.status).toBe(200);
    const ps = decodeExportResponse(partial.bytes);
    expect(ps.rejectedSpans).toBe(2);
    expect(ps.errorMessage).toContain("spans[1].spanId");
    expect(ps.errorMessage).toContain("spans[2].startTimeUnixNano");

    const jsonPartial = await post(JSON.stringify(request([{ ...s5, traceId: "zz" }])), { "content-type": "application/json", authorization: `Bearer ${key}` });
    expect(JSON.parse(jsonPartial.bytes.toString()).partialSuccess.rejectedSpans).toBe("1");

    expect(await db.otlpSpan.count({ where: { traceId: "11111111111111111111111111111111" } })).toBe(4);
    // A re-sent span (exporter retry) replaces its copy instead of adding one.
    expect((await post(encodeProtobufRequest(request([s1])), proto())).status).toBe(200);
    expect(await db.otlpSpan.count({ where: { traceId: "11111111111111111111111111111111" } })).toBe(4);
  });

  it("out-of-order batches assemble into otlp/<traceId>; a late span updates the case; the case equals the file import", async () => {
    const spans = runSpans();
    const late = spans.pop()!; // the final LLM answer comes later
    // children first, the root last, over three requests
    for (const batch of [[spans[3]], [spans[2], spans[1]], [spans[0]]]) {
      expect((await post(encodeProtobufRequest(request(batch)), proto())).status).toBe(200);
    }
    // Not idle yet: nothing is assembled.
    expect(await assembleDueOtlpTraces(db, { idleMs: 60_000, traceId: TRACE })).toEqual([]);
    const [first] = await assembleDueOtlpTraces(db, { idleMs: 0, traceId: TRACE });
    expect(first).toMatchObject({ bundleId: `otlp/${TRACE}`, status: "imported", spans: 4, stillPending: false });
    let b = (await exportBundle(db, { bundleId: `otlp/${TRACE}` }))!;
    expect(b.graph.nodes.map((n) => n.type)).toEqual(["agent_action", "agent_action", "llm_call", "tool_call", "tool_result", "final_result"]);
    expect((await getOtlpTraceState(db, `otlp/${TRACE}`))?.pending).toBe(false);

    expect((await post(encodeProtobufRequest(request([late])), proto())).status).toBe(200);
    const state = await getOtlpTraceState(db, `otlp/${TRACE}`);
    expect(state).toMatchObject({ pending: true, receivedSpans: 5, assembledSpans: 4 });
    const [second] = await assembleDueOtlpTraces(db, { idleMs: 0, traceId: TRACE });
    expect(second).toMatchObject({ status: "replaced", spans: 5 });
    b = (await exportBundle(db, { bundleId: `otlp/${TRACE}` }))!;
    expect(b.graph.nodes.map((n) => n.type)).toEqual(["agent_action", "agent_action", "llm_call", "tool_call", "tool_result", "llm_call", "final_result"]);
    const llm = b.graph.nodes.filter((n) => n.type === "llm_call");
    expect(llm.map((n) => n.agent)).toEqual(["Solver", "Solver"]);
    expect((llm[1].content as { messages: { output: Array<{ content: string }> } }).messages.output[0].content).toBe("6*7 = 42");
    const edges = b.graph.edges.map((e) => `${e.from}->${e.to}:${e.kind}`);
    expect(edges).toContain("tool_call_0003->tool_result_0004:data");
    expect(edges).toContain("agent_action_0001->llm_call_0005:control");

    // The same spans as one OTLP/JSON file through the file importer: the same graph.
    const sorted = runSpans().sort((x, y) => String(x.spanId).localeCompare(String(y.spanId)));
    const fromFile = importOtel(JSON.stringify(request(sorted)), { fileName: OTLP_LIVE_FILE });
    expect(fromFile.cases).toHaveLength(1);
    const skeleton = (x: typeof b) => ({ nodes: x.graph.nodes.map((n) => [n.id, n.type, n.agent, n.label]), edges: x.graph.edges, order: x.order, records: x.records.map((r) => r.requestHash) });
    expect(skeleton(b)).toEqual(skeleton(fromFile.cases[0].bundle));
    // Nothing new: flushing again changes nothing.
    expect(await assembleDueOtlpTraces(db, { idleMs: 0, traceId: TRACE })).toEqual([]);
  });

  it("spans received as OTLP/JSON in shuffled batches give exactly the case of the same file import (same bundle hash)", async () => {
    const T = "22222222222222222222222222222222";
    const spans = runSpans(T);
    for (const batch of [[spans[4], spans[1]], [spans[0]], [spans[3], spans[2]]]) {
      expect((await post(JSON.stringify(request(batch)), { "content-type": "application/json", authorization: `Bearer ${key}` })).status).toBe(200);
    }
    const [r] = await assembleDueOtlpTraces(db, { idleMs: 0, traceId: T });
    expect(r).toMatchObject({ status: "imported", spans: 5 });
    const stored = (await exportBundle(db, { bundleId: `otlp/${T}` }))!;
    const sorted = runSpans(T).sort((x, y) => String(x.spanId).localeCompare(String(y.spanId)));
    const fromFile = importOtel(JSON.stringify(request(sorted)), { fileName: OTLP_LIVE_FILE });
    expect(bundleHash(stored)).toBe(bundleHash(fromFile.cases[0].bundle));
  });

  it("the background assembler builds a trace once it has been idle; a claimed trace is left to its holder", async () => {
    const T = "44444444444444444444444444444444";
    expect((await post(encodeProtobufRequest(request(runSpans(T))), proto())).status).toBe(200);
    // another process holds the trace: nobody else assembles it
    expect(await claimOtlpTrace(db, T)).not.toBeNull();
    expect(await claimOtlpTrace(db, T)).toBeNull();
    expect(await assembleDueOtlpTraces(db, { idleMs: 0, traceId: T })).toEqual([]);
    await releaseOtlpClaim(db, T);
    const assembler = startOtlpAssembler({ db, idleMs: 400, intervalMs: 100 });
    try {
      const t0 = Date.now();
      while (!(await db.case.findUnique({ where: { bundleId: `otlp/${T}` } })) && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 100));
      const state = await getOtlpTraceState(db, `otlp/${T}`);
      expect(state).toMatchObject({ pending: false, assembledSpans: 5, error: null });
      // not before the trace had been idle for 400 ms
      expect(Date.parse(state!.assembledAt!) - Date.parse(state!.lastReceivedAt)).toBeGreaterThanOrEqual(400);
    } finally {
      await assembler.stop();
    }
  });
});
