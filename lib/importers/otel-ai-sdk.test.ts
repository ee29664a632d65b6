/**
 * Live OTLP from the Vercel AI SDK's own telemetry (`experimental_telemetry`; ai 6.0.325, OTel SDK
 * 2.x, the OTLP/HTTP JSON exporter): two agents in `Promise.all`, each calling its tool, then a
 * third combining them, under one root span — exported to a local capture server and imported.
 * The model is the seeded stochastic local test model (test support, not a model). Before the AI
 * SDK's `ai.*` attributes were read, every span was an agent_action with no agent, no messages and
 * no output (a new-user trial of the live OTLP path found it).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import { context, propagation, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { generateText, stepCountIs, tool } from "ai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import type { ReplayBundle } from "../bundle";
import { startStochasticModel, type StochasticModel } from "../testing/stochastic-model/server";
import { importText } from ".";

let model: StochasticModel;
let capture: http.Server;
const bodies: unknown[] = [];
let bundle: ReplayBundle;
let finals: { weather: string; sights: string; plan: string };
let notes: string[];
let childListedFirst = false;

beforeAll(async () => {
  model = await startStochasticModel({ seed: 5 });
  capture = http.createServer((req, res) => {
    let s = "";
    req.on("data", (d) => (s += d));
    req.on("end", () => {
      bodies.push(JSON.parse(s));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => capture.listen(0, "127.0.0.1", r));
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://127.0.0.1:${(capture.address() as AddressInfo).port}/v1/traces` }))] });
  // The global context manager, so the AI SDK's spans are children of the active root span (one trace).
  provider.register();
  const tracer = trace.getTracer("trip-planner");
  const llm = createOpenAI({ baseURL: model.url, apiKey: "symtrace-test-key" }).chat("gpt-4o");
  const agent = (functionId: string, system: string, prompt: string, name: string, out: unknown) =>
    generateText({
      model: llm,
      system,
      prompt,
      tools: { [name]: tool({ description: `${name} for a city`, inputSchema: z.object({ city: z.string() }), execute: async () => out }) },
      stopWhen: stepCountIs(4),
      experimental_telemetry: { isEnabled: true, functionId, tracer },
    });
  finals = await tracer.startActiveSpan("trip", async (root) => {
    const [w, s] = await Promise.all([
      agent("weather-agent", "You are a weather researcher. Use the forecast tool, then answer in one sentence.", "The weather in Lisbon this weekend?", "forecast", { forecast: "sunny" }),
      agent("sights-agent", "You are a sightseeing guide. Use the sights tool, then name two sights.", "Which sights in Lisbon?", "sights", { sights: ["Belém tower", "tram 28"] }),
    ]);
    const p = await generateText({ model: llm, system: "You are a trip planner.", prompt: `Weather: ${w.text}\nSights: ${s.text}\nWrite the plan.`, experimental_telemetry: { isEnabled: true, functionId: "planner-agent", tracer } });
    root.end();
    return { weather: w.text, sights: s.text, plan: p.text };
  });
  await provider.forceFlush();
  await provider.shutdown();
  // this file shares its worker's modules with others (vitest project "shared-modules"): leave no global OTel state
  trace.disable();
  context.disable();
  propagation.disable();
  if (process.env.DUMP_OTLP) (await import("node:fs")).writeFileSync(process.env.DUMP_OTLP, JSON.stringify(bodies));
  const doc = { resourceSpans: bodies.flatMap((b) => (b as { resourceSpans: unknown[] }).resourceSpans) };
  const r = importText(JSON.stringify(doc), "ai-sdk.otlp.json", "otel");
  expect(r.failures).toEqual([]);
  expect(r.cases).toHaveLength(1);
  bundle = r.cases[0].bundle;
  notes = r.cases[0].source.notes ?? [];
  // the exporter sends spans as they end: some child comes before its parent in the body
  const listed = doc.resourceSpans.flatMap((rs) => (rs as { scopeSpans: { spans: { spanId: string; parentSpanId?: string }[] }[] }).scopeSpans.flatMap((ss) => ss.spans));
  const at = new Map(listed.map((sp, i) => [sp.spanId, i]));
  childListedFirst = listed.some((sp, i) => sp.parentSpanId !== undefined && (at.get(sp.parentSpanId) ?? -1) > i);
}, 60_000);

afterAll(async () => {
  await model?.close();
  await new Promise((r) => capture?.close(r));
});

const nodes = (type: string) => bundle.graph.nodes.filter((n) => n.type === type);

describe("Vercel AI SDK telemetry over OTLP", () => {
  test("every model call is an llm_call with its agent (functionId), messages and output; every tool call a tool_call with its result", () => {
    const llm = nodes("llm_call");
    // each researcher: a call naming its tool, then one answering with the tool's result; the planner: one call
    expect(llm.map((n) => n.agent).sort()).toEqual(["planner-agent", "sights-agent", "sights-agent", "weather-agent", "weather-agent"]);
    expect(bundle.records.filter((r) => r.boundary === "llm")).toHaveLength(5);
    const calls = nodes("tool_call");
    expect(calls.map((n) => [n.agent, (n.content as { tool: { name: string; arguments: unknown } }).tool.name]).sort()).toEqual([
      ["sights-agent", "sights"],
      ["weather-agent", "forecast"],
    ]);
    for (const c of calls) expect((c.content as { tool: { arguments: unknown } }).tool.arguments).toEqual({ city: "Lisbon" });
    for (const c of calls) {
      const result = bundle.graph.edges.find((e) => e.from === c.id && e.kind === "data" && bundle.graph.nodes.find((n) => n.id === e.to)?.type === "tool_result");
      expect(result, c.id).toBeTruthy();
    }
    const texts = JSON.stringify(bundle.records.map((r) => r.request));
    expect(texts).toContain("You are a weather researcher.");
    expect(texts).toContain("The weather in Lisbon this weekend?");
    expect(texts).toContain("sunny"); // the forecast tool's result, carried back to the model
    expect(bundle.config.mas).toBe("trip-planner"); // the tracer the calls were given (the AI SDK's own is "ai": vercel-ai-sdk)
  });

  test("the task, the final result and the lanes: one per agent", () => {
    expect(bundle.task.prompt).not.toBe("");
    const final = nodes("final_result")[0];
    expect(JSON.stringify(final.content)).toContain(finals.plan.slice(0, 40));
    const agents = new Set(bundle.graph.nodes.map((n) => n.agent).filter(Boolean));
    for (const a of ["weather-agent", "sights-agent", "planner-agent"]) expect(agents.has(a), a).toBe(true);
  });

  test("spans listed as they ended (children first, as OTLP exporters send them) bring no 'out of tree order' note", () => {
    expect(childListedFirst).toBe(true);
    expect(notes.join(" ")).not.toMatch(/out of tree order/);
  });

  test("fan-in: the planner's call follows both concurrent researchers' calls (control), which do not follow each other", () => {
    const call = (agent: string) => bundle.graph.nodes.find((n) => n.agent === agent && (n.content as { kind?: string }).kind === "ai.generateText")!.id;
    const [w, s, p] = [call("weather-agent"), call("sights-agent"), call("planner-agent")];
    const into = (id: string) => bundle.graph.edges.filter((e) => e.to === id && e.kind === "control").map((e) => e.from);
    expect(into(p)).toEqual(expect.arrayContaining([w, s]));
    expect(into(s)).not.toContain(w);
    expect(into(w)).not.toContain(s);
  });
});
