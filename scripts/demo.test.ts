import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseJsonText, validateBundle, type ReplayBundle } from "../lib/bundle";
import { demoPaths } from "./demo-data";

const ROOT = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "symtrace-stamp-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: tmp, encoding: "utf8" });
const stamp = () => execFileSync("bash", [path.join(ROOT, "scripts/build-stamp.sh"), tmp], { encoding: "utf8" }).trim();

describe("scripts/build-stamp.sh (when `npm run demo` rebuilds)", () => {
  it("ignores bundles written into the repo folder, but changes with the app's sources", () => {
    git("init", "-q");
    mkdirSync(path.join(tmp, "app"));
    writeFileSync(path.join(tmp, "app/page.tsx"), "export default function P() { return null; }\n");
    writeFileSync(path.join(tmp, ".gitignore"), "/data/\n");
    git("add", "-A");
    git("commit", "-qm", "init");
    const clean = stamp();
    expect(clean).toMatch(/^[0-9a-f]{40}-[0-9a-f]{12}$/);
    // A recording / replay output at the top level, in demo/ and under data/: same stamp.
    writeFileSync(path.join(tmp, "run.bundle.json"), "{}");
    mkdirSync(path.join(tmp, "demo"));
    writeFileSync(path.join(tmp, "demo/x.bundle.json"), "{}");
    mkdirSync(path.join(tmp, "data"));
    writeFileSync(path.join(tmp, "data/replay-out.bundle.json"), "{}");
    expect(stamp()).toBe(clean);
    // An edit of an app source or a new app file: a new stamp (the app is rebuilt).
    writeFileSync(path.join(tmp, "app/page.tsx"), "export default function P() { return 1; }\n");
    const edited = stamp();
    expect(edited).not.toBe(clean);
    writeFileSync(path.join(tmp, "app/new.tsx"), "export const x = 1;\n");
    expect(stamp()).not.toBe(edited);
  });
});

describe("the demo's recorded reference-MAS case (demo/)", () => {
  it("is seeded, valid, names the built-in runner orchestrator and was recorded with the stand-in's model", () => {
    const [file] = demoPaths();
    expect(existsSync(file)).toBe(true);
    const b = parseJsonText(readFileSync(file, "utf8")) as ReplayBundle;
    const v = validateBundle(b);
    expect(v.issues).toEqual([]);
    expect(v.ok).toBe(true);
    expect(b.id).toBe("demo/reference-orchestrator-hilltop");
    expect(b.config.runner?.name).toBe("orchestrator");
    expect(b.config.model).toBe("scripted-model");
    expect(b.records.length).toBeGreaterThan(0);
    expect(b.order.filter((id) => id.startsWith("llm_call")).length).toBeGreaterThanOrEqual(4);
  });
});

describe("the demo's finished experiment (demo/experiment)", () => {
  it("seeds a finished experiment with every attempt, its stored report and the attempts' bundles; a second seeding changes nothing", async () => {
    const { freshTestDb } = await import("../lib/db/test-db");
    const { getExperimentReport } = await import("../lib/services/experiments/run");
    const { seedDemoExperiment, demoExperimentDir } = await import("./demo-data");
    const { gunzipSync } = await import("node:zlib");
    const doc = JSON.parse(gunzipSync(readFileSync(path.join(demoExperimentDir(), "experiment.json.gz"))).toString("utf8"));
    const h = await freshTestDb();
    try {
      // every source case and every attempt that left a bundle
      expect(await seedDemoExperiment(h.db)).toEqual({ status: "imported", bundles: doc.cases.length + doc.attempts.filter((a: { bundleId: string | null }) => a.bundleId).length });
      const r = await getExperimentReport(h.db, doc.experiment);
      expect(doc.cases.length).toBeGreaterThanOrEqual(30);
      expect(r?.experiment).toMatchObject({ status: "finished", caseCount: doc.cases.length, attempts: doc.settings.attempts, methods: doc.methods });
      expect(r?.final).toBe(true);
      expect(r?.attempts.length).toBe(doc.attempts.length);
      expect(r?.cli).toEqual(doc.cli);
      expect(Object.keys(r!.cli.methods)).toEqual(["rerun", "self-reflection", "critic", "suspicious-node", "annotated-node", "random-node", "last-node", "node-resample", "nudge"]);
      for (const a of r!.attempts.filter((x) => x.bundleId).slice(0, 20)) {
        const c = await h.db.case.findUnique({ where: { bundleId: a.bundleId! }, select: { sourceDataset: true } });
        expect(c?.sourceDataset).toBe("experiment");
      }
      // the method's own tokens survive the import (the critic's call), so a report rebuilt from the rows keeps them
      const own = (doc.attempts as { auxTokens?: number }[]).reduce((n, a) => n + (a.auxTokens ?? 0), 0);
      expect(own).toBeGreaterThan(0);
      expect((await h.db.experimentAttempt.aggregate({ where: { experimentId: doc.experiment }, _sum: { auxTokens: true } }))._sum.auxTokens).toBe(own);
      const sources = await h.db.experimentCase.findMany({ where: { experimentId: doc.experiment }, select: { caseId: true, primaryCategory: true } });
      expect(sources.every((s) => s.caseId && s.primaryCategory)).toBe(true);
      expect(await seedDemoExperiment(h.db)).toEqual({ status: "skipped", bundles: 0 });
    } finally {
      await h.db.$disconnect();
    }
  }, 300_000);
});
