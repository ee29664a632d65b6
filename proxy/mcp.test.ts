/**
 * Issue 21 item 3: the MCP gateway records and replays tools served over MCP Streamable HTTP
 * (`tools/list`, `tools/call`) as tool boundaries — proved with `@modelcontextprotocol/sdk`'s own
 * client (the MAS side) and server (a local tool server, stateless Streamable HTTP). The model is
 * the SCRIPTED local server (lib/testing/scripted-protocols.ts), whose get_weather call is executed
 * through MCP, so the gateway's tool_call links to the llm_call that named it and no in-process
 * tool node is added for it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession } from "../lib/replay";
import { startScriptedProtocols, type ScriptedProtocols } from "../lib/testing/scripted-protocols";
import { startBoundaryProxy } from ".";

let toolCalls = 0;
/** A stateless MCP tool server (a new McpServer per request, as the SDK's stateless example does). */
async function startMcpToolServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const mcp = new McpServer({ name: "weather-tools", version: "1.0.0" });
      mcp.registerTool("get_weather", { description: "weather of a city", inputSchema: { city: z.string() } }, async ({ city }) => {
        toolCalls++;
        return { content: [{ type: "text", text: `MCP weather: sunny in ${city}` }] };
      });
      mcp.registerTool("fail", { description: "always fails", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "boom" }], isError: true }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      let body: unknown = undefined;
      if (req.method === "POST") {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      }
      await transport.handleRequest(req, res, body);
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** The MAS: lists the MCP tools, asks the model, runs the tool it names over MCP, asks again. */
async function mas(llmUrl: string, mcpUrl: string, city = "Paris"): Promise<{ tools: string[]; answer: string; failed: boolean }> {
  const client = new Client({ name: "test-mas", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  try {
    const tools = (await client.listTools()).tools;
    const openai = new OpenAI({ baseURL: llmUrl, apiKey: "k", maxRetries: 0 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "system", content: "You are the Reporter." }, { role: "user", content: `Weather in ${city}?` }];
    const fnTools = tools.map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
    let answer = "";
    for (let i = 0; i < 3; i++) {
      const msg = (await openai.chat.completions.create({ model: "scripted", messages, tools: fnTools })).choices[0].message;
      messages.push(msg);
      if (!msg.tool_calls?.length) {
        answer = msg.content ?? "";
        break;
      }
      for (const tc of msg.tool_calls) {
        if (tc.type !== "function") continue;
        const r = await client.callTool({ name: tc.function.name, arguments: JSON.parse(tc.function.arguments) });
        const text = (r.content as { type: string; text: string }[]).map((c) => c.text).join("");
        messages.push({ role: "tool", tool_call_id: tc.id, content: text });
      }
    }
    const failed = (await client.callTool({ name: "fail", arguments: {} })).isError === true;
    return { tools: tools.map((t) => t.name), answer, failed };
  } finally {
    await client.close();
  }
}

let model: ScriptedProtocols;
let tools: { url: string; close: () => Promise<void> };
let bundle: ReplayBundle;
let recorded: { tools: string[]; answer: string; failed: boolean };

beforeAll(async () => {
  model = await startScriptedProtocols();
  tools = await startMcpToolServer();
  const session = new RecordSession({ id: "test/mcp", task: { prompt: "weather" } });
  const proxy = await startBoundaryProxy({ session, upstream: model.url, mcpUpstream: tools.url });
  try {
    recorded = await mas(proxy.llmUrl, proxy.mcpUrl);
    await proxy.idle();
  } finally {
    await proxy.close();
  }
  bundle = session.toBundle({ final: recorded.answer });
});
afterAll(async () => {
  await tools?.close();
  await model?.close();
});

describe("MCP gateway (Streamable HTTP): tools/list and tools/call are tool boundaries", () => {
  test("recording: the SDK client works through the gateway; records and nodes", () => {
    expect(recorded).toEqual({ tools: ["get_weather", "fail"], answer: "Weather report: MCP weather: sunny in Paris", failed: true });
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    expect(bundle.records.map((r) => (r.boundary === "tool" ? ((r.request as { mcp: string }).mcp + ":" + ((r.request as { tool?: string }).tool ?? "")) : "llm"))).toEqual(["tools/list:", "llm", "tools/call:get_weather", "llm", "tools/call:fail"]);
    expect(bundle.records[2].request).toEqual({ tool: "get_weather", arguments: { city: "Paris" }, mcp: "tools/call" });
    expect(bundle.records[2].response).toEqual({ result: { content: [{ type: "text", text: "MCP weather: sunny in Paris" }] } });
    // linked to the llm_call that named it; no duplicate in-process node for the same call
    const call = bundle.records[2].nodeId;
    expect(bundle.graph.edges).toContainEqual({ from: bundle.records[1].nodeId, to: call, kind: "data" });
    expect(bundle.graph.nodes.filter((n) => n.type === "tool_call")).toHaveLength(3);
    const results = bundle.graph.nodes.filter((n) => n.type === "tool_result");
    expect(results.map((n) => n.status)).toEqual(["success", "success", "error"]);
    expect(bundle.graph.nodes.find((n) => n.id === call)!.agent).toBe("Reporter");
  });

  test("replay without any upstream serves every MCP answer from the recording", async () => {
    const before = toolCalls;
    const session = new ReplaySession({ source: bundle });
    const proxy = await startBoundaryProxy({ session });
    try {
      expect(await mas(proxy.llmUrl, proxy.mcpUrl)).toEqual(recorded);
      await proxy.idle();
      expect(session.end()).toBeNull();
      expect(session.verified).toBe(bundle.records.length);
    } finally {
      await proxy.close();
    }
    expect(toolCalls).toBe(before); // the tool server was not called
  });

  test("a changed question fails closed at the LLM call after the replayed tools/list", async () => {
    const session = new ReplaySession({ source: bundle });
    let stopped = false;
    const proxy = await startBoundaryProxy({ session, onStop: () => (stopped = true) });
    try {
      // the model is replayed, so it names Paris again; a different first question changes the LLM request instead
      await expect(mas(proxy.llmUrl, proxy.mcpUrl, "Lyon")).rejects.toThrow(/divergence|differs/);
    } finally {
      await proxy.close();
    }
    expect(stopped).toBe(true);
    expect(session.report?.seq).toBe(1);
    expect(session.report?.reason).toBe("content");
  });

  test("a tools/call the recording does not expect there fails closed: JSON-RPC error naming the divergence", async () => {
    const session = new ReplaySession({ source: bundle });
    const proxy = await startBoundaryProxy({ session });
    const client = new Client({ name: "t", version: "1" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl)));
      await client.listTools();
      await expect(client.callTool({ name: "get_weather", arguments: { city: "Lyon" } })).rejects.toThrow(/symtrace replay stopped at the first divergence/);
    } finally {
      await client.close();
      await proxy.close();
    }
    expect(session.report?.seq).toBe(1);
    expect(session.report?.reason).toBe("extra-call");
  });
});
