/**
 * `symtrace experiment run|report` with fake methods of seeded outcomes (no MAS, no network:
 * lib/jobs/experiment-fake-methods.ts) on a fresh SQLite database.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serializeBundle, syntheticBundle } from "../lib/bundle";
import { FAKE_METHODS_STAMP, fakeMethods } from "../lib/jobs/experiment-fake-methods";
import { experimentCommand } from "./experiment";

const ROOT = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "symtrace-expcli-"));
const url = "file:" + path.join(tmp, "db.sqlite");
const casesDir = path.join(tmp, "cases");
const quiet = () => {};
const common = ["--attempts", "2", "--upstream", "http://127.0.0.1:9/v1", "--seed", "3"];

beforeAll(() => {
  mkdirSync(casesDir);
  for (let i = 0; i < 4; i++) writeFileSync(path.join(casesDir, `c${i}.json`), serializeBundle(syntheticBundle({ id: `cli-exp-${i}`, turns: 2, seed: 3 * i + 1 })));
});
afterAll(() => {});

describe("symtrace experiment", () => {
  test("run prints the item-7 object and writes experiment.json, results.csv, tables and bundles; report <dir|id> prints it again", async () => {
    const out = path.join(tmp, "out1");
    const methods = fakeMethods({ stepMs: 1, withBundle: true, passRate: { rerun: 0.3, nudge: 0.6, "last-node": 0.4 } });
    const r = await experimentCommand(["run", "--cases", casesDir, "--methods", "rerun,nudge,last-node", ...common, "--workers", "2", "--out", out, "--", "node", "mas.js"], { url, methods, log: quiet });
    expect(r.code).toBe(0);
    const o = r.output as { experiment: string; cases: number; methods: Record<string, { attempts: number; pass: { rate: number; lo: number; hi: number; k: number }; calls: number; skipped: number; errors: number }>; comparisons: Array<Record<string, unknown>> };
    expect(Object.keys(o)).toEqual(["experiment", "cases", "methods", "comparisons"]);
    expect(o.cases).toBe(4);
    expect(Object.keys(o.methods)).toEqual(["rerun", "nudge", "last-node"]);
    // node level: pass@1 is attempt 1, and the counts are of the same attempts (issue 20 item 8): 4 cases × attempt 1
    expect(o.methods.nudge).toMatchObject({ attempts: 4, calls: 12, skipped: 0, errors: 0, pass: { k: 1 } });
    expect(o.methods.rerun.pass.k).toBe(2);
    // The issue-13 fields plus `cost` (MAS vs aux calls and tokens, per repaired case; issue 15 item 5).
    expect(Object.keys(o.methods.nudge).sort()).toEqual(["attempts", "calls", "cost", "errors", "noVerdict", "noVerdictCases", "pass", "rep1", "rep3", "repairsPer1k", "skipped"]);
    expect(o.comparisons.map((c) => Object.keys(c).sort())[0]).toEqual(["a", "b", "diffPoints", "family", "hi", "holmP", "lo", "mcnemarP", "n01", "n10"]);
    const doc = JSON.parse(readFileSync(path.join(out, "experiment.json"), "utf8"));
    expect(doc).toMatchObject({ format: "symtrace.experiment/v1", experiment: o.experiment, status: "finished", settings: { command: ["node", "mas.js"], seed: 3, attempts: 2 } });
    expect(doc.cli).toEqual(o);
    // injected fake methods leave their trace: the frozen settings, the report's meta and notes, every attempt
    expect(doc.settings.fake).toBe(FAKE_METHODS_STAMP);
    expect(doc.report.meta.fake).toBe(FAKE_METHODS_STAMP);
    expect(doc.report.meta.notes[0]).toBe(`NOT A MEASUREMENT: ${FAKE_METHODS_STAMP}.`);
    expect(doc.attempts.every((a: { judgeReason: string | null }) => a.judgeReason === FAKE_METHODS_STAMP)).toBe(true);
    expect(readFileSync(path.join(out, "tables", "settings.csv"), "utf8")).toContain(FAKE_METHODS_STAMP);
    const csv = readFileSync(path.join(out, "results.csv"), "utf8").trim().split("\n");
    expect(csv.length).toBe(1 + doc.attempts.length);
    expect(readdirSync(path.join(out, "tables")).sort()).toEqual(["attempts.csv", "comparisons.csv", "efficiency.csv", "repair.csv", "reproduction.csv", "settings.csv"]);
    expect(readdirSync(path.join(out, "bundles")).length).toBe(doc.attempts.length);
    expect(await experimentCommand(["report", out], { url })).toEqual({ code: 0, output: o });
    expect(await experimentCommand(["report", o.experiment], { url })).toEqual({ code: 0, output: o });
    // the same files again: imported once (skipped), a new experiment with the same seed gives the same outcomes
    const again = await experimentCommand(["run", "--cases", casesDir, "--methods", "rerun,nudge,last-node", ...common, "--out", path.join(tmp, "out2"), "--", "node", "mas.js"], { url, methods, log: quiet });
    const o2 = again.output as typeof o;
    expect(o2.experiment).not.toBe(o.experiment);
    expect(o2.methods).toEqual(o.methods);
  }, 120_000);

  test("budget cap: exit 3, the object covers what ran", async () => {
    const r = await experimentCommand(["run", "--cases", path.join(casesDir, "c0.json"), "--cases", path.join(casesDir, "c1.json"), "--methods", "random-node", ...common, "--max-calls", "5", "--out", path.join(tmp, "out3")], { url, methods: fakeMethods({ stepMs: 1 }), log: quiet });
    expect(r.code).toBe(3);
    // what ran = the attempts pass@1 counts (attempt 1) + the later ones, shown apart (efficiency beyondK)
    const m = (r.output as { methods: Record<string, { attempts: number; calls: number }> }).methods["random-node"];
    const eff = JSON.parse(readFileSync(path.join(tmp, "out3", "experiment.json"), "utf8")).report.efficiency.find((e: { mas: string; method: string }) => e.mas === "all" && e.method === "random-node");
    expect(m.attempts + eff.beyondK.attempts).toBe(2);
    expect(m.calls + eff.beyondK.calls).toBe(6);
  }, 60_000);

  test("bad usage exits 2 naming the flag; bad files / names exit 1 naming the file or path", async () => {
    const base = ["run", "--cases", casesDir, "--methods", "nudge", ...common, "--out", path.join(tmp, "x")];
    const err = (r: { output: unknown }) => (r.output as { errors: Array<{ path: string; message: string }> }).errors[0];
    let r = await experimentCommand(base.filter((a) => a !== "--out" && !a.endsWith("/x")), { url, log: quiet });
    expect(r.code).toBe(2);
    expect(err(r)).toMatchObject({ path: "--out" });
    r = await experimentCommand([...base.slice(0, -2), "--attempts", "0", "--out", "x"].filter((a, i, xs) => !(a === "--attempts" && xs[i + 1] === "2") && !(a === "2" && xs[i - 1] === "--attempts")), { url, log: quiet });
    expect(r.code).toBe(2);
    expect(err(r).path).toBe("--attempts");
    r = await experimentCommand(["run", "--cases", casesDir, "--methods", "nudge", ...common, "--upstream", "ftp://x", "--out", "x"], { url, log: quiet });
    expect(err(r)).toMatchObject({ path: "--upstream" });
    r = await experimentCommand(["run", "--cases", casesDir, "--methods", "nudge,magic", ...common, "--out", path.join(tmp, "x")], { url, methods: fakeMethods(), log: quiet });
    expect(r.code).toBe(1);
    expect(err(r)).toMatchObject({ path: "--methods" });
    expect(err(r).message).toMatch(/unknown method "magic"/);
    const bad = path.join(tmp, "bad.json");
    writeFileSync(bad, JSON.stringify({ format: "symtrace.bundle/v1", id: "b", task: {} }));
    r = await experimentCommand(["run", "--cases", bad, "--methods", "nudge", ...common, "--out", path.join(tmp, "x")], { url, methods: fakeMethods(), log: quiet });
    expect(r.code).toBe(1);
    expect(err(r).path).toContain(bad);
    r = await experimentCommand(["report", "no-such-experiment"], { url });
    expect(r.code).toBe(1);
    expect(err(r).message).toMatch(/no experiment with id "no-such-experiment"/);
  }, 60_000);

  test("wired into `npm run symtrace`; SYMTRACE_EXPERIMENT_FAKE_METHODS=1 is NOT honoured by the production CLI (issue 20 item 5)", async () => {
    const run = (entry: string, out: string) =>
      promisify(execFile)(
        process.execPath,
        ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", entry, "experiment", "run", "--cases", path.join(casesDir, "c2.json"), "--methods", "last-node", ...common, "--out", out],
        { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, SYMTRACE_EXPERIMENT_FAKE_METHODS: "1", SYMTRACE_FAKE_STEP_MS: "1" } },
      ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }));
    // the production entry: the variable is ignored — the real methods are asked for, and real
    // methods need an evaluator's verdict, so the run is refused at creation (no --evaluator here);
    // the fakes (which give their own verdicts and skip that check) would have run
    const prod = path.join(tmp, "out-child-prod");
    const refused = await run("cli/symtrace.ts", prod);
    expect(refused.stdout).toMatch(/no evaluator, so no attempt could get a verdict/);
    expect(existsSync(path.join(prod, "experiment.json"))).toBe(false);
    // the test harness's entry injects the fakes, and they say so
    const out = path.join(tmp, "out-child");
    const { stdout } = await run("lib/testing/fake-symtrace.ts", out);
    const lines = stdout.trim().split("\n");
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0])).toMatchObject({ cases: 1, methods: { "last-node": { attempts: 1 } } });
    expect(JSON.parse(readFileSync(path.join(out, "experiment.json"), "utf8")).settings.fake).toBe(FAKE_METHODS_STAMP);
    const help = await promisify(execFile)(process.execPath, ["--import", "tsx", "cli/symtrace.ts", "help"], { cwd: ROOT });
    expect(help.stdout).toContain("symtrace experiment run");
  }, 120_000);
});
