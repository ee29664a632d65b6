/**
 * Tests of the replay executor (lib/services/replay-exec.ts): native selective replay of a
 * reference MAS (mas/orchestrator.ts run as a child process) behind the proxy, against the scripted
 * local OpenAI-compatible server and the local tool server; cancellation; progress; and the
 * transcript continuation of a real Who&When sample.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../bundle";
import { importWhoWhen } from "../importers";
import { echoPlanner, startScriptedOpenAI, type ScriptedOpenAI } from "../testing/scripted-openai";
import { DEMO_TASK } from "../../mas/scripted-policy";
import type { ToolServer } from "../../mas/tools/server";
import { recordCommand } from "../../cli/replay";
import { executeReplay, transcriptMessages, type ReplayProgress } from "./replay-exec";
import { builtinRunners, planReplay, type RegisteredRunner } from "./runners";
import { startReplayStack, stopReplayStack } from "../testing/replay-stack";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const MAS = (name: string) => ["node", "--import", "tsx", path.join(ROOT, "mas", `${name}.ts`)];
const PHASES: ReplayProgress["phase"][] = ["starting", "prefix", "live", "finishing"];
let dir: string;
let llm: ScriptedOpenAI;
let tools: ToolServer;

beforeAll(async () => {
  ({ dir, llm, tools } = await startReplayStack("symtrace-replay-exec-"));
});
afterAll(() => stopReplayStack({ dir, llm, tools }));

const valid = (b: unknown): ReplayBundle => {
  const r = validateBundle(JSON.parse(JSON.stringify(b)));
  if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
  return r.bundle;
};
const sys = (req: unknown) => String((req as { messages: { content: string }[] }).messages[0].content);

/** Pids of live processes whose environment holds `marker` (Linux /proc). */
function pidsWithMarker(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/environ`, "latin1").includes(marker)) out.push(Number(d));
    } catch {
      /* gone or not ours */
    }
  }
  return out;
}

/** An OpenAI-compatible forwarder that answers each request `ms` late (for cancellation). */
async function startDelayed(upstream: string, ms: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      await new Promise((r) => setTimeout(r, ms));
      const up = await fetch(upstream + (req.url ?? "").replace(/^\/v1/, ""), {
        method: req.method,
        headers: { "content-type": "application/json" },
        body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await up.arrayBuffer());
      if (!res.destroyed) {
        res.writeHead(up.status, { "content-type": up.headers.get("content-type") ?? "application/json" });
        res.end(body);
      }
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe("native replay through executeReplay (scripted local OpenAI-compatible server)", () => {
  let source: ReplayBundle;
  let runner: RegisteredRunner;

  beforeAll(async () => {
    const file = path.join(dir, "orchestrator.bundle.json");
    const r = await recordCommand(["--out", file, "--upstream", llm.url, "--tool-upstream", tools.url, "--task", DEMO_TASK, "--id", "test/exec-orchestrator", "--", ...MAS("orchestrator")]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    source = valid(JSON.parse(readFileSync(file, "utf8")));
    // An older bundle without config.runner.name: its runner is inferred from config.mas.
    const plan = planReplay(source, builtinRunners(ROOT));
    expect(plan.mode).toBe("native");
    runner = plan.runner!;
  }, 60_000);

  test("completed: valid bundle, prefix identical, guidance only in the first live request (scripted local OpenAI-compatible server)", async () => {
    const llmRecords = source.records.filter((r) => r.boundary === "llm");
    const target = llmRecords[Math.floor(llmRecords.length / 2)];
    const before = llm.requests.length;
    const r = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "Also consider the family ticket.", upstream: llm.url, toolUpstream: tools.url, newBundleId: "test/exec-r1" });
    expect(r.status, JSON.stringify(r)).toBe("completed");
    if (r.status !== "completed") return;
    expect(r).toMatchObject({ mode: "native", boundaryNodeId: target.nodeId, verified: target.seq });
    const b = valid(r.bundle);
    expect(b.id).toBe("test/exec-r1");
    expect(b.parent).toMatchObject({ bundleId: source.id, targetNodeId: target.nodeId, guidance: "Also consider the family ticket.", mode: "selective" });
    expect(b.records.slice(0, target.seq)).toEqual(source.records.slice(0, target.seq));
    expect(r.liveCalls).toBe(b.records.length - target.seq);
    const live = llm.requests.slice(before);
    expect(live.length).toBe(b.records.filter((x, i) => i >= target.seq && x.boundary === "llm").length);
    expect(live[0].messages.at(-1)).toEqual({ role: "user", content: "Also consider the family ticket." });
    for (const q of live.slice(1)) expect(JSON.stringify(q)).not.toContain("Also consider the family ticket.");
  }, 60_000);

  test("progress callbacks are monotone and end at prefixTotal (scripted local OpenAI-compatible server)", async () => {
    // A tool_result target: mapped to the next LLM call that consumes it (not exact).
    const toolResult = source.graph.nodes.filter((n) => n.type === "tool_result")[1];
    const seen: ReplayProgress[] = [];
    const r = await executeReplay(
      { source, runner, targetNodeId: toolResult.id, guidance: "Double-check the prices.", upstream: llm.url, toolUpstream: tools.url },
      { onProgress: (p) => seen.push({ ...p }) },
    );
    expect(r.status, JSON.stringify(r)).toBe("completed");
    if (r.status !== "completed") return;
    const prefixTotal = source.records.find((x) => x.nodeId === r.boundaryNodeId)!.seq;
    expect(r.bundle.id.startsWith(`${source.id}/replay/${r.boundaryNodeId}/`)).toBe(true);
    expect(seen[0]).toEqual({ phase: "starting", verified: 0, prefixTotal, liveCalls: 0, boundaryNodeId: r.boundaryNodeId });
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].verified).toBeGreaterThanOrEqual(seen[i - 1].verified);
      expect(seen[i].liveCalls).toBeGreaterThanOrEqual(seen[i - 1].liveCalls);
      expect(PHASES.indexOf(seen[i].phase)).toBeGreaterThanOrEqual(PHASES.indexOf(seen[i - 1].phase));
      expect(seen[i].prefixTotal).toBe(prefixTotal);
    }
    expect(seen.filter((p) => p.phase === "prefix").map((p) => p.verified)).toEqual(Array.from({ length: prefixTotal }, (_, i) => i + 1));
    expect(seen.at(-1)).toEqual({ phase: "finishing", verified: prefixTotal, prefixTotal, liveCalls: r.liveCalls, boundaryNodeId: r.boundaryNodeId });
  }, 60_000);

  test("diverged: the first-divergence report names the changed request's seq (scripted local OpenAI-compatible server)", async () => {
    const patch = path.join(dir, "patch-coder.mjs");
    writeFileSync(patch, `import { WORKERS } from ${JSON.stringify(path.join(ROOT, "mas", "orchestrator.ts"))};\nWORKERS.Coder.system += " Show every step.";\n`);
    const coderSeq = source.records.find((r) => r.boundary === "llm" && sys(r.request).startsWith("You are Coder"))!.seq;
    const last = source.records.filter((r) => r.boundary === "llm").at(-1)!;
    const r = await executeReplay({
      source,
      runner,
      targetNodeId: last.nodeId,
      guidance: "g",
      upstream: llm.url,
      toolUpstream: tools.url,
      command: ["node", "--import", "tsx", "--import", patch, path.join(ROOT, "mas", "orchestrator.ts")],
    });
    expect(r.status, JSON.stringify(r)).toBe("diverged");
    if (r.status !== "diverged") return;
    expect(r.verified).toBe(coderSeq);
    expect(r.report).toMatchObject({ status: "diverged", seq: coderSeq, nodeId: source.records[coderSeq].nodeId, reason: "content", verified: coderSeq });
    expect(r.report.diff).toEqual([{ op: "replace", path: "/messages/0/content", expected: expect.any(String), actual: expect.stringContaining("Show every step.") }]);
  }, 60_000);

  test("without upstream: prefix-verified; unknown target and missing command: failed, never thrown (scripted local OpenAI-compatible server)", async () => {
    const target = source.records.filter((r) => r.boundary === "llm")[2];
    const r = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "", upstream: null, toolUpstream: null });
    expect(r).toEqual({ status: "prefix-verified", mode: "native", verified: target.seq, boundaryNodeId: target.nodeId });
    expect(await executeReplay({ source, runner, targetNodeId: "nope", guidance: "", upstream: null, toolUpstream: null })).toMatchObject({ status: "failed", error: expect.stringContaining('"nope"'), verified: 0 });
    const r3 = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "", upstream: null, toolUpstream: null, command: ["/nonexistent/mas-binary"] });
    expect(r3).toMatchObject({ status: "failed", error: expect.stringContaining("cannot start /nonexistent/mas-binary") });
  }, 60_000);

  test("cancel mid-run via AbortSignal: cancelled, the MAS process tree is gone (scripted local OpenAI-compatible server)", async () => {
    const slow = await startDelayed(llm.url, 300);
    const marker = `SYMTRACE_EXEC_TEST_${process.pid}_${Date.now()}`;
    const target = source.records.filter((r) => r.boundary === "llm")[1];
    const ac = new AbortController();
    let runningAtAbort = 0;
    try {
      const t0 = Date.now();
      const r = await executeReplay(
        { source, runner, targetNodeId: target.nodeId, guidance: "Stop early.", upstream: slow.url, toolUpstream: tools.url, env: { SYMTRACE_EXEC_MARKER: marker } },
        {
          signal: ac.signal,
          onProgress: (p) => {
            if (p.phase === "live" && p.liveCalls === 2 && !ac.signal.aborted) {
              runningAtAbort = pidsWithMarker(marker).length;
              ac.abort();
            }
          },
        },
      );
      expect(r).toEqual({ status: "cancelled", verified: target.seq });
      expect(runningAtAbort).toBeGreaterThan(0);
      expect(pidsWithMarker(marker)).toEqual([]);
      expect(Date.now() - t0).toBeLessThan(20_000);
    } finally {
      await slow.close();
    }
    // Already aborted before the start: cancelled at once, nothing spawned.
    const r2 = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "", upstream: llm.url, toolUpstream: tools.url, env: { SYMTRACE_EXEC_MARKER: marker } }, { signal: AbortSignal.abort() });
    expect(r2).toEqual({ status: "cancelled", verified: 0 });
    expect(pidsWithMarker(marker)).toEqual([]);
  }, 60_000);
});

describe("transcript continuation of an imported Who&When run (scripted local OpenAI-compatible server)", () => {
  let source: ReplayBundle;

  beforeAll(() => {
    const file = path.join(SHARED, "datasets", "who_and_when", "Hand-Crafted", "6.json");
    const res = importWhoWhen(readFileSync(file, "utf8"), { fileName: "6.json", subset: "Hand-Crafted" });
    expect(res.failures).toEqual([]);
    source = res.cases[0].bundle;
  });

  test("continues the rebuilt chat live: valid bundle, prefix hashes equal, guidance last (scripted local OpenAI-compatible server)", async () => {
    expect(planReplay(source, builtinRunners(ROOT))).toMatchObject({ mode: "transcript", reason: expect.stringContaining("no runner") });
    const echo = await startScriptedOpenAI({ respond: echoPlanner() });
    const targetNodeId = "msg_0005"; // the labelled mistake step (Orchestrator (thought), mistake_step 5)
    const guidance = "Verify the price on a second real-estate source before concluding.";
    const seen: ReplayProgress[] = [];
    try {
      const r = await executeReplay({ source, targetNodeId, guidance, upstream: echo.url, toolUpstream: null, newBundleId: "test/ww6-continued" }, { onProgress: (p) => seen.push({ ...p }) });
      expect(r.status, JSON.stringify(r)).toBe("completed");
      if (r.status !== "completed") return;
      expect(r).toMatchObject({ mode: "transcript", boundaryNodeId: targetNodeId, verified: 5, liveCalls: 1 });
      const b = valid(r.bundle);
      expect(b.parent).toEqual({ bundleId: source.id, targetNodeId, guidance, mode: "transcript" });
      expect((b.config.replay as Record<string, unknown>).mode).toBe("transcript-continuation");
      // Prefix: the 5 nodes before the target, same ids and hashes, edges among them kept.
      const tpos = source.order.indexOf(targetNodeId);
      expect(b.order.slice(0, tpos)).toEqual(source.order.slice(0, tpos));
      const srcHash = new Map(source.graph.nodes.map((n) => [n.id, n.contentHash]));
      for (const id of b.order.slice(0, tpos)) expect(b.graph.nodes.find((n) => n.id === id)!.contentHash).toBe(srcHash.get(id));
      const prefix = new Set(source.order.slice(0, tpos));
      expect(b.graph.edges.filter((e) => prefix.has(e.to))).toEqual(source.graph.edges.filter((e) => prefix.has(e.from) && prefix.has(e.to)));
      // Live suffix: llm_call (with its record) → agent_action → final_result.
      expect(b.order.slice(tpos).map((id) => b.graph.nodes.find((n) => n.id === id)!.type)).toEqual(["llm_call", "agent_action", "final_result"]);
      expect(b.records.length).toBe(1);
      expect(b.records[0]).toMatchObject({ seq: 0, nodeId: b.order[tpos], boundary: "llm" });
      // The one live request: the whole prefix as chat, the guidance last.
      expect(echo.requests.length).toBe(1);
      const q = echo.requests[0];
      expect(b.records[0].request).toEqual(q);
      expect(q).toMatchObject({ model: "gpt-4o-mini", temperature: 0 });
      expect(q.messages.at(-1)).toEqual({ role: "user", content: guidance });
      const hist = JSON.parse(readFileSync(path.join(SHARED, "datasets", "who_and_when", "Hand-Crafted", "6.json"), "utf8")).history as { role: string; content: string }[];
      expect(q.messages.slice(1, -1)).toEqual([
        { role: "user", content: hist[0].content },
        { role: "assistant", content: `[Orchestrator (thought)] ${hist[1].content}` },
        { role: "assistant", content: `[Orchestrator (thought)] ${hist[2].content}` },
        { role: "assistant", content: `[Orchestrator (-> WebSurfer)] ${hist[3].content}` },
        { role: "user", content: `[tool result from WebSurfer] ${hist[4].content}` },
      ]);
      expect(q.messages[0].role).toBe("system");
      const final = b.graph.nodes.find((n) => n.type === "final_result")!;
      expect(final.content).toEqual({ final: `echo: ${guidance}` });
      expect(b.graph.nodes.find((n) => n.type === "agent_action" && !prefix.has(n.id))!.agent).toBe("Orchestrator");
      // Progress: starting, prefix up to 5, live, finishing.
      expect(seen.map((p) => p.phase)).toEqual(["starting", "prefix", "prefix", "prefix", "prefix", "prefix", "live", "finishing"]);
      expect(seen.at(-1)).toMatchObject({ verified: 5, prefixTotal: 5, liveCalls: 1, boundaryNodeId: targetNodeId });
      // Model override.
      const r2 = await executeReplay({ source, targetNodeId, guidance: "", upstream: echo.url, toolUpstream: null, model: "other-model" });
      expect(r2.status).toBe("completed");
      expect(echo.requests[1].model).toBe("other-model");
      expect(echo.requests[1].messages.at(-1)!.content).toBe(`[tool result from WebSurfer] ${hist[4].content}`);
    } finally {
      await echo.close();
    }
  });

  test("without upstream: prefix-verified with verified = prefix nodes; an unknown target fails (scripted local OpenAI-compatible server)", async () => {
    const r = await executeReplay({ source, targetNodeId: "msg_0004", guidance: "g", upstream: null, toolUpstream: null });
    expect(r).toEqual({ status: "prefix-verified", mode: "transcript", verified: 4, boundaryNodeId: "msg_0004" });
    expect(await executeReplay({ source, targetNodeId: "msg_9999", guidance: "g", upstream: null, toolUpstream: null })).toMatchObject({ status: "failed", verified: 0 });
    // Target = the first node: no prefix, so the task prompt is the user message before the guidance.
    expect(transcriptMessages(source, "msg_0000", "g").slice(1)).toEqual([
      { role: "user", content: source.task.prompt },
      { role: "user", content: "g" },
    ]);
  });

  test("a continuation with nothing recorded to continue (no task, no text before the target) is refused, not run from an empty conversation", async () => {
    const empty: ReplayBundle = { ...source, task: { ...source.task, prompt: "" } };
    // the first node as the target: no prefix, and no task prompt either
    const r = await executeReplay({ source: empty, targetNodeId: "msg_0000", guidance: "g", upstream: "http://127.0.0.1:9/v1", toolUpstream: null });
    expect(r).toMatchObject({ status: "failed", error: expect.stringMatching(/^nothing recorded before msg_0000 carries conversation text .*choose a later node$/) });
  });
});
