/**
 * The MARS environment over the replay core on the calibrated world (lib/testing/calibrated: a
 * seeded scripted model served as a LOCAL OpenAI-compatible endpoint; no real model). The action
 * selector and the LLM judge are a second LOCAL scripted OpenAI-compatible server
 * (lib/testing/scripted-mars.ts) answering with tool calls / JSON verdicts by a fixed policy:
 * a finished trajectory → rollback to its 2nd checkpoint; stored guidance → guided_repair;
 * else continuation. Asserts that every tree node's bundle validates and that its prefix verified
 * (the parent's records up to the cut / all of them, unchanged), and the call accounting.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../../bundle";
import { createSearch, runRepairSearch, type SearchState } from "../../repair-search";
import { buildCalibratedMas } from "../../testing/calibrated/fast-mas";
import { recordCalibratedFailures, type RecordedFailure } from "../../testing/calibrated/record";
import { startCalibratedWorld, type CalibratedWorld } from "../../testing/calibrated/world";
import type { ScriptedOpenAI } from "../../testing/scripted-openai";
import { startScriptedMarsControl } from "../../testing/scripted-mars";
import { createReplaySearchEnvironment, parseStateRef, trajectoryView } from "./environment";

let recordWorld: CalibratedWorld;
let live: CalibratedWorld;
let control: ScriptedOpenAI;
let dir: string;
let command: string[];
let failure: RecordedFailure;

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-mars-env-"));
  command = buildCalibratedMas(dir);
  recordWorld = await startCalibratedWorld({ seed: 13, session: "record" });
  live = await startCalibratedWorld({ seed: 13, session: "live" });
  control = await startScriptedMarsControl();
  [failure] = (await recordCalibratedFailures(recordWorld, { count: 1, command })).failures;
}, 180_000);
afterAll(async () => {
  await recordWorld?.stop();
  await live?.stop();
  await control?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("MARS environment over the replay core (calibrated world, scripted selector/judge)", () => {
  test("every tree node is a valid bundle whose prefix verified; rollback executes nothing; calls are counted", async () => {
    const out = path.join(dir, "search");
    const env = createReplaySearchEnvironment({
      outDir: out,
      searchId: "test/mars",
      task: failure.task.prompt,
      upstream: live.upstream,
      toolUpstream: live.toolUpstream,
      command,
      selector: { upstream: control.url, model: "scripted-model" },
      judge: { kind: "llm", upstream: control.url, model: "scripted-model" },
      timeoutMs: 60_000,
    });
    const state: SearchState = createSearch(env.rootState(failure.bundle), { k: 2, l: 2, iterations: 6 });
    await runRepairSearch(state, env);
    expect(state.stopped).toBe("iterations");
    expect(state.order).toHaveLength(7);
    const nodes = state.order.map((id) => state.nodes[id]);
    expect(nodes.filter((n) => n.error)).toEqual([]);
    const kinds = nodes.map((n) => n.action?.kind ?? "root");
    expect(kinds).toContain("rollback");
    expect(kinds.filter((k) => k === "guided_repair" || k === "continuation").length).toBeGreaterThan(0);

    let liveSteps = 0;
    for (const n of nodes.slice(1)) {
      const parent = state.nodes[n.parentId!];
      const ref = parseStateRef(n.state!.stateRef);
      const b = JSON.parse(readFileSync(env.fileOf(n.state!.stateRef), "utf8")) as ReplayBundle;
      const v = validateBundle(b);
      expect(v.ok, `${n.id}: ${JSON.stringify(v.ok ? null : v.issues.slice(0, 2))}`).toBe(true);
      if (n.action!.kind === "rollback") {
        // Executes nothing: the parent's bundle, cut at the checkpoint.
        expect(ref).toEqual({ file: parseStateRef(parent.state!.stateRef).file, cut: n.action!.checkpoint });
        expect(n.state!.usage).toEqual({ calls: 0, tokens: 0 });
        expect(n.state!.checkpoints.at(-1)).toBe(n.action!.checkpoint);
        continue;
      }
      const p = parseStateRef(parent.state!.stateRef);
      const pb = env.bundleOf(parent.state!.stateRef);
      expect(b.parent?.bundleId).toBe(pb.id);
      if (p.cut) {
        // Selective replay to the cut: the records before it are the parent's, verified byte for byte.
        const seq = pb.records.findIndex((r) => r.nodeId === p.cut);
        expect(b.parent).toMatchObject({ mode: "selective" });
        expect(b.records.slice(0, seq)).toEqual(pb.records.slice(0, seq));
        expect(trajectoryView(pb, p.cut).records).toEqual(pb.records.slice(0, seq));
        expect(b.parent?.guidance).toBe(n.action!.kind === "guided_repair" ? parent.storedGuidance : "");
      } else {
        expect(b.parent).toMatchObject({ mode: "continue", boundarySeq: pb.records.length });
        expect(b.records.slice(0, pb.records.length)).toEqual(pb.records);
      }
      expect(n.state!.liveSteps).toBeGreaterThan(0);
      expect(n.state!.liveSteps).toBeLessThanOrEqual(2);
      expect(n.state!.finished).toBe(!(b.parent as { rollout?: { stoppedAtLimit: boolean } }).rollout!.stoppedAtLimit);
      liveSteps += n.state!.liveSteps;
    }
    // One selector and one judge call per iteration, plus one selector call per repeated rollback (no
    // node built for it, issue 22 item 1; scripted control server: 12 requests + repeats), MAS calls = live LLM steps.
    const repeats = state.coercions.filter((c) => c.includes("repeats child")).length;
    expect(repeats).toBeGreaterThan(0);
    expect(state.usage.selector.calls).toBe(6 + repeats);
    expect(state.usage.judge.calls).toBe(6);
    expect(control.requests).toHaveLength(12 + repeats);
    expect(control.requests.filter((r) => r.tools?.length).every((r) => r.temperature === 0.7 && r.tool_choice === "required")).toBe(true);
    expect(control.requests.filter((r) => !r.tools?.length).every((r) => r.temperature === 0.2)).toBe(true);
    expect(state.usage.mas.calls).toBe(liveSteps);
    expect(state.usage.mas.calls).toBeGreaterThan(0);
    expect(state.usage.selector.tokens).toBeGreaterThan(0);
  }, 300_000);

  test("a judge command with the evaluator's contract replaces the LLM judge; a rollback node's bundle file holds the trajectory before the cut", async () => {
    const script = path.join(dir, "judge.mjs");
    writeFileSync(
      script,
      `import { readFileSync } from "node:fs";
const b = JSON.parse(readFileSync(process.env.SYMTRACE_BUNDLE, "utf8"));
console.log(JSON.stringify({ score: 0.25, failureMode: "FM 2.6", feedback: "records=" + b.records.length + " task=" + (process.env.SYMTRACE_TASK === ${JSON.stringify(failure.task.prompt)}) + " final=" + process.env.SYMTRACE_FINAL }));`,
    );
    const env = createReplaySearchEnvironment({
      outDir: path.join(dir, "search-cmd"),
      searchId: "test/mars-cmd",
      task: failure.task.prompt,
      upstream: live.upstream,
      toolUpstream: live.toolUpstream,
      command,
      selector: { upstream: control.url, model: "scripted-model" },
      judge: { kind: "command", command: `node ${script}` },
    });
    const root = env.rootState(failure.bundle);
    const cp = root.checkpoints[1];
    const seq = failure.bundle.records.findIndex((r) => r.nodeId === cp);
    const j = await env.judge({ ...root, stateRef: `${root.stateRef}#${cp}` });
    expect(j.verdict).toMatchObject({ score: 0.25, failureMode: "FM 2.6", feedback: `records=${seq} task=true final=null` });
    expect(j.usage).toEqual({ calls: 1, tokens: 0 });
  }, 60_000);
});
