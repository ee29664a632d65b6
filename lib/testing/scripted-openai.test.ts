import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { echoPlanner, scriptFromTurns, startScriptedOpenAI, type ScriptedOpenAI } from "./scripted-openai";

const TOOLS = [{ type: "function" as const, function: { name: "search_docs", description: "search", parameters: { type: "object", properties: { query: { type: "string" } } } } }];

let srv: ScriptedOpenAI | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe("startScriptedOpenAI", () => {
  it("answers non-streaming requests in the chat.completion shape (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({ respond: scriptFromTurns([{ content: "Hello there." }]) });
    expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAI({ baseURL: srv.url, apiKey: "test" });
    const r = await client.chat.completions.create({ model: "scripted-model", temperature: 0, messages: [{ role: "user", content: "hi" }] });
    expect(r.object).toBe("chat.completion");
    expect(r.id).toBe("chatcmpl-scripted-0");
    expect(r.model).toBe("scripted-model");
    expect(r.choices[0].message).toMatchObject({ role: "assistant", content: "Hello there." });
    expect(r.choices[0].finish_reason).toBe("stop");
    expect(r.usage?.total_tokens).toBe((r.usage?.prompt_tokens ?? 0) + (r.usage?.completion_tokens ?? 0));
    expect(srv.requests).toHaveLength(1);
    expect(srv.requests[0]).toMatchObject({ model: "scripted-model", temperature: 0, messages: [{ role: "user", content: "hi" }] });
    expect(JSON.parse(srv.rawRequests[0])).toEqual(srv.requests[0]);
  });

  it("returns tool calls with JSON-encoded arguments and deterministic ids (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({
      respond: scriptFromTurns([{ toolCalls: [{ name: "search_docs", arguments: { query: "parks" } }, { id: "custom", name: "calculator", arguments: '{"expression":"1+1"}' }] }]),
    });
    const client = new OpenAI({ baseURL: srv.url, apiKey: "test" });
    const r = await client.chat.completions.create({ model: "scripted-model", messages: [{ role: "user", content: "go" }], tools: TOOLS });
    const msg = r.choices[0].message;
    expect(r.choices[0].finish_reason).toBe("tool_calls");
    expect(msg.content).toBeNull();
    expect(msg.tool_calls).toEqual([
      { id: "call_0_0", type: "function", function: { name: "search_docs", arguments: '{"query":"parks"}' } },
      { id: "custom", type: "function", function: { name: "calculator", arguments: '{"expression":"1+1"}' } },
    ]);
  });

  it("streams content in several chunks ending with [DONE] (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({ respond: () => ({ content: "The quick brown fox jumps over the lazy dog." }) });
    const client = new OpenAI({ baseURL: srv.url, apiKey: "test" });
    const stream = await client.chat.completions.create({ model: "scripted-model", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    const pieces: string[] = [];
    let finish: string | null = null;
    let usage: unknown = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      if (chunk.usage) usage = chunk.usage;
      const c = chunk.choices[0];
      if (!c) continue;
      if (c.delta.content) pieces.push(c.delta.content);
      if (c.finish_reason) finish = c.finish_reason;
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe("The quick brown fox jumps over the lazy dog.");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
    expect(srv.requests[0].stream).toBe(true);
  });

  it("streams tool calls as OpenAI-style deltas that the SDK reassembles (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({
      respond: () => ({ content: "Let me look.", toolCalls: [{ name: "search_docs", arguments: { query: "opening hours of Riverside Park" } }, { name: "fetch_page", arguments: { path: "parks/riverside" } }] }),
    });
    const client = new OpenAI({ baseURL: srv.url, apiKey: "test" });
    const runner = client.chat.completions.stream({ model: "scripted-model", messages: [{ role: "user", content: "hi" }], tools: TOOLS });
    const final = await runner.finalChatCompletion();
    const msg = final.choices[0].message;
    expect(msg.content).toBe("Let me look.");
    expect(final.choices[0].finish_reason).toBe("tool_calls");
    expect(msg.tool_calls?.map((t) => (t.type === "function" ? [t.id, t.function.name, JSON.parse(t.function.arguments)] : null))).toEqual([
      ["call_0_0", "search_docs", { query: "opening hours of Riverside Park" }],
      ["call_0_1", "fetch_page", { path: "parks/riverside" }],
    ]);
  });

  it("raw SSE framing: role chunk, argument fragments, finish chunk, [DONE] (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({ respond: () => ({ toolCalls: [{ name: "calculator", arguments: { expression: "12*3+4" } }] }) });
    const res = await fetch(`${srv.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }], stream: true }) });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events[events.length - 1]).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, "")));
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    const tc = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(tc[0]).toMatchObject({ index: 0, id: "call_0_0", type: "function", function: { name: "calculator", arguments: "" } });
    expect(tc.length).toBeGreaterThan(2);
    expect(tc.map((t: { function: { arguments: string } }) => t.function.arguments).join("")).toBe('{"expression":"12*3+4"}');
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe("tool_calls");
  });

  it("lists models and reports errors as OpenAI error JSON (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({ respond: scriptFromTurns([]), models: ["a", "b"] });
    const client = new OpenAI({ baseURL: srv.url, apiKey: "test", maxRetries: 0 });
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    expect(models).toEqual(["a", "b"]);
    await expect(client.chat.completions.create({ model: "a", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 500 });
    const bad = await fetch(`${srv.url}/chat/completions`, { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/JSON/);
    const nf = await fetch(`${srv.url}/nothing`);
    expect(nf.status).toBe(404);
  });

  it("echoPlanner follows its plan from the conversation so far (scripted local OpenAI-compatible server)", async () => {
    srv = await startScriptedOpenAI({
      respond: echoPlanner({
        plan: [{ name: "search_docs", arguments: { query: "parks" } }, [{ name: "fetch_page", arguments: { path: "a" } }, { name: "fetch_page", arguments: { path: "b" } }]],
        final: (ctx) => `done(${ctx.task}): ${ctx.observations.join("|")}`,
      }),
    });
    const client = new OpenAI({ baseURL: srv.url, apiKey: "test" });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "find parks" }];
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await client.chat.completions.create({ model: "scripted-model", messages, tools: TOOLS });
      const msg = r.choices[0].message;
      const calls = msg.tool_calls ?? [];
      sizes.push(calls.length);
      if (calls.length === 0) {
        expect(msg.content).toBe("done(find parks): obs0|obs1|obs2");
        break;
      }
      messages.push({ role: "assistant", content: msg.content, tool_calls: calls });
      for (const c of calls) messages.push({ role: "tool", tool_call_id: c.id, content: `obs${messages.filter((m) => m.role === "tool").length}` });
    }
    expect(sizes).toEqual([1, 2, 0]);
    expect(srv.requests).toHaveLength(3);
  });
});
