/**
 * End-to-end tests of snapshot mode, selective replay, the proxy and the tool gateway, against a
 * scripted local OpenAI-compatible server (lib/testing/scripted-openai.ts), the local tool server
 * (mas/tools/server.ts) and the reference MAS scripts (mas/*.ts) run as child processes.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession } from "../lib/replay";
import { startScriptedOpenAI, echoPlanner, type ScriptedOpenAI } from "../lib/testing/scripted-openai";
import { DEMO_TASK } from "../mas/scripted-policy";
import type { ToolServer } from "../mas/tools/server";
import { startBoundaryProxy } from "../proxy";
import { recordCommand, replayCommand } from "./replay";
import { startReplayStack, stopReplayStack } from "../lib/testing/replay-stack";

const ROOT = path.resolve(import.meta.dirname, "..");
const MAS = (name: string) => ["node", "--import", "tsx", path.join(ROOT, "mas", `${name}.ts`)];
let dir: string;
let llm: ScriptedOpenAI;
let tools: ToolServer;

beforeAll(async () => {
  ({ dir, llm, tools } = await startReplayStack("symtrace-replay-"));
});
afterAll(() => stopReplayStack({ dir, llm, tools }));

const readBundle = (f: string) => {
  const r = validateBundle(JSON.parse(readFileSync(f, "utf8")));
  if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
  return r.bundle;
};
const out = (o: unknown) => o as Record<string, unknown>;
const sys = (req: unknown) => String((req as { messages: { content: string }[] }).messages[0].content);

async function recordMas(name: string, file: string, extra: string[] = [], cmdPrefix: string[] = []) {
  const r = await recordCommand(["--out", file, "--upstream", llm.url, "--tool-upstream", tools.url, "--task", DEMO_TASK, "--id", `test/${name}`, ...extra, "--", ...cmdPrefix, ...MAS(name)]);
  expect(r.code, JSON.stringify(r.output)).toBe(0);
  return readBundle(file);
}

describe("record and replay a reference MAS (scripted local OpenAI-compatible server)", () => {
  let source: ReplayBundle;
  let srcFile: string;

  beforeAll(async () => {
    srcFile = path.join(dir, "orchestrator.bundle.json");
    source = await recordMas("orchestrator", srcFile);
  }, 60_000);

  test("record writes a valid bundle v1: llm/tool records, nodes, edges, final_result, runner command", () => {
    expect(source.records.length).toBeGreaterThanOrEqual(8);
    expect(source.records.some((r) => r.boundary === "tool")).toBe(true);
    const types = new Set(source.graph.nodes.map((n) => n.type));
    for (const t of ["message", "llm_call", "agent_action", "tool_call", "tool_result", "final_result"]) expect(types.has(t as never)).toBe(true);
    expect(source.config.runner?.command).toEqual(MAS("orchestrator"));
    // without --mas or --runner the MAS is named after its script
    expect(source.config.mas).toBe(path.basename(MAS("orchestrator").find((a) => /\.(m?[jt]s)$/.test(a))!).replace(/\.[^.]+$/, ""));
    expect(source.config.replay?.normalization).toBe("openai-chat-v1");
    expect(source.graph.nodes.find((n) => n.type === "final_result")?.content).toMatchObject({ final: expect.stringContaining("Hilltop Gardens") });
    const llmNode = source.records.find((r) => r.boundary === "tool")!;
    expect(source.graph.edges.some((e) => e.to === llmNode.nodeId && e.kind === "data" && e.from.startsWith("llm_call"))).toBe(true);
  });

  test("--mas names the MAS (config.mas: case list filters, by-MAS tables)", async () => {
    const b = await recordMas("orchestrator", path.join(dir, "named.bundle.json"), ["--mas", "hilltop-team"]);
    expect(b.config.mas).toBe("hilltop-team");
  }, 60_000);

  test("--evaluator judges the recorded run and stores the verdict as its outcome (a registered name or a command)", async () => {
    const named = await recordMas("orchestrator", path.join(dir, "judged.bundle.json"), ["--evaluator", "hilltop"]);
    expect(named.outcome).toMatchObject({ evaluator: "hilltop" });
    expect(typeof named.outcome?.passed).toBe("boolean");
    const failing = path.join(dir, "always-fails-evaluator.mjs");
    writeFileSync(failing, "process.exit(1);\n");
    const cmd = await recordMas("orchestrator", path.join(dir, "judged2.bundle.json"), ["--evaluator", `node ${failing}`]);
    expect(cmd.outcome).toMatchObject({ passed: false });
    // an evaluator that gives no verdict (exit 2) leaves the outcome unknown, and the command says so
    const unsure = path.join(dir, "unsure-evaluator.mjs");
    writeFileSync(unsure, "console.error('cannot judge this task'); process.exit(2);\n");
    const r = await recordCommand(["--out", path.join(dir, "judged3.bundle.json"), "--upstream", llm.url, "--tool-upstream", tools.url, "--task", DEMO_TASK, "--evaluator", `node ${unsure}`, "--", ...MAS("orchestrator")]);
    expect(r.code).toBe(0);
    expect((r.output as { warnings?: string[] }).warnings?.[0]).toMatch(/gave no verdict, so the case's outcome stays unknown/);
  }, 60_000);

  test("exact prefix reconstruction to a middle node with guidance: exit 0, valid bundle, prefix identical, suffix live, guidance only in the first live request", async () => {
    const llmRecords = source.records.filter((r) => r.boundary === "llm");
    const target = llmRecords[Math.floor(llmRecords.length / 2)];
    const before = llm.requests.length;
    const toolsBefore = tools.calls.length;
    const file = path.join(dir, "replay-1.bundle.json");
    const r = await replayCommand([srcFile, "--target", target.nodeId, "--guidance", "Also consider the family ticket.", "--upstream", llm.url, "--tool-upstream", tools.url, "--out", file, "--id", "test/replay-1"]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    expect(out(r.output)).toMatchObject({ ok: true, status: "replayed", verified: target.seq, target: { boundaryNodeId: target.nodeId, seq: target.seq, exact: true } });
    const b = readBundle(file);
    expect(b.parent).toMatchObject({ bundleId: source.id, targetNodeId: target.nodeId, guidance: "Also consider the family ticket.", mode: "selective" });
    // Prefix: every node before the target, with equal ids and hashes; records equal.
    const tpos = source.order.indexOf(target.nodeId);
    expect(b.order.slice(0, tpos)).toEqual(source.order.slice(0, tpos));
    const srcHash = new Map(source.graph.nodes.map((n) => [n.id, n.contentHash]));
    for (const n of b.graph.nodes.filter((x) => b.order.indexOf(x.id) < tpos)) expect(n.contentHash).toBe(srcHash.get(n.id));
    expect(b.records.slice(0, target.seq)).toEqual(source.records.slice(0, target.seq));
    // Suffix: live, new ids; the upstream saw only live requests, the first carrying the guidance.
    for (const id of b.order.slice(tpos)) expect(srcHash.has(id)).toBe(false);
    const live = llm.requests.slice(before);
    expect(live.length).toBe(b.records.filter((x, i) => i >= target.seq && x.boundary === "llm").length);
    expect(live[0].messages.at(-1)).toEqual({ role: "user", content: "Also consider the family ticket." });
    for (const q of live.slice(1)) expect(JSON.stringify(q)).not.toContain("Also consider the family ticket.");
    // The recorded tool results were served during the prefix: the tool server saw only live calls.
    expect(tools.calls.length - toolsBefore).toBe(b.records.filter((x, i) => i >= target.seq && x.boundary === "tool").length);
  }, 60_000);

  test("divergence at the right seq when the MAS changes a request: exit 3 naming that seq", async () => {
    // Change the MAS: a preload edits the Coder's system prompt, so the first Coder request differs.
    const patch = path.join(dir, "patch-coder.mjs");
    writeFileSync(patch, `import { WORKERS } from ${JSON.stringify(path.join(ROOT, "mas", "orchestrator.ts"))};\nWORKERS.Coder.system += " Show every step.";\n`);
    const coderSeq = source.records.find((r) => r.boundary === "llm" && sys(r.request).startsWith("You are Coder"))!.seq;
    const last = source.records.filter((r) => r.boundary === "llm").at(-1)!;
    const cmd = ["node", "--import", "tsx", "--import", patch, path.join(ROOT, "mas", "orchestrator.ts")];
    const r = await replayCommand([srcFile, "--target", last.nodeId, "--guidance", "g", "--upstream", llm.url, "--tool-upstream", tools.url, "--out", path.join(dir, "never.json"), "--", ...cmd]);
    expect(r.code, JSON.stringify(r.output)).toBe(3);
    const rep = out(r.output);
    expect(rep).toMatchObject({ ok: false, status: "diverged", seq: coderSeq, nodeId: source.records[coderSeq].nodeId, reason: "content", verified: coderSeq });
    expect(rep.diff).toEqual([{ op: "replace", path: "/messages/0/content", expected: expect.any(String), actual: expect.stringContaining("Show every step.") }]);
    expect(String(rep.message)).toContain(`seq ${coderSeq}`);
    expect(String(rep.message)).toContain("/messages/0/content");
    expect(rep.neighbours).toMatchObject({ previous: { seq: coderSeq - 1 }, next: { seq: coderSeq + 1 } });
    expect(() => readFileSync(path.join(dir, "never.json"))).toThrow();
  }, 60_000);

  test("without --upstream the prefix is verified up to the target and the MAS is stopped (exit 0, prefix-verified)", async () => {
    const toolResult = source.graph.nodes.filter((n) => n.type === "tool_result")[1];
    const r = await replayCommand([srcFile, "--target", toolResult.id, "--out", path.join(dir, "pv.json")]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    const o = out(r.output);
    expect(o).toMatchObject({ ok: true, status: "prefix-verified", target: { requested: toolResult.id, exact: false } });
    const mapped = (o.target as { boundaryNodeId: string; seq: number });
    // The tool_result maps to the next LLM call that consumes it.
    expect(source.graph.edges.some((e) => e.from === toolResult.id && e.to === mapped.boundaryNodeId)).toBe(true);
    expect(o.verified).toBe(mapped.seq);
  }, 60_000);

  test("bad input exits 2: unknown target, a target with no LLM boundary after it, unreadable bundle", async () => {
    const fin = source.graph.nodes.find((n) => n.type === "final_result")!.id;
    for (const args of [
      [srcFile, "--target", "nope", "--out", "x.json"],
      [srcFile, "--target", fin, "--out", "x.json"],
      [path.join(dir, "missing.json"), "--target", "a", "--out", "x.json"],
      [srcFile, "--out", "x.json"],
    ]) {
      const r = await replayCommand(args);
      expect(r.code, JSON.stringify(r.output)).toBe(2);
    }
    expect((await recordCommand(["--out", "x.json", "--upstream", llm.url])).code).toBe(2);
  });
});

describe("streaming, replay of a replay, parallel tool calls (scripted local OpenAI-compatible server)", () => {
  test("streaming responses are recorded as raw events and replayed chunk by chunk", async () => {
    const file = path.join(dir, "workflow-stream.bundle.json");
    const src = await recordMas("workflow", file, [], ["env", "SYMTRACE_STREAM=1"]);
    const first = src.records[0].response as { stream: boolean; events: { data: string }[] };
    expect(first.stream).toBe(true);
    expect(first.events.at(-1)).toEqual({ data: "[DONE]" });
    // Replay to the last LLM call; the prefix streams are served from the recording.
    const last = src.records.filter((r) => r.boundary === "llm").at(-1)!;
    // The bundle's own command (with its env prefix) is not run without --allow-bundle-command: give it after --.
    const r = await replayCommand([file, "--target", last.nodeId, "--upstream", llm.url, "--tool-upstream", tools.url, "--out", path.join(dir, "wf-replay.json"), "--", "env", "SYMTRACE_STREAM=1", ...MAS("workflow")]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    // Chunk by chunk at the HTTP level: the replayed SSE body is exactly the recorded events, in order.
    const session = new ReplaySession({ source: src, targetNodeId: last.nodeId, stopAtTarget: true });
    const proxy = await startBoundaryProxy({ session });
    try {
      const res = await fetch(`${proxy.llmUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...(src.records[0].request as object), stream_options: { include_usage: true } }) });
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      const reader = res.body!.getReader();
      const pieces: string[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        pieces.push(new TextDecoder().decode(value));
      }
      expect(pieces.join("")).toBe(first.events.map((e) => `data: ${e.data}\n\n`).join(""));
      expect(pieces.length).toBeGreaterThan(1); // not buffered into one write
    } finally {
      await proxy.close();
    }
  }, 60_000);

  test("replay of a replay: the first replay's guidance is re-applied and its prefix matches", async () => {
    const srcFile = path.join(dir, "conv.bundle.json");
    const src = await recordMas("conversation", srcFile);
    const llms = src.records.filter((r) => r.boundary === "llm");
    const f1 = path.join(dir, "conv-r1.json");
    const r1 = await replayCommand([srcFile, "--target", llms[1].nodeId, "--guidance", "Be brief.", "--upstream", llm.url, "--tool-upstream", tools.url, "--out", f1, "--id", "test/conv-r1"]);
    expect(r1.code, JSON.stringify(r1.output)).toBe(0);
    const b1 = readBundle(f1);
    const t2 = b1.records.filter((r) => r.boundary === "llm").at(-1)!;
    expect(t2.seq).toBeGreaterThan(llms[1].seq);
    const f2 = path.join(dir, "conv-r2.json");
    const r2 = await replayCommand([f1, "--target", t2.nodeId, "--guidance", "Check the total.", "--upstream", llm.url, "--tool-upstream", tools.url, "--out", f2, "--id", "test/conv-r2"]);
    expect(r2.code, JSON.stringify(r2.output)).toBe(0);
    const b2 = readBundle(f2);
    expect(b2.parent).toMatchObject({ bundleId: "test/conv-r1", targetNodeId: t2.nodeId });
    expect(b2.records.slice(0, t2.seq)).toEqual(b1.records.slice(0, t2.seq));
    expect(out(r2.output).verified).toBe(t2.seq);
  }, 90_000);

  test("parallel tool calls from one assistant message are matched as a set, in any arrival order", async () => {
    const par = await startScriptedOpenAI({ respond: echoPlanner({ plan: [[{ name: "fetch_page", arguments: { path: "prices" } }, { name: "fetch_page", arguments: { path: "hours" } }]] }) });
    const client = (url: string) => new OpenAI({ baseURL: url, apiKey: "k", maxRetries: 0 });
    // A tiny MAS: one LLM call naming two tools, the calls issued concurrently, then a final LLM call.
    async function mas(llmUrl: string, toolUrl: string, reverse: boolean) {
      const c = client(llmUrl);
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "prices and hours" }];
      const a = await c.chat.completions.create({ model: "m", messages, temperature: 0 });
      const calls = a.choices[0].message.tool_calls!.filter((t) => t.type === "function");
      messages.push(a.choices[0].message);
      const order = reverse ? [...calls].reverse() : calls;
      const obs = await Promise.all(order.map((t) => fetch(`${toolUrl}/${t.function.name}`, { method: "POST", body: t.function.arguments }).then((r) => r.json())));
      order.forEach((t, i) => messages.push({ role: "tool", tool_call_id: t.id, content: JSON.stringify(obs[i]) }));
      const b = await c.chat.completions.create({ model: "m", messages, temperature: 0 });
      return b.choices[0].message.content;
    }
    try {
      const rec = new RecordSession({ id: "test/par", task: { prompt: "" } });
      const p1 = await startBoundaryProxy({ session: rec, upstream: par.url, toolUpstream: tools.url });
      await mas(p1.llmUrl, p1.toolUrl, false);
      await p1.close();
      const src = rec.toBundle({});
      expect(src.records.filter((r) => r.meta?.parallelGroup === "llm_call_0000").length).toBe(2);
      const rep = new ReplaySession({ source: src, targetNodeId: "llm_call_0001", guidance: "g" });
      const toolCalls = tools.calls.length;
      const p2 = await startBoundaryProxy({ session: rep, upstream: par.url, toolUpstream: tools.url });
      const final = await mas(p2.llmUrl, p2.toolUrl, true);
      await p2.close();
      expect(rep.report).toBeNull();
      expect(rep.verified).toBe(3);
      expect(tools.calls.length).toBe(toolCalls); // both observations came from the recording
      expect(final).toContain("echo: g"); // the guidance is the last user message of the live call
    } finally {
      await par.close();
    }
  }, 30_000);
});

describe("an unmodified openai SDK client against the proxy (scripted local OpenAI-compatible server)", () => {
  test("non-streaming, streaming and models.list through the record proxy; the stream replays with the same chunks", async () => {
    const rec = new RecordSession({ id: "test/sdk", task: { prompt: "hi" } });
    const proxy = await startBoundaryProxy({ session: rec, upstream: llm.url, toolUpstream: tools.url });
    const direct = new OpenAI({ baseURL: llm.url, apiKey: "k", maxRetries: 0 });
    const viaProxy = new OpenAI({ baseURL: proxy.llmUrl, apiKey: "k", maxRetries: 0 });
    const body = { model: "scripted-model", messages: [{ role: "system" as const, content: "You are Writer." }, { role: "user" as const, content: DEMO_TASK }], temperature: 0 };
    const chunks: unknown[] = [];
    try {
      const a = await viaProxy.chat.completions.create(body);
      const b = await direct.chat.completions.create(body);
      expect(a.choices[0].message.content).toBe(b.choices[0].message.content);
      const stream = await viaProxy.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
      for await (const c of stream) chunks.push(c);
      expect(chunks.length).toBeGreaterThan(3);
      const models = await viaProxy.models.list();
      expect(models.data.map((m) => m.id)).toEqual(["scripted-model"]);
    } finally {
      await proxy.close();
    }
    const src = rec.toBundle({});
    const stored = src.records[1].response as { events: { data: string }[] };
    expect(stored.events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data))).toEqual(chunks);
    expect(src.records[1].request).not.toHaveProperty("stream_options");
    // Replay through the SDK: the same chunks, one by one.
    const rep = new ReplaySession({ source: src });
    const p2 = await startBoundaryProxy({ session: rep });
    try {
      const sdk = new OpenAI({ baseURL: p2.llmUrl, apiKey: "other-key", maxRetries: 0 });
      const a = await sdk.chat.completions.create(body);
      expect(a).toEqual(src.records[0].response);
      const again: unknown[] = [];
      // Asked for usage as when recorded: the same chunks (without the option there is no usage chunk: proxy/stream-usage.test.ts).
      for await (const c of await sdk.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } })) again.push(c);
      expect(again).toEqual(chunks);
      expect(rep.end()).toBeNull();
      // Fail-closed: a further request is refused with HTTP 400 and a message saying why.
      await expect(sdk.chat.completions.create(body)).rejects.toThrow(/recording is exhausted/);
    } finally {
      await p2.close();
    }
  }, 30_000);

  test("the CLI prints one JSON object and exits 3 on divergence (npm run symtrace -- replay)", async () => {
    const src = path.join(dir, "cli-src.bundle.json");
    await recordMas("conversation", src);
    const b = readBundle(src);
    const last = b.records.filter((r) => r.boundary === "llm").at(-1)!;
    const res = spawnSync("npm", ["run", "--silent", "symtrace", "--", "replay", src, "--target", last.nodeId, "--out", path.join(dir, "cli-out.json"), "--", "env", "SYMTRACE_MODEL=other-model", ...MAS("conversation")], { cwd: ROOT, encoding: "utf8", env: { ...process.env, SYMTRACE_QUIET: "1" } });
    expect(res.status, res.stdout + res.stderr).toBe(3);
    const o = JSON.parse(res.stdout.trim());
    expect(o).toMatchObject({ status: "diverged", seq: 0, reason: "content", diff: [{ path: "/model", expected: "scripted-model", actual: "other-model" }] });
  }, 60_000);
});
