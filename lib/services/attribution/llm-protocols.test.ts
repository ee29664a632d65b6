/**
 * The attributors' endpoint in each protocol the proxy speaks (issue 24 item 1: "any protocol the
 * proxy supports"): a local test server (scripted replies, no model) answers Chat Completions,
 * Responses and Anthropic Messages in their own wire shapes; each call is checked for what was
 * sent (system → instructions / system), what was read (text, token usage) and the cache.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LlmRequest } from "../../attribution";
import { attributionCacheKey, attributionLlmSettings, createAttributionLlm, type AttributionProtocol } from "./llm";

const seen: Array<{ url: string; body: Record<string, unknown> }> = [];
let server: Server;
let base = "";
const dirs: string[] = [];

const REPLY: Record<string, (body: Record<string, unknown>) => unknown> = {
  "/v1/chat/completions": () => ({ id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Agent: WebSurfer\nStep: 3" } }], usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } }),
  "/v1/responses": () => ({ id: "resp_1", object: "response", created_at: 1, model: "m", status: "completed", output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Agent: Orchestrator\nStep: 7", annotations: [] }] }], usage: { input_tokens: 21, output_tokens: 6, total_tokens: 27 } }),
  "/v1/messages": () => ({ id: "msg_1", type: "message", role: "assistant", model: "m", stop_reason: "end_turn", content: [{ type: "text", text: "Agent: Assistant\nStep: 2" }], usage: { input_tokens: 31, output_tokens: 7 } }),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      seen.push({ url: req.url ?? "", body });
      const f = REPLY[req.url ?? ""] as ((body: Record<string, unknown>) => unknown) | undefined;
      res.writeHead(f ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(f ? f(body) : { error: { message: `no route ${req.url}` } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const request: LlmRequest = { model: "m", temperature: 0, messages: [{ role: "system", content: "You attribute failures." }, { role: "user", content: "Which agent, which step?" }] };

describe("attribution endpoint protocols", () => {
  const cases: Array<[AttributionProtocol, string, string, { prompt: number; completion: number }]> = [
    ["chat", "/v1/chat/completions", "Agent: WebSurfer\nStep: 3", { prompt: 11, completion: 5 }],
    ["responses", "/v1/responses", "Agent: Orchestrator\nStep: 7", { prompt: 21, completion: 6 }],
    ["anthropic", "/v1/messages", "Agent: Assistant\nStep: 2", { prompt: 31, completion: 7 }],
  ];
  test.each(cases)("%s: sent to %s, text and usage read, the second call answered from the cache", async (protocol, route, text, usage) => {
    const dir = mkdtempSync(path.join(tmpdir(), "attr-proto-"));
    dirs.push(dir);
    const before = seen.length;
    const llm = createAttributionLlm({ upstream: base, model: "m", protocol, cacheDir: dir });
    expect(await llm.complete(request)).toEqual({ text, usage, cached: false });
    expect(await llm.complete(request)).toEqual({ text, usage, cached: true });
    expect(llm.stats).toEqual({ httpCalls: 1, cacheHits: 1 });
    const sent = seen.slice(before);
    expect(sent.map((s) => s.url)).toEqual([route]);
    const body = sent[0].body;
    if (protocol === "chat") expect(body.messages).toEqual(request.messages);
    if (protocol === "responses") {
      expect(body.instructions).toBe("You attribute failures.");
      expect(body.input).toEqual([{ role: "user", content: "Which agent, which step?" }]);
    }
    if (protocol === "anthropic") {
      expect(body.system).toBe("You attribute failures.");
      expect(body.messages).toEqual([{ role: "user", content: "Which agent, which step?" }]);
      expect(body.max_tokens).toBe(4096);
    }
    expect(body.temperature).toBe(protocol === "anthropic" ? undefined : 0); // the Messages API (SDK 1.15) has no temperature
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files).toEqual([`${attributionCacheKey(request, protocol)}.json`]);
    expect(JSON.parse(readFileSync(path.join(dir, files[0]), "utf8"))).toMatchObject({ protocol, reply: text, usage });
  });

  test("the cache key of chat is the request alone (older caches stay valid); each protocol has its own", () => {
    const keys = (["chat", "responses", "anthropic"] as const).map((p) => attributionCacheKey(request, p));
    expect(new Set(keys).size).toBe(3);
    expect(attributionCacheKey(request)).toBe(keys[0]);
  });

  test("SYMTRACE_ATTRIBUTION_PROTOCOL: default chat, falls back to the judge's, a bad value is named", () => {
    const env = (e: Record<string, string>) => e as unknown as NodeJS.ProcessEnv;
    expect(attributionLlmSettings(env({})).protocol).toBe("chat");
    expect(attributionLlmSettings(env({ SYMTRACE_JUDGE_PROTOCOL: "anthropic" })).protocol).toBe("anthropic");
    expect(attributionLlmSettings(env({ SYMTRACE_ATTRIBUTION_PROTOCOL: "responses", SYMTRACE_JUDGE_PROTOCOL: "anthropic" })).protocol).toBe("responses");
    expect(() => attributionLlmSettings(env({ SYMTRACE_ATTRIBUTION_PROTOCOL: "grpc" }))).toThrow(/SYMTRACE_ATTRIBUTION_PROTOCOL must be chat, responses, anthropic; got "grpc"/);
  });
});
