/**
 * A fast launcher of mas/calibrated.ts for tests and benchmarks: the MAS bundled once with esbuild
 * (installed with tsx) into one ES module run by plain `node`, so a MAS process costs ~0.15 s of
 * CPU instead of ~0.6 s with the tsx loader. Same code, same requests: a bundle recorded with one
 * command replays with the other. The registered runner `calibrated` (lib/services/runners.ts)
 * keeps the `node --import tsx mas/calibrated.ts` form of the other reference MAS.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";

/** Repo root (this file is lib/testing/calibrated/fast-mas.ts). */
export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

/** The registered-runner form: `node --import tsx <root>/mas/calibrated.ts`. */
export function calibratedTsxCommand(root: string = REPO_ROOT): string[] {
  return [process.execPath, "--import", "tsx", path.join(root, "mas", "calibrated.ts")];
}

/**
 * Bundle mas/calibrated.ts into `<dir>/calibrated.mjs`.
 * @returns the command `[node, <dir>/calibrated.mjs]`
 * @throws Error when esbuild fails (its message)
 */
export function buildCalibratedMas(dir: string, root: string = REPO_ROOT): string[] {
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, "calibrated.mjs");
  buildSync({ entryPoints: [path.join(root, "mas", "calibrated.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile, logLevel: "error" });
  return [process.execPath, outfile];
}
