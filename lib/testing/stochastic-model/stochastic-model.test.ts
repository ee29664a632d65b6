/**
 * The seeded stochastic model server (test support) against the official clients: `openai`
 * (Chat Completions, Responses incl. streaming and previous_response_id, embeddings) and
 * `@anthropic-ai/sdk` (Messages, streaming); its policy (tool call / hand-off / answer); seeds.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { decide, seededRng, startStochasticModel, STOCHASTIC_MODEL, TEST_MODEL_TAG, type Conversation, type StochasticModel } from "./index";

const weatherTool = { type: "function" as const, function: { name: "get_weather", description: "Get the weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } };

let m: StochasticModel;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  m = await startStochasticModel({ seed: 5, latencyMs: [0, 2] });
  openai = new OpenAI({ baseURL: m.url, apiKey: "test" });
  anthropic = new Anthropic({ baseURL: m.origin, apiKey: "test" });
});
afterAll(() => m.close());

describe("policy", () => {
  const conv = (over: Partial<Conversation>): Conversation => ({ system: "", turns: [{ kind: "user", text: "What is the weather in Lisbon?" }], tools: [], toolChoice: { type: "auto" }, parallelToolCalls: true, ...over });
  const rng = seededRng(1);
  const tool = (name: string, description = "") => ({ name, description, parameters: { type: "object", properties: { city: { type: "string" } } } });

  test("no tools → an answer tagged as the test model", () => {
    const d = decide(conv({}), rng);
    expect(d.calls).toEqual([]);
    expect(d.text.startsWith(TEST_MODEL_TAG)).toBe(true);
  });

  test("uncalled function tools are all called at once (the place comes from the task); one at a time without parallel calls", () => {
    const d = decide(conv({ tools: [tool("get_weather"), tool("get_time")] }), rng);
    expect(d.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["get_weather", { city: "Lisbon" }],
      ["get_time", { city: "Lisbon" }],
    ]);
    expect(decide(conv({ tools: [tool("get_weather"), tool("get_time")], parallelToolCalls: false }), rng).calls.map((c) => c.name)).toEqual(["get_weather"]);
  });

  test("hand-offs: the most relevant untaken one; after every hand-off and tool, an answer quoting the tool results", () => {
    const tools = [tool("transfer_to_math_agent", "Handles arithmetic"), tool("transfer_to_weather_agent", "Handles weather questions")];
    expect(decide(conv({ tools }), rng).calls.map((c) => c.name)).toEqual(["transfer_to_weather_agent"]);
    const turns: Conversation["turns"] = [
      { kind: "user", text: "What is the weather in Lisbon?" },
      { kind: "call", id: "c1", name: "transfer_to_weather_agent", arguments: "{}" },
      { kind: "result", id: "c1", text: "{}" },
      { kind: "call", id: "c2", name: "transfer_to_math_agent", arguments: "{}" },
      { kind: "result", id: "c2", text: "{}" },
      { kind: "call", id: "c3", name: "get_weather", arguments: "{}" },
      { kind: "result", id: "c3", text: "sunny" },
    ];
    const d = decide(conv({ tools: [...tools, tool("get_weather")], turns }), rng);
    expect(d.calls).toEqual([]);
    expect(d.text).toContain("get_weather said sunny");
  });

  test("tool_choice none → answer even with tools", () => {
    expect(decide(conv({ tools: [tool("get_weather")], toolChoice: { type: "none" } }), rng).calls).toEqual([]);
  });
});

describe("wire protocols with the official clients", () => {
  test("Chat Completions: a tool call, then (after the tool result) an answer; streamed the same way", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Oslo?" }];
    const a = await openai.chat.completions.create({ model: "x", messages, tools: [weatherTool] });
    expect(a.model).toBe(STOCHASTIC_MODEL);
    const call = a.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: "get_weather", arguments: JSON.stringify({ city: "Oslo" }) });
    expect(call.id).toMatch(/^call_[a-z0-9]{24}$/);
    messages.push(a.choices[0].message, { role: "tool", tool_call_id: call.id, content: "rain" });
    const s = await openai.chat.completions.create({ model: "x", messages, tools: [weatherTool], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage = 0;
    for await (const c of s) {
      text += c.choices[0]?.delta.content ?? "";
      if (c.usage) usage = c.usage.total_tokens;
    }
    expect(text).toMatch(/^\[seeded-stochastic-test-model\] .*get_weather said rain\.$/);
    expect(usage).toBeGreaterThan(0);
  });

  test("Responses: function_call, function_call_output, previous_response_id chain, streamed events", async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: "get_weather", description: "Get the weather", parameters: weatherTool.function.parameters, strict: true }];
    const r1 = await openai.responses.create({ model: "x", instructions: "You are a weather agent.", input: "Weather in Quito?", tools });
    const fc = r1.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call")!;
    expect(fc).toMatchObject({ name: "get_weather", arguments: JSON.stringify({ city: "Quito" }) });
    // Only the tool output is sent: the server continues the stored conversation.
    const stream = await openai.responses.create({ model: "x", previous_response_id: r1.id, input: [{ type: "function_call_output", call_id: fc.call_id, output: "windy" }], tools, stream: true });
    const types: string[] = [];
    let done: OpenAI.Responses.Response | null = null;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.completed") done = e.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_text.delta");
    expect(types.at(-1)).toBe("response.completed");
    expect(done!.output_text ?? (done!.output[0] as { content: Array<{ text: string }> }).content[0].text).toContain("get_weather said windy");
    await expect(openai.responses.create({ model: "x", previous_response_id: "resp_missing", input: "hi" })).rejects.toThrow(/not found/);
  });

  test("Anthropic Messages: tool_use then an answer; messages.stream gives the same final message shape", async () => {
    const tools: Anthropic.Tool[] = [{ name: "get_time", description: "Local time", input_schema: { type: "object", properties: { location: { type: "string" } } } }];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Time in Kyoto?" }];
    const a = await anthropic.messages.create({ model: "claude-x", max_tokens: 100, messages, tools });
    expect(a.stop_reason).toBe("tool_use");
    const use = a.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(use).toMatchObject({ name: "get_time", input: { location: "Kyoto" } });
    expect(use.id).toMatch(/^toolu_/);
    messages.push({ role: "assistant", content: a.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "09:30" }] });
    const final = await anthropic.messages.stream({ model: "claude-x", max_tokens: 100, messages, tools }).finalMessage();
    expect(final.stop_reason).toBe("end_turn");
    expect(final.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("get_time said 09:30") });
  });

  test("embeddings: unit vectors, the same per text (base64 as the openai client asks by default)", async () => {
    const e = await openai.embeddings.create({ model: "x", input: ["alpha", "beta", "alpha"] });
    const [a, b, a2] = e.data.map((d) => d.embedding);
    expect(a).toHaveLength(64);
    expect(a2).toEqual(a);
    expect(b).not.toEqual(a);
    expect(Math.hypot(...a)).toBeCloseTo(1, 5);
  });

  test("unknown route: 404 naming the routes served", async () => {
    const r = await fetch(`${m.url}/completions`, { method: "POST", body: "{}" });
    expect(r.status).toBe(404);
    expect(await r.text()).toContain("/v1/responses");
  });
});

describe("seeds", () => {
  async function ids(seed: number) {
    const s = await startStochasticModel({ seed, latencyMs: [0, 0] });
    try {
      const c = new OpenAI({ baseURL: s.url, apiKey: "t" });
      const r = await c.chat.completions.create({ model: "x", messages: [{ role: "user", content: "Weather in Oslo?" }], tools: [weatherTool] });
      return [r.id, r.choices[0].message.tool_calls![0].id];
    } finally {
      await s.close();
    }
  }
  test("the same seed gives the same random ids; another seed other ids", async () => {
    const [a, b, c] = [await ids(3), await ids(3), await ids(4)];
    expect(a).toEqual(b);
    expect(c[0]).not.toBe(a[0]);
    expect(c[1]).not.toBe(a[1]);
  });
});
