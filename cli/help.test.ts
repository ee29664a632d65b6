/**
 * Issue 22 item 9: `symtrace help` lists the `mars` method and the `--mars-*` flags of
 * `experiment run` (before, its experiment line was a hand-written copy without either).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { METHOD_NAMES } from "../lib/experiments/methods";
import { EXPERIMENT_RUN_USAGE } from "./experiment";

const ROOT = path.resolve(import.meta.dirname, "..");

test("help prints experiment run's own usage (every --mars-* flag) and every method name, mars included", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "cli/symtrace.ts", "help"], { cwd: ROOT });
  const usage = (JSON.parse(stdout) as { usage: string[] }).usage;
  expect(usage).toContain(EXPERIMENT_RUN_USAGE);
  for (const f of ["--mars-iterations", "--mars-max-calls", "--mars-max-tokens", "--mars-selector-upstream", "--mars-judge-cmd", "--mars-judge-upstream"]) expect(EXPERIMENT_RUN_USAGE).toContain(f);
  expect(usage).toContain(`  (experiment methods: ${METHOD_NAMES.join(", ")})`);
  expect(METHOD_NAMES).toContain("mars");
}, 60_000);
