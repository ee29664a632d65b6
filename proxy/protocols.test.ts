/**
 * Issue 21 items 1–3: the proxy records and replays the OpenAI Responses API, Anthropic Messages,
 * embeddings and chat completions, streaming and not, with tool calls, driven by the official SDK
 * clients (`openai` 6, `@anthropic-ai/sdk`) against a SCRIPTED local model server
 * (lib/testing/scripted-protocols.ts; no real model). The "MAS" here is a plain tool loop in the
 * test, the way each SDK's docs write one, with its tool run in-process (no gateway).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession, type BoundarySession } from "../lib/replay";
import { startScriptedProtocols, type ScriptedProtocols } from "../lib/testing/scripted-protocols";
import { startBoundaryProxy, type ProxyStop } from ".";

const WEATHER = "Weather: sunny, 21 C";
const INSTRUCTIONS = "You are the Forecaster. Use get_weather, then report.";

/** Responses tool loop (openai SDK), chained by previous_response_id. */
async function responsesAgent(baseURL: string, stream: boolean, toolOutput = WEATHER): Promise<string> {
  const client = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 });
  const tools = [{ type: "function" as const, name: "get_weather", description: "weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false }];
  type Body = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">;
  const ask = async (body: Body): Promise<OpenAI.Responses.Response> => (stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body));
  let r = await ask({ model: "scripted", instructions: INSTRUCTIONS, input: "What is the weather in Paris?", tools });
  for (let i = 0; i < 3; i++) {
    const calls = r.output.filter((o) => o.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall[];
    if (!calls.length) break;
    r = await ask({ model: "scripted", instructions: INSTRUCTIONS, previous_response_id: r.id, input: calls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: `${toolOutput} in ${JSON.parse(c.arguments).city}` })), tools });
  }
  return r.output_text;
}

/** Anthropic tool loop (full history each turn). */
async function anthropicAgent(baseURL: string, stream: boolean, toolOutput = WEATHER): Promise<string> {
  const client = new Anthropic({ baseURL, apiKey: "k", maxRetries: 0 });
  const tools = [{ name: "get_weather", description: "weather of a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] } }];
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "What is the weather in Rome?" }];
  for (let i = 0; i < 3; i++) {
    const body = { model: "scripted-claude", max_tokens: 256, system: "You are the Climatologist. Use tools.", messages, tools };
    const m = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    messages.push({ role: "assistant", content: m.content });
    const uses = m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    if (!uses.length) return m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    messages.push({ role: "user", content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: `${toolOutput} in ${(u.input as { city: string }).city}` })) });
  }
  return "";
}

/** Chat tool loop + one embeddings call. */
async function chatAgent(baseURL: string, stream: boolean, toolOutput = WEATHER): Promise<string> {
  const client = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 });
  const emb = await client.embeddings.create({ model: "scripted-embed", input: ["Oslo", "weather"] });
  if (emb.data.length !== 2) throw new Error("embeddings");
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "system", content: "Answer with the weather tool." }, { role: "user", content: "Weather in Oslo?" }];
  const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
  for (let i = 0; i < 3; i++) {
    let msg: OpenAI.Chat.ChatCompletionMessage;
    if (stream) msg = (await client.chat.completions.stream({ model: "scripted", messages, tools }).finalChatCompletion()).choices[0].message;
    else msg = (await client.chat.completions.create({ model: "scripted", messages, tools })).choices[0].message;
    messages.push(msg);
    if (!msg.tool_calls?.length) return msg.content ?? "";
    for (const tc of msg.tool_calls) if (tc.type === "function") messages.push({ role: "tool", tool_call_id: tc.id, content: `${toolOutput} in ${JSON.parse(tc.function.arguments).city}` });
  }
  return "";
}

type Agent = (baseURL: string, stream: boolean, toolOutput?: string) => Promise<string>;
const AGENTS: [string, Agent, "llmUrl" | "anthropicUrl", string][] = [
  ["openai-responses", responsesAgent, "llmUrl", "Paris"],
  ["anthropic-messages", anthropicAgent, "anthropicUrl", "Rome"],
  ["openai-chat", chatAgent, "llmUrl", "Oslo"],
];

let upstream: ScriptedProtocols;
beforeAll(async () => {
  upstream = await startScriptedProtocols();
});
afterAll(() => upstream?.close());

async function record(agent: Agent, urlKey: "llmUrl" | "anthropicUrl", stream: boolean): Promise<{ bundle: ReplayBundle; answer: string }> {
  const session = new RecordSession({ id: `test/protocols/${agent.name}/${stream}`, task: { prompt: "weather" } });
  const proxy = await startBoundaryProxy({ session, upstream: upstream.url });
  try {
    const answer = await agent(proxy[urlKey], stream);
    await proxy.idle();
    return { bundle: session.toBundle({ final: answer }), answer };
  } finally {
    await proxy.close();
  }
}

async function replay(bundle: ReplayBundle, agent: Agent, urlKey: "llmUrl" | "anthropicUrl", stream: boolean, opts: { upstream?: string; target?: string; guidance?: string; toolOutput?: string } = {}) {
  const session = new ReplaySession({ source: bundle, targetNodeId: opts.target, guidance: opts.guidance });
  let stop: ProxyStop | null = null;
  const proxy = await startBoundaryProxy({ session: session as BoundarySession, upstream: opts.upstream, onStop: (s) => (stop = s) });
  try {
    let answer: string | null = null;
    let error: string | null = null;
    try {
      answer = await agent(proxy[urlKey], stream, opts.toolOutput);
    } catch (e) {
      error = (e as Error).message;
    }
    await proxy.idle();
    return { session, answer, error, stop: stop as ProxyStop | null };
  } finally {
    await proxy.close();
  }
}

describe.each([false, true])("record and replay, stream=%s", (stream) => {
  test.each(AGENTS)("%s: recorded with meta.protocol, in-process tool nodes, agents; replays verbatim without an upstream", async (protocol, agent, urlKey, city) => {
    const { bundle, answer } = await record(agent, urlKey, stream);
    expect(answer).toBe(`Weather report: ${WEATHER} in ${city}`);
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    const llm = bundle.records.filter((r) => r.boundary === "llm");
    const protocols = llm.map((r) => (r.meta?.protocol as string | undefined) ?? "openai-chat");
    expect(protocols.filter((p) => p === protocol).length).toBe(2);
    // streamed calls are stored as their raw events, plain ones as the JSON body
    expect(llm.filter((r, i) => protocols[i] === protocol).map((r) => (r.response as { stream?: boolean }).stream === true)).toEqual([stream, stream]);
    if (protocol !== "openai-chat") expect((bundle.config.replay as { protocols: Record<string, string> }).protocols[protocol]).toMatch(/-v1$/);
    // every llm_call has an agent; "You are the <Name>" names it
    const calls = bundle.graph.nodes.filter((n) => n.type === "llm_call");
    expect(calls.every((n) => typeof n.agent === "string" && n.agent.length > 0)).toBe(true);
    if (protocol === "openai-responses") expect(new Set(calls.map((n) => n.agent))).toEqual(new Set(["Forecaster"]));
    if (protocol === "anthropic-messages") expect(new Set(calls.map((n) => n.agent))).toEqual(new Set(["Climatologist"]));
    // the in-process tool: a tool_call named by the first response, its result from the second request
    const tc = bundle.graph.nodes.filter((n) => n.type === "tool_call");
    const tr = bundle.graph.nodes.filter((n) => n.type === "tool_result");
    expect(tc.map((n) => n.content)).toEqual([{ tool: "get_weather", arguments: { city } }]);
    expect(JSON.stringify(tr[0].content)).toContain(`${WEATHER} in ${city}`);
    const firstCall = llm[protocol === "openai-chat" ? 1 : 0].nodeId;
    const secondCall = llm[protocol === "openai-chat" ? 2 : 1].nodeId;
    expect(bundle.graph.edges).toEqual(expect.arrayContaining([
      { from: firstCall, to: tc[0].id, kind: "data" },
      { from: tc[0].id, to: tr[0].id, kind: "data" },
      { from: tr[0].id, to: secondCall, kind: "data" },
    ]));
    expect(tc[0].agent).toBe(calls.find((n) => n.id === firstCall)!.agent);
    // replay of the whole recording, no upstream: the SDK parses the served responses the same
    const r = await replay(bundle, agent, urlKey, stream);
    expect(r.error).toBeNull();
    expect(r.answer).toBe(answer);
    expect(r.session.end()).toBeNull();
    expect(r.session.verified).toBe(bundle.records.length);
    expect(r.session.checkedNodes).toBeGreaterThan(0);
  });

  test.each(AGENTS)("%s: a changed in-process tool result fails closed and says 'tool result differs'", async (_p, agent, urlKey) => {
    const { bundle } = await record(agent, urlKey, stream);
    const r = await replay(bundle, agent, urlKey, stream, { toolOutput: "Weather: snow" });
    expect(r.answer).toBeNull();
    const report = r.session.report!;
    expect(report.reason).toBe("content");
    expect(report.message).toContain("tool result differs");
    expect(report.toolResult?.callId).toMatch(/^(call|toolu)_\d+$/);
  });
});

describe("Responses: previous_response_id when the suffix goes live", () => {
  test("a previous_response_id naming a replayed response is expanded into the recorded items for a fresh upstream", async () => {
    const { bundle } = await record(responsesAgent, "llmUrl", false);
    const second = bundle.records.filter((r) => r.boundary === "llm")[1];
    expect((second.request as { previous_response_id?: string }).previous_response_id).toMatch(/^resp_/);
    const fresh = await startScriptedProtocols(); // never saw the recorded responses
    try {
      const r = await replay(bundle, responsesAgent, "llmUrl", false, { upstream: fresh.url, target: second.nodeId, guidance: "Mention the city." });
      expect(r.error).toBeNull();
      expect(r.answer).toBe(`Weather report: ${WEATHER} in Paris [guided: Mention the city.]`);
      const sent = fresh.received.filter((x) => x.path === "/v1/responses");
      expect(sent).toHaveLength(1);
      expect(sent[0].body.previous_response_id).toBeUndefined();
      const input = sent[0].body.input as { type?: string; role?: string; content?: unknown }[];
      expect(input.map((i) => i.type ?? i.role)).toEqual(["user", "function_call", "function_call_output", "user"]);
      expect(input[3]).toEqual({ role: "user", content: "Mention the city." });
      // the stored target record keeps the MAS's own request (so a replay of the replay matches)
      const out = r.session.toBundle({ id: "test/responses-live", final: r.answer });
      const target = out.records[second.seq];
      expect((target.request as { previous_response_id?: string }).previous_response_id).toBe((second.request as { previous_response_id: string }).previous_response_id);
      expect(target.meta?.guidance).toBe("Mention the city.");
      expect(validateBundle(JSON.parse(JSON.stringify(out))).ok).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});

describe("unknown routes", () => {
  test("a request to an unknown route is recorded as a failed llm boundary and replays as the same 404", async () => {
    const session = new RecordSession({ id: "test/unknown-route", task: { prompt: "x" } });
    const proxy = await startBoundaryProxy({ session, upstream: upstream.url });
    let status = 0;
    try {
      const res = await fetch(`${proxy.llmUrl}/assistants`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m" }) });
      status = res.status;
    } finally {
      await proxy.close();
    }
    expect(status).toBe(404);
    const bundle = session.toBundle({});
    expect(bundle.records).toHaveLength(1);
    expect(bundle.records[0].meta?.protocol).toBe("unknown-route");
    expect(bundle.records[0].request).toEqual({ method: "POST", path: "/v1/assistants", body: { model: "m" } });
    const node = bundle.graph.nodes.find((n) => n.id === bundle.records[0].nodeId)!;
    expect(node.status).toBe("error");
    expect(node.agent).toBe("unknown-route");
    const rs = new ReplaySession({ source: bundle });
    const rp = await startBoundaryProxy({ session: rs });
    try {
      const res = await fetch(`${rp.llmUrl}/assistants`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m" }) });
      expect(res.status).toBe(404);
      expect(rs.end()).toBeNull();
    } finally {
      await rp.close();
    }
  });
});
