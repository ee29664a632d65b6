/**
 * Issue 16 "Done when", first part, with real clients: the reference workflow MAS (mas/workflow.ts)
 * instrumented with the OpenTelemetry Node SDK and OpenInference's OpenAI instrumentation,
 * exporting with the standard OTLP/HTTP protobuf exporter (@opentelemetry/exporter-trace-otlp-proto,
 * configured only through OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_HEADERS, gzip on)
 * to the receiver, against the scripted LLM stand-in (lib/testing/standin.ts: a local scripted
 * endpoint, no real model) and the reference tool server. The run must appear as the case
 * `otlp/<traceId>` with one llm_call node (with its messages) per chat completion the stand-in
 * served, under the agent that made it, and the containment / sequence edges.
 */
import { context, trace, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import * as openaiModule from "openai";
import { createServer, type Server } from "node:http";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshTestDb } from "../db/test-db";
import { createApiKey, exportBundle, otlpIngestCounts, type Db } from "../db";
import { startScriptedOpenAI, type ScriptedOpenAI } from "../testing/scripted-openai";
import { standinRespond, STANDIN_MODEL } from "../testing/standin";
import { startToolServer } from "../../mas/tools/server";
import { createLlm, type Llm } from "../../mas/lib/llm";
import { runWorkflow } from "../../mas/workflow";
import { DEMO_FINAL, DEMO_TASK } from "../../mas/scripted-policy";
import { otlpNodeHandler } from "./otlp-receiver";
import { assembleDueOtlpTraces } from "./otlp-assembler";

const PORTS = { receiver: 4720, llm: 4721, tools: 4722 }; // this worktree's range (4700-4799)
let db: Db;
let server: Server;
let llm: ScriptedOpenAI;
let tools: { url: string; close(): Promise<void> };

beforeAll(async () => {
  ({ db } = await freshTestDb());
  const { key } = await createApiKey(db, { name: "sdk-test" });
  server = createServer(otlpNodeHandler(db));
  await new Promise<void>((res) => server.listen(PORTS.receiver, "127.0.0.1", res));
  llm = await startScriptedOpenAI({ respond: standinRespond, models: [STANDIN_MODEL], port: PORTS.llm });
  tools = await startToolServer({ port: PORTS.tools });
  // What a user sets (README "Live OTLP ingest"): the exporter appends /v1/traces.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${PORTS.receiver}/api/public/otel`;
  process.env.OTEL_EXPORTER_OTLP_HEADERS = `Authorization=Bearer ${key}`;
  process.env.OTEL_EXPORTER_OTLP_COMPRESSION = "gzip";
  process.env.SYMTRACE_QUIET = "1";
}, 120_000);

afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
  delete process.env.OTEL_EXPORTER_OTLP_COMPRESSION;
  await llm?.close();
  await tools?.close();
  await new Promise<void>((res) => server.close(() => res()));
  await db.$disconnect();
});

/**
 * The MAS's LLM client with one OpenInference AGENT span per consecutive run of calls by the same
 * agent (Researcher, Analyst, Writer), children of the workflow's root span: the MAS itself is
 * unchanged, the OpenInference instrumentation records each chat completion inside.
 */
function withAgentSpans(inner: Llm, root: Span): Llm & { end(): void } {
  const tracer = trace.getTracer("symtrace-reference-mas");
  const rootCtx = trace.setSpan(context.active(), root);
  let current: { name: string; span: Span } | null = null;
  return {
    model: inner.model,
    complete(agent, messages, tools) {
      if (current?.name !== agent) {
        // one hand-off instant for both spans (each OTel JS span anchors its own clock on
        // Date.now(), so two separate readings may disagree by up to 1 ms)
        const at = performance.timeOrigin + performance.now();
        current?.span.end(at);
        current = { name: agent, span: tracer.startSpan(agent, { startTime: at, attributes: { "openinference.span.kind": "AGENT", "agent.name": agent } }, rootCtx) };
      }
      return context.with(trace.setSpan(rootCtx, current.span), () => inner.complete(agent, messages, tools));
    },
    end() {
      current?.span.end();
    },
  };
}

it("the instrumented reference MAS shows up as a case through the real OTLP proto exporter", async () => {
  const exporter = new OTLPTraceExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "reference-mas-workflow" }),
    spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 4, scheduledDelayMillis: 50 })],
  });
  provider.register();
  const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
  // the module namespace holds the OpenAI class whose prototype gets patched
  instrumentation.manuallyInstrument(openaiModule as unknown as Parameters<OpenAIInstrumentation["manuallyInstrument"]>[0]);

  const tracer = trace.getTracer("symtrace-reference-mas");
  let traceId = "";
  const final = await tracer.startActiveSpan("workflow", { attributes: { "openinference.span.kind": "CHAIN", "input.value": DEMO_TASK } }, async (root) => {
    traceId = root.spanContext().traceId;
    const client = withAgentSpans(createLlm({ baseUrl: llm.url, model: STANDIN_MODEL }), root);
    try {
      const text = await runWorkflow(DEMO_TASK, { llm: client, toolUrl: tools.url });
      root.setAttribute("output.value", text);
      return text;
    } finally {
      client.end();
      root.end();
    }
  });
  expect(final).toBe(DEMO_FINAL);
  await provider.forceFlush();
  await provider.shutdown();
  instrumentation.disable();

  const calls = llm.requests.length;
  expect(calls).toBeGreaterThanOrEqual(5);
  // batches of at most 4 spans: the run arrived in several requests
  const counts = await otlpIngestCounts(db);
  expect(counts).toMatchObject({ spans: calls + 4, traces: 1, pending: 1 });
  expect(counts.batches).toBeGreaterThan(1);

  const [r] = await assembleDueOtlpTraces(db, { idleMs: 0 });
  expect(r).toMatchObject({ traceId, bundleId: `otlp/${traceId}`, status: "imported", spans: calls + 4 });
  const b = (await exportBundle(db, { bundleId: `otlp/${traceId}` }))!;
  const byType = (t: string) => b.graph.nodes.filter((n) => n.type === t);
  // root CHAIN + 3 AGENT spans, one llm_call per completion served, one final_result
  expect(byType("agent_action").map((n) => n.label)).toEqual(["workflow", "Researcher", "Analyst", "Writer"]);
  const llmNodes = byType("llm_call");
  expect(llmNodes).toHaveLength(calls);
  expect(byType("final_result")).toHaveLength(1);
  // every tool call an answer named is a tool_call node (issue 20 item 10); this MAS calls its tool
  // server over plain HTTP (no TOOL span), so they are the named-but-not-traced kind
  const toolCalls = byType("tool_call");
  const named = llmNodes.flatMap((n) => ((n.content as { messages: { output: Array<{ tool_calls?: Array<{ id: string; name: string }> }> } }).messages.output[0]?.tool_calls ?? []).map((c) => `${c.id}:${c.name}`));
  expect(named.length).toBeGreaterThan(0);
  expect(toolCalls.map((n) => { const c = n.content as { tool: { callId: string; name: string }; executed: boolean }; expect(c.executed).toBe(false); return `${c.tool.callId}:${c.tool.name}`; }).sort()).toEqual(named.sort());
  expect(b.graph.nodes).toHaveLength(calls + 5 + toolCalls.length);
  // each llm node: its agent, the exact messages the stand-in received and what it answered
  const order = new Map(b.order.map((id, i) => [id, i]));
  const llmInOrder = [...llmNodes].sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  llmInOrder.forEach((n, i) => {
    const sent = llm.requests[i];
    const agent = /You are the (\w+)/.exec(String(sent.messages[0].content))![1];
    expect(n.agent).toBe(agent);
    const msgs = (n.content as { messages: { input: Array<{ role: string; content: unknown }>; output: Array<{ role: string }> } }).messages;
    expect(msgs.input.map((m) => m.role)).toEqual(sent.messages.map((m) => m.role));
    expect(msgs.input[0].content).toBe(sent.messages[0].content);
    expect(msgs.output[0].role).toBe("assistant");
  });
  expect(llmInOrder.map((n) => n.agent)).toEqual(expect.arrayContaining(["Researcher", "Analyst", "Writer"]));
  // one llm boundary record per completion
  expect(b.records.filter((x) => x.boundary === "llm")).toHaveLength(calls);
  // edges: root -> each agent, agent -> each of its llm calls (control), agents in sequence, last llm -> final (data)
  const edge = new Set(b.graph.edges.map((e) => `${e.from}->${e.to}:${e.kind}`));
  const [rootNode, researcher, analyst, writer] = byType("agent_action");
  for (const a of [researcher, analyst, writer]) expect(edge.has(`${rootNode.id}->${a.id}:control`)).toBe(true);
  for (const n of llmNodes) {
    const parent = [researcher, analyst, writer].find((a) => a.label === n.agent)!;
    expect(edge.has(`${parent.id}->${n.id}:control`)).toBe(true);
  }
  expect(edge.has(`${researcher.id}->${analyst.id}:control`)).toBe(true);
  expect(edge.has(`${analyst.id}->${writer.id}:control`)).toBe(true);
  expect(edge.has(`${llmInOrder[llmInOrder.length - 1].id}->${byType("final_result")[0].id}:data`)).toBe(true);
  expect(b.task.prompt).toContain("Hilltop Gardens");
});
