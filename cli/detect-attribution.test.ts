/**
 * `symtrace detect --eval --attribution --background`: the run continues in a detached child
 * process; the call returns at once with the run directory, and the child's persisted jobs and
 * output appear there (baselines only: no endpoint needed). Also: usage errors exit 2.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { studyTable } from "../lib/services/attribution/study";
import { attributionCommand } from "./detect-attribution";

const ROOT = path.resolve(__dirname, "../../shared/datasets/who_and_when_full");
const dir = mkdtempSync(path.join(os.tmpdir(), "attr-bg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("detect --eval --attribution", () => {
  test("--background returns at once; the detached run writes its jobs and output", async () => {
    const data = path.join(dir, "data", "Hand-Crafted");
    mkdirSync(data, { recursive: true });
    for (const f of ["1.json", "2.json"]) cpSync(path.join(ROOT, "Hand-Crafted", f), path.join(data, f));
    const runDir = path.join(dir, "run");
    const r = await attributionCommand(["--dir", path.join(dir, "data"), "--methods", "last,random", "--run-dir", runDir, "--background"]);
    expect(r.code).toBe(0);
    expect(r.output).toMatchObject({ background: true, runDir, output: path.join(runDir, "output.json") });
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline && !readFileSync(path.join(runDir, "output.json"), "utf8").trim()) await new Promise((ok) => setTimeout(ok, 500));
    const out = JSON.parse(readFileSync(path.join(runDir, "output.json"), "utf8")) as { jobs: { total: number; ran: number } };
    expect(out.jobs).toMatchObject({ total: 4, ran: 4 });
    const t = studyTable(runDir);
    expect(t.progress).toEqual({ finished: 4, failed: 0, total: 4 });
    expect(t.rows.map((x) => [x.attributor, x.subset, x.done])).toEqual([["last", "Hand-Crafted", 2], ["random", "Hand-Crafted", 2]]);
    expect(existsSync(path.join(runDir, "stderr.log"))).toBe(true);
  }, 180_000);

  test("bad usage exits 2 and names the problem", async () => {
    expect(await attributionCommand([])).toMatchObject({ code: 2 });
    expect(JSON.stringify((await attributionCommand(["--dir", ROOT, "--methods", "mcts"])).output)).toMatch(/unknown attributor \\"mcts\\"/);
    expect((await attributionCommand(["--dir", ROOT, "--ground-truth", "maybe"])).code).toBe(2);
  });
});
