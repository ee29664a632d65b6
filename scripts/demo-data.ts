import { existsSync, readFileSync, readdirSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { ReplayBundle } from "../lib/bundle";
import type { Db } from "../lib/db/client";

/**
 * The demo's own data in the repo (not the shared folder): demo/reference-orchestrator.bundle.json, one
 * run of the reference MAS (mas/orchestrator.ts, Hilltop Gardens task) recorded with
 * `symtrace record --runner orchestrator` against the scripted stand-in and the tool server
 * (how to re-record: demo/README.md). demo/ is data, never imported by the app's code, so the
 * Next.js build does not watch it.
 */
export function demoPaths(root: string = path.resolve(import.meta.dirname, "..")): string[] {
  return [path.join(root, "demo/reference-orchestrator.bundle.json")];
}

/**
 * The demo's finished experiment (issue 13 item 8): demo/experiment/experiment.json.gz (the
 * `symtrace experiment run` document: frozen settings, cases, every attempt, the report) and
 * demo/experiment/bundles.json.gz (the failed source runs and every attempt's bundle). Recorded on
 * the calibrated world (lib/testing/calibrated); how to re-make it: demo/README.md.
 */
export function demoExperimentDir(root: string = path.resolve(import.meta.dirname, "..")): string {
  return path.join(root, "demo/experiment");
}

const readGz = <T>(file: string): T => JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as T;

/**
 * Seed the demo experiment (idempotent: an experiment with its id already there is left alone, and
 * nothing is imported). Bundles are imported first (attempt bundles as sourceDataset "experiment"),
 * then the experiment with its attempts and stored report (lib/db importExperimentDocument).
 * @returns `{ status, bundles }`; status "missing" when demo/experiment is absent
 */
export async function seedDemoExperiment(db: Db, dir: string = demoExperimentDir()): Promise<{ status: "imported" | "skipped" | "missing"; bundles: number }> {
  const docFile = path.join(dir, "experiment.json.gz");
  if (!existsSync(docFile)) return { status: "missing", bundles: 0 };
  const { importCase } = await import("../lib/db/cases");
  const { importExperimentDocument } = await import("../lib/db/experiment-documents");
  const doc = readGz<Parameters<typeof importExperimentDocument>[1]>(docFile);
  if (await db.experiment.findUnique({ where: { id: doc.experiment }, select: { id: true } })) return { status: "skipped", bundles: 0 };
  const bundles = readGz<ReplayBundle[]>(path.join(dir, "bundles.json.gz"));
  for (const b of bundles) {
    const m = /~exp-([^-]+)-(.+)-a(\d+)$/.exec(b.id);
    await importCase(db, { bundle: b, ...(m ? { source: { dataset: "experiment" as never, file: m[1], recordKey: `${m[2]}#${m[3]}` } } : {}) });
  }
  return { status: await importExperimentDocument(db, doc), bundles: bundles.length };
}

/**
 * Pack a `symtrace experiment run` output directory and its case files into demo/experiment
 * (scripts/calibrated-demo.ts; or `node --import tsx scripts/demo-data.ts pack <out dir> <cases dir>`).
 * The document is copied as the run wrote it: nothing of a finished experiment is edited.
 * @returns where it went, the experiment id and the bundle count
 */
export function pack(outDir: string, casesDir: string, _name?: string): { dir: string; experiment: unknown; bundles: number } {
  const doc = JSON.parse(readFileSync(path.join(outDir, "experiment.json"), "utf8")) as Record<string, unknown>;
  if (_name) throw new Error("pack: renaming a finished experiment is editing it; name it at `experiment run --name`");
  const files = [...readdirSync(casesDir).map((f) => path.join(casesDir, f)), ...readdirSync(path.join(outDir, "bundles")).map((f) => path.join(outDir, "bundles", f))].filter((f) => f.endsWith(".json"));
  const bundles = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as unknown);
  const dir = demoExperimentDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "experiment.json.gz"), gzipSync(JSON.stringify(doc), { level: 9 }));
  writeFileSync(path.join(dir, "bundles.json.gz"), gzipSync(JSON.stringify(bundles), { level: 9 }));
  return { dir, experiment: doc.experiment, bundles: bundles.length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename) && process.argv[2] === "pack") {
  process.stdout.write(JSON.stringify(pack(process.argv[3], process.argv[4], process.argv[5])) + "\n");
}
