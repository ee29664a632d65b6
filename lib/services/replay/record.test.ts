/**
 * recordRun (lib/services/replay/record.ts): a registered runner recorded through the proxy against
 * the LOCAL scripted OpenAI-compatible server and tool server (lib/testing/replay-stack.ts):
 * the bundle, the model passed as SYMTRACE_MODEL, the runner's name, progress; no command, a
 * timeout and a command that cannot start are failed results, never throws.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle } from "../../bundle";
import { DEMO_TASK } from "../../../mas/scripted-policy";
import { startReplayStack, stopReplayStack, type ReplayStack } from "../../testing/replay-stack";
import { builtinRunners } from "../runners";
import { recordRun } from "./record";

const ROOT = path.resolve(import.meta.dirname, "../../..");
let st: ReplayStack;
beforeAll(async () => {
  st = await startReplayStack("symtrace-record-run-");
});
afterAll(() => stopReplayStack(st));

describe("recordRun (scripted local OpenAI-compatible server)", () => {
  test("a registered runner: valid bundle v1 with the task, runner name, model; live calls = records; progress counts them", async () => {
    const runner = builtinRunners(ROOT).find((r) => r.name === "workflow")!;
    const before = st.llm.requests.length;
    const seen: number[] = [];
    const r = await recordRun(
      { id: "test/record-run", task: { prompt: DEMO_TASK, id: "t1" }, config: { mas: "workflow" }, upstream: st.llm.url, toolUpstream: st.tools.url, runner, model: "model-x", timeoutMs: 60_000 },
      { onProgress: (p) => seen.push(p.liveCalls) },
    );
    expect(r.status, JSON.stringify(r)).toBe("recorded");
    if (r.status !== "recorded") return;
    const v = validateBundle(JSON.parse(JSON.stringify(r.bundle)));
    expect(v.ok).toBe(true);
    expect(r.bundle).toMatchObject({ id: "test/record-run", task: { prompt: DEMO_TASK, id: "t1" }, config: { mas: "workflow", model: "model-x", runner: { name: "workflow", command: runner.command } } });
    const reqs = st.llm.requests.slice(before);
    expect(reqs.every((q) => q.model === "model-x")).toBe(true);
    expect(reqs.length).toBe(r.bundle.records.filter((x) => x.boundary === "llm").length);
    expect(r.liveCalls).toBe(r.bundle.records.length);
    expect(Math.max(...seen)).toBe(r.liveCalls);
    expect(r).toMatchObject({ masExitCode: 0, final: expect.stringContaining("€21.00") });
  }, 60_000);

  test("no command, a command that cannot start, a timeout: failed with the kind", async () => {
    expect(await recordRun({ id: "x", task: { prompt: "t" }, upstream: st.llm.url })).toMatchObject({ status: "failed", kind: "no-command", liveCalls: 0 });
    expect(await recordRun({ id: "x", task: { prompt: "t" }, upstream: st.llm.url, command: ["/nonexistent/mas"] })).toMatchObject({ status: "failed", kind: "spawn", error: expect.stringContaining("cannot start /nonexistent/mas") });
    const slow = await recordRun({ id: "x", task: { prompt: "t" }, upstream: st.llm.url, command: ["node", "-e", "setTimeout(() => {}, 30000)"], timeoutMs: 300 });
    expect(slow).toMatchObject({ status: "failed", kind: "timeout", error: "recording timed out after 300 ms (the MAS was stopped after 0 live calls)" });
  }, 60_000);
});
