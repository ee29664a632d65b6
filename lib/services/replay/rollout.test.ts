/**
 * Partial rollouts (seeds/002 "Partial Rollout", L; issue 15 item 1): a selective replay that stops
 * cleanly after L live LLM boundaries, and a "continue" replay of a whole (partial) bundle that
 * verifies every record and runs L more live steps. Reference MAS mas/orchestrator.ts as a child
 * process behind the proxy, against the scripted local OpenAI-compatible server and tool server.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../../bundle";
import { DEMO_TASK } from "../../../mas/scripted-policy";
import type { ToolServer } from "../../../mas/tools/server";
import type { ScriptedOpenAI } from "../../testing/scripted-openai";
import { startReplayStack, stopReplayStack } from "../../testing/replay-stack";
import { recordCommand } from "../../../cli/replay";
import { builtinRunners, planReplay, type RegisteredRunner } from "../runners";
import { executeReplay } from "./execute";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const MAS = (name: string) => ["node", "--import", "tsx", path.join(ROOT, "mas", `${name}.ts`)];
let dir: string;
let llm: ScriptedOpenAI;
let tools: ToolServer;
let source: ReplayBundle;
let runner: RegisteredRunner;

const valid = (b: unknown): ReplayBundle => {
  const r = validateBundle(JSON.parse(JSON.stringify(b)));
  if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
  return r.bundle;
};
const llmCount = (b: ReplayBundle, from = 0) => b.records.filter((r, i) => i >= from && r.boundary === "llm").length;

beforeAll(async () => {
  ({ dir, llm, tools } = await startReplayStack("symtrace-rollout-"));
  const file = path.join(dir, "orchestrator.bundle.json");
  const r = await recordCommand(["--out", file, "--upstream", llm.url, "--tool-upstream", tools.url, "--task", DEMO_TASK, "--id", "test/rollout-src", "--runner", "orchestrator", "--", ...MAS("orchestrator")]);
  expect(r.code, JSON.stringify(r.output)).toBe(0);
  source = valid(JSON.parse(readFileSync(file, "utf8")));
  runner = planReplay(source, builtinRunners(ROOT)).runner!;
}, 120_000);
afterAll(() => stopReplayStack({ dir, llm, tools }));

describe("partial rollouts (scripted local OpenAI-compatible server)", () => {
  test("a selective replay with maxLiveLlm = 2 stops after 2 live LLM boundaries and writes a valid bundle saying so", async () => {
    const llmRecords = source.records.filter((r) => r.boundary === "llm");
    expect(llmRecords.length).toBeGreaterThan(4);
    const target = llmRecords[1];
    const before = llm.requests.length;
    const r = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "Check each price twice.", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 2, newBundleId: "test/rollout-1" });
    expect(r.status, JSON.stringify(r).slice(0, 400)).toBe("completed");
    if (r.status !== "completed") return;
    expect(r.rollout).toEqual({ liveLlm: 2, stoppedAtLimit: true });
    const b = valid(r.bundle);
    expect(llmCount(b, target.seq)).toBe(2);
    expect(llm.requests.length - before).toBe(2); // the third LLM request never reached the upstream
    expect(b.records.slice(0, target.seq)).toEqual(source.records.slice(0, target.seq));
    expect(b.parent).toMatchObject({ bundleId: source.id, targetNodeId: target.nodeId, guidance: "Check each price twice.", mode: "selective", rollout: { maxLiveLlm: 2, liveLlm: 2, stoppedAtLimit: true } });
    expect(b.records.length).toBeLessThan(source.records.length);
  }, 120_000);

  test("a continue replay verifies every record of the partial bundle, then runs L more live steps; chained to the end it completes the run", async () => {
    const target = source.records.filter((r) => r.boundary === "llm")[1];
    const first = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 1, newBundleId: "test/rollout-a" });
    expect(first.status).toBe("completed");
    if (first.status !== "completed") return;
    const partial = valid(first.bundle);

    const before = llm.requests.length;
    const second = await executeReplay({ source: partial, runner, targetNodeId: "", continueAtEnd: true, guidance: "Use the tool output verbatim.", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 2, newBundleId: "test/rollout-b" });
    expect(second.status, JSON.stringify(second).slice(0, 400)).toBe("completed");
    if (second.status !== "completed") return;
    expect(second.verified).toBe(partial.records.length);
    expect(second.rollout).toEqual({ liveLlm: 2, stoppedAtLimit: true });
    const b = valid(second.bundle);
    expect(b.records.slice(0, partial.records.length)).toEqual(partial.records);
    expect(llmCount(b, partial.records.length)).toBe(2);
    expect(b.parent).toMatchObject({ bundleId: partial.id, mode: "continue", guidance: "Use the tool output verbatim.", boundarySeq: partial.records.length, rollout: { maxLiveLlm: 2, liveLlm: 2, stoppedAtLimit: true } });
    const live = llm.requests.slice(before);
    expect(live).toHaveLength(2);
    expect(live[0].messages.at(-1)).toEqual({ role: "user", content: "Use the tool output verbatim." });
    expect(JSON.stringify(live[1])).not.toContain("Use the tool output verbatim.");

    // No limit: the MAS runs to its end; the final answer is kept.
    const third = await executeReplay({ source: b, runner, targetNodeId: "", continueAtEnd: true, guidance: "", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 50, newBundleId: "test/rollout-c" });
    expect(third.status, JSON.stringify(third).slice(0, 400)).toBe("completed");
    if (third.status !== "completed") return;
    expect(third.rollout?.stoppedAtLimit).toBe(false);
    const c = valid(third.bundle);
    expect(c.graph.nodes.filter((n) => n.type === "final_result")).toHaveLength(1);
    expect(c.graph.nodes.filter((n) => n.type === "final_result")[0].content).toMatchObject({ final: expect.stringContaining("") });
  }, 180_000);

  test("fail-closed: a continue replay whose MAS asks for something else diverges; bad settings fail, never throw", async () => {
    const target = source.records.filter((r) => r.boundary === "llm")[1];
    const r = await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 1 });
    if (r.status !== "completed") throw new Error(r.status);
    // Tamper a recorded request hash in the partial bundle: its replay must stop at that record.
    const tampered = JSON.parse(JSON.stringify(r.bundle)) as ReplayBundle;
    tampered.records[0].requestHash = "sha256:" + "0".repeat(64);
    const d = await executeReplay({ source: tampered, runner, targetNodeId: "", continueAtEnd: true, guidance: "", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 1 });
    expect(d.status).toBe("diverged");
    if (d.status === "diverged") expect(d.report).toMatchObject({ seq: 0, verified: 0 });
    expect(await executeReplay({ source, runner, targetNodeId: "", continueAtEnd: true, guidance: "", upstream: null, toolUpstream: null })).toMatchObject({ status: "failed", error: expect.stringContaining("give an upstream") });
    expect(await executeReplay({ source, runner, targetNodeId: target.nodeId, guidance: "", upstream: llm.url, toolUpstream: tools.url, maxLiveLlm: 0 })).toMatchObject({ status: "failed", error: expect.stringContaining("maxLiveLlm must be a positive integer") });
  }, 120_000);
});
