/**
 * `symtrace repair-search` on the calibrated world (lib/testing/calibrated: seeded scripted model as
 * a LOCAL OpenAI-compatible endpoint; no real model), with the scripted LOCAL selector/judge server
 * of lib/testing/scripted-mars.ts and the world's ground-truth evaluator. The MAS is the bundled
 * calibrated MAS given after `--`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle } from "../lib/bundle";
import type { SearchState } from "../lib/repair-search";
import { buildCalibratedMas, REPO_ROOT } from "../lib/testing/calibrated/fast-mas";
import { recordCalibratedFailures, type RecordedFailure } from "../lib/testing/calibrated/record";
import { startCalibratedWorld, type CalibratedWorld } from "../lib/testing/calibrated/world";
import { startScriptedMarsControl } from "../lib/testing/scripted-mars";
import type { ScriptedOpenAI } from "../lib/testing/scripted-openai";
import { repairSearchCommand } from "./repair-search";

let recordWorld: CalibratedWorld;
let live: CalibratedWorld;
let control: ScriptedOpenAI;
let dir: string;
let command: string[];
let failure: RecordedFailure;
let file: string;

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-mars-cli-"));
  command = buildCalibratedMas(dir);
  recordWorld = await startCalibratedWorld({ seed: 13, session: "record" });
  live = await startCalibratedWorld({ seed: 13, session: "live" });
  control = await startScriptedMarsControl();
  [failure] = (await recordCalibratedFailures(recordWorld, { count: 1, command })).failures;
  file = path.join(dir, "failed.bundle.json");
  writeFileSync(file, JSON.stringify(failure.bundle));
}, 180_000);
afterAll(async () => {
  await recordWorld?.stop();
  await live?.stop();
  await control?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("symtrace repair-search (calibrated world, scripted selector/judge, local endpoints)", () => {
  test("prints best/iterations/nodes/calls/tokens, writes tree.json and every node's bundle; the evaluator runs once, on the best", async () => {
    const out = path.join(dir, "out");
    const evalLog = path.join(dir, "evaluator.log");
    const evaluator = `echo run >> ${evalLog}; node ${path.join(REPO_ROOT, "scripts/calibrated-evaluator.mjs")}`;
    const r = await repairSearchCommand([file, "--upstream", live.upstream, "--tool-upstream", live.toolUpstream, "--selector-upstream", control.url, "--judge-upstream", control.url, "--evaluator", evaluator, "--iterations", "4", "--seed", "7", "--out", out, "--", ...command]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    const o = r.output as { best: { node: string; bundle: string; cut: string | null; score: number; passed: boolean | null }; iterations: number; nodes: number; calls: Record<string, number>; tokens: Record<string, number>; errors: unknown[] };
    expect(o.iterations).toBe(4);
    expect(o.nodes).toBe(5);
    expect(o.errors).toEqual([]);
    // 4 iterations, 5 selector replies: the scripted selector's second rollback of the root names the
    // same checkpoint as the first, an identical sibling, so it is not built (no node, no iteration;
    // the root takes no more children) and the selector is asked again (issue 22 item 1)
    expect(o.calls.selector).toBe(5);
    expect(o.calls.judge).toBe(4);
    expect(control.requests).toHaveLength(9);
    expect(control.requests.every((q) => q.seed === 7)).toBe(true);
    // one rollback of the root, then three guided repairs (L = 4 live steps at most each) from it
    const tree = JSON.parse(readFileSync(path.join(out, "tree.json"), "utf8")) as SearchState;
    expect(tree.order.map((id) => tree.nodes[id].action?.kind ?? "root")).toEqual(["root", "rollback", "guided_repair", "guided_repair", "guided_repair"]);
    expect(tree.order.slice(2).map((id) => tree.nodes[id].parentId)).toEqual(["n1", "n1", "n1"]);
    const g = tree.nodes.n4;
    const steps = tree.order.slice(2).map((id) => tree.nodes[id].state!.liveSteps);
    expect(o.calls.mas).toBe(steps.reduce((a, b) => a + b, 0));
    for (const l of steps) {
      expect(l).toBeGreaterThan(0);
      expect(l).toBeLessThanOrEqual(4);
    }
    expect(g.parentId).toBe("n1");
    expect(o.tokens.mas).toBe(tree.usage.mas.tokens);
    for (const id of tree.order) {
      const f = path.join(out, tree.nodes[id].state!.stateRef.split("#")[0]);
      expect(existsSync(f)).toBe(true);
      expect(validateBundle(JSON.parse(readFileSync(f, "utf8"))).ok).toBe(true);
    }
    const b = JSON.parse(readFileSync(path.join(out, "n4.bundle.json"), "utf8"));
    expect(b.parent).toMatchObject({ bundleId: failure.bundle.id, mode: "selective", targetNodeId: tree.nodes.n1.action && (tree.nodes.n1.action as { checkpoint: string }).checkpoint });
    // Best = the highest judge score (strictly first); the evaluator ran exactly once.
    const scores = tree.order.slice(1).map((id) => tree.nodes[id].verdict!.score);
    expect(o.best.score).toBe(Math.max(...scores));
    expect(o.best.node).toBe(tree.order[1 + scores.indexOf(Math.max(...scores))]);
    expect(typeof o.best.passed).toBe("boolean");
    expect(readFileSync(evalLog, "utf8").trim().split("\n")).toHaveLength(1);
  }, 240_000);

  test("bad usage: exit 2 without --out or --upstream, exit 1 on a bundle that is not valid", async () => {
    expect((await repairSearchCommand([file, "--upstream", live.upstream])).code).toBe(2);
    expect((await repairSearchCommand([file, "--out", dir])).code).toBe(2);
    expect((await repairSearchCommand([file, "--upstream", live.upstream, "--judge-upstream", control.url, "--judge-cmd", "x", "--out", dir])).code).toBe(2);
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, "{}");
    const r = await repairSearchCommand([bad, "--upstream", live.upstream, "--out", path.join(dir, "o2"), "--", ...command]);
    expect(r.code).toBe(1);
    expect(JSON.stringify(r.output)).toContain("not a valid bundle");
  });
});
