/**
 * Issue 22 item 1: a repair search (MARS) on a demo case with only the demo's shipped tools — the
 * scripted stand-in model (lib/testing/standin.ts; LOCAL, no real model) as the MAS's endpoint, the
 * action selector and the LLM judge, and the reference tool server — expands, rolls out and ends
 * with a best trajectory. Before, every selector reply failed ("selector must call exactly one
 * function, got 0") and every judge reply was unreadable, and the root got identical children.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../bundle";
import { createSearch, runRepairSearch, sameAction, searchFailure } from "../repair-search";
import { createReplaySearchEnvironment } from "../services/repair-search/environment";
import { loadRunnerRegistry, planReplay } from "../services/runners";
import { STANDIN_MODEL, startStandinStack, type StandinStack } from "./standin";
import { STANDIN_SELECTOR_HINT } from "./scripted-mars";

let stack: StandinStack;
let dir: string;
const source = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../demo/reference-orchestrator.bundle.json"), "utf8")) as ReplayBundle;

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-standin-mars-"));
  stack = await startStandinStack({ llmPort: 0, toolPort: 0 });
});
afterAll(async () => {
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("MARS with the demo's stand-in model as MAS endpoint, selector and judge", () => {
  test("the search expands, rolls out, judges every node and ends with a best trajectory; no two sibling rollbacks are the same", async () => {
    const plan = planReplay(source, loadRunnerRegistry({ ...process.env, SYMTRACE_RUNNERS_FILE: "" }));
    expect(plan.runner?.name).toBe("orchestrator");
    const env = createReplaySearchEnvironment({
      outDir: dir,
      searchId: "test/standin-mars",
      task: source.task.prompt,
      upstream: stack.llmUrl!,
      toolUpstream: stack.toolUrl,
      model: STANDIN_MODEL,
      runner: plan.runner,
      selector: { upstream: stack.llmUrl!, model: "gpt-4o-mini" },
      judge: { kind: "llm", upstream: stack.llmUrl!, model: "gpt-4o-mini" },
      timeoutMs: 120_000,
    });
    const state = createSearch(env.rootState(source), { k: 3, l: 2, iterations: 4 });
    await runRepairSearch(state, env);
    expect(state.stopped).toBe("iterations");
    const nodes = state.order.slice(1).map((id) => state.nodes[id]);
    expect(nodes.map((n) => n.error)).toEqual(nodes.map(() => null));
    expect(searchFailure(state)).toBeNull();
    // The finished root is rolled back with the stand-in selector's hint, then the stored guidance is used.
    expect(nodes[0].action).toMatchObject({ kind: "rollback", guidance: STANDIN_SELECTOR_HINT });
    expect(nodes.map((n) => n.action?.kind)).toContain("guided_repair");
    expect(nodes.every((n) => n.verdict !== null && n.verdict.feedback.startsWith("Scripted stand-in judge (no model was called)"))).toBe(true);
    expect(state.coercions.some((c) => /rollback repeats child n1; n0 takes no more children/.test(c))).toBe(true);
    expect(state.nodes.n0.children).toEqual(["n1"]);
    expect(state.bestId).not.toBe("n0");
    expect(state.maxR).toBeGreaterThan(0);
    for (const n of state.order.map((id) => state.nodes[id])) {
      const acts = n.children.map((c) => state.nodes[c].action).filter((a) => a?.kind === "rollback");
      for (let i = 0; i < acts.length; i++) for (let j = i + 1; j < acts.length; j++) expect(sameAction(acts[i], acts[j])).toBe(false);
    }
    // one selector call per iteration, plus one per repeated rollback (no node built for it)
    const repeats = state.coercions.filter((c) => c.includes("repeats child")).length;
    expect(state.usage.selector.calls).toBe(4 + repeats);
    expect(state.usage.judge.calls).toBe(nodes.length);
    expect(state.usage.mas.calls).toBeGreaterThan(0);
  }, 300_000);
});
