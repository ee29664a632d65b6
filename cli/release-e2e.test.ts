/**
 * Issue 14 "Done when", end to end on fresh SQLite databases (PostgreSQL with TEST_DATABASE_URL), through the entry points a user
 * calls: `npm run db:seed` (demo data), calibrated-world failures recorded and imported as cases
 * (lib/testing/calibrated: a seeded local OpenAI-compatible endpoint and tool server, no network;
 * `symtrace import`'s importPaths), three annotators annotate blind (trace-grounded quotes, a
 * proposed correction) and an adjudicator finalizes (lib/db/annotations, what the annotation pages
 * call), `symtrace experiment run` on three of them (node-level matched pairs: `correction` /
 * `correction-control` and `annotated-node` / `node-resample`, k = 2), `symtrace release
 * export`, `release import` into a new empty database, and `release export --format aed |
 * sft-diagnosis | sft-recovery | preference`. Checked independently of the exporter's code:
 * bundle hashes and agreement figures (Fleiss' κ recomputed here), every AED row against the
 * repo's JSON Schema with ajv, each grade from the stored attempts by the seeds/004 ladder, every
 * quote at or before the blamed node, and no task in two splits (split rule recomputed here).
 * Ports 5210–5213 (override: SYMTRACE_TEST_REL_PORT).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../lib/bundle";
import { openDb, type Db } from "../lib/db/client";
import { exportBundle } from "../lib/db/cases";
import { freshTestDb } from "../lib/db/test-db";
import { assignCases, finalizeCase, saveDraft, submitInitial } from "../lib/db/annotations";
import type { AnnotationFields, Role } from "../lib/annotation";
import { agreementFromDb } from "../lib/services/agreement";
import { importPaths } from "../lib/services/import-files";
import { unitPriceFor } from "../lib/testing/calibrated/catalogue.mjs";
import { buildCalibratedMas } from "../lib/testing/calibrated/fast-mas";
import { recordCalibratedFailures, recordCalibratedRun, referenceOf, type RecordedFailure } from "../lib/testing/calibrated/record";
import { startCalibratedWorld, type CalibratedWorld } from "../lib/testing/calibrated/world";
import { experimentCommand } from "./experiment";
import { TASK_LEVEL_METHODS } from "../lib/experiments";
import { releaseCommand } from "./release";

const ROOT = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "symtrace-rel-e2e-"));
/** Source and destination databases: fresh SQLite files, or fresh PostgreSQL databases when TEST_DATABASE_URL names a server (lib/db/test-db.ts). */
let srcUrl = "file:" + path.join(tmp, "src.db");
let dstUrl = "file:" + path.join(tmp, "dst.db");
const casesDir = path.join(tmp, "cases");
/** The second failure of the first task: imported and annotated, not in the experiment (its grade: E0). */
const extraDir = path.join(tmp, "cases-extra");
const releaseDir = path.join(tmp, "release");
const base = Number(process.env.SYMTRACE_TEST_REL_PORT ?? 5210);
const WORLD_SEED = 29;
/**
 * The experiment's node-level methods: two matched pairs (treatment, control), in the order
 * lib/release/aed/experiments.ts prefers them — the proposed correction substituted vs the
 * original request re-executed, and guidance at the annotated node vs an unguided resample.
 */
const PAIRS = [
  ["correction", "correction-control"],
  ["annotated-node", "node-resample"],
] as const;
const METHODS = PAIRS.flat();
const K = 2;

let mas: string[];
let live: CalibratedWorld | undefined;
let src: Db;
let failures: RecordedFailure[] = [];
/** Case ids (database) and bundles of the recorded failures, in recording order. */
const cases: Array<{ caseId: string; bundleId: string; bundle: ReplayBundle; taskId: string; category: string; nodeId: string; failure: RecordedFailure }> = [];
/** The annotations made here, per case: three initial (annotator index → fields) and the final. */
const made = new Map<string, { initial: AnnotationFields[]; final: AnnotationFields }>();

/** Run `npm run -s db:seed` against `url` (the README's demo data), as a user does. */
function seedDemo(url: string): Promise<{ imported: number; failed: unknown[]; accountsCreated: string[] }> {
  return new Promise((resolve, reject) => {
    const p = spawn("npm", ["run", "-s", "db:seed"], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("error", reject);
    p.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!)) : reject(new Error(`db:seed exited ${code}: ${err.slice(-2000)}`))));
  });
}

/** `symtrace release …` against `url` (the CLI reads DATABASE_URL). */
async function release(url: string, args: string[]) {
  const prev = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  try {
    return await releaseCommand(args);
  } finally {
    if (prev === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = prev;
  }
}

/** Every string in a JSON value (the texts a quote can come from). */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === "object") return Object.values(v).flatMap(strings);
  return [];
}
/** Quote matching as the annotation protocol states it: NFC, whitespace runs folded, case exact. */
const norm = (s: string) => s.normalize("NFC").replace(/\s+/g, " ").trim();
const nodeHas = (b: ReplayBundle, nodeId: string, q: string) => strings(b.graph.nodes.find((n) => n.id === nodeId)?.content).some((t) => norm(t).includes(norm(q)));

/** A verbatim quote (≥ 12 chars, no double quote or newline) from a node's content, or null. */
function quoteFrom(b: ReplayBundle, nodeId: string, skip = 0): string | null {
  const runs = strings(b.graph.nodes.find((n) => n.id === nodeId)?.content)
    .flatMap((t) => t.split(/["\n]/))
    .map((t) => t.trim())
    .filter((t) => t.length >= 12)
    .sort((x, y) => y.length - x.length);
  const r = runs[skip] ?? runs[0];
  return r ? r.slice(0, 48).trim() : null;
}

/** The nearest node before `nodeId` in the observed order with a quotable text. */
function earlierQuote(b: ReplayBundle, nodeId: string): { nodeId: string; quote: string } {
  for (let i = b.order.indexOf(nodeId) - 1; i >= 0; i--) {
    const q = quoteFrom(b, b.order[i]!);
    if (q) return { nodeId: b.order[i]!, quote: q };
  }
  throw new Error(`no quotable node before ${nodeId} in ${b.id}`);
}

const nodeType = (b: ReplayBundle, id: string) => b.graph.nodes.find((n) => n.id === id)!.type;
const otherCategory = (c: string) => (c === "C4" ? "C1" : `C${Number(c.slice(1)) + 1}`);

/** Fleiss' κ of nominal ratings (rows: items, each with the same number of raters). Written here, independently of lib/agreement. */
function fleiss(items: string[][]): number {
  const n = items[0]!.length;
  const cats = [...new Set(items.flat())];
  const P = items.map((it) => cats.reduce((s, c) => s + it.filter((x) => x === c).length * (it.filter((x) => x === c).length - 1), 0) / (n * (n - 1)));
  const Pbar = P.reduce((a, b) => a + b, 0) / items.length;
  const Pe = cats.reduce((s, c) => s + (items.flat().filter((x) => x === c).length / (items.length * n)) ** 2, 0);
  return (Pbar - Pe) / (1 - Pe);
}

/** The seeds/004 evidence ladder (§3.1, App. D.2), written here from the wording. */
function ladder(grounded: boolean, T: Array<boolean | null>, C: Array<boolean | null>): string {
  if (!grounded) return "ungrounded";
  const tv = T.filter((x) => x !== null);
  if (T.length === 0 || tv.length === 0) return "E0";
  const s = tv.filter(Boolean).length;
  if (s === 0) return "no_recovery";
  if (s < tv.length) return "partial_recovery";
  const e2 = T.length >= 2 && C.length >= 2 && T.every((x) => x === true) && C.every((x) => x === false);
  return e2 ? "E2" : "E1";
}

/** The documented split rule (lib/release/aed/split.ts), recomputed: u = first 48 bits of sha256("<seed>\0<task>") / 2^48. */
function splitOfTask(task: string, seed: string, train: number, validation: number): string {
  const u = createHash("sha256").update(`${seed}\u0000${task}`).digest().readUIntBE(0, 6) / 2 ** 48;
  return u < train ? "train" : u < train + validation ? "validation" : "test";
}

const jsonl = (f: string) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1"; // the MAS's progress lines
  mas = buildCalibratedMas(path.join(tmp, "mas"));
  if (process.env.TEST_DATABASE_URL) {
    for (const which of ["src", "dst"] as const) {
      const h = await freshTestDb();
      await h.db.$disconnect();
      if (which === "src") srcUrl = h.url;
      else dstUrl = h.url;
    }
  }
  // The demo data and the recording are independent: run them side by side.
  const seeding = seedDemo(srcUrl);
  const rec = await startCalibratedWorld({ seed: WORLD_SEED, session: "record", port: base, toolPort: base + 1 });
  try {
    ({ failures } = await recordCalibratedFailures(rec, { count: 3, command: mas, outDir: casesDir }));
    // A second failed run of the first task: two cases of one task (they must share a split).
    const task = failures[0]!.task;
    for (let t = 0; ; t++) {
      if (t >= 6) throw new Error(`task ${task.id} passed 6 fresh runs`);
      const r = await recordCalibratedRun(rec, task, { id: `calibrated/${WORLD_SEED}/${task.id}/again${t}`, command: mas });
      if (r.passed) continue;
      const reference = referenceOf(r.bundle, task);
      mkdirSync(extraDir, { recursive: true });
      const file = path.join(extraDir, `004-${task.id}-again.json`);
      const withMeta = { ...r.bundle, source: { dataset: "bundle", file: path.basename(file), subset: "calibrated" } } as ReplayBundle;
      writeFileSync(file, JSON.stringify(withMeta));
      failures.push({ task, bundle: withMeta, reference, file });
      break;
    }
  } finally {
    await rec.stop();
  }
  const seeded = await seeding;
  expect(seeded.failed).toEqual([]);
  expect(seeded.accountsCreated).toHaveLength(6);
  live = await startCalibratedWorld({ seed: WORLD_SEED, port: base + 2, toolPort: base + 3 });
  src = openDb(srcUrl).db;
}, 240_000);

afterAll(async () => {
  await live?.stop();
  await src?.$disconnect();
});

describe(`issue 14 end to end (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"}): demo data → annotate → adjudicate → experiment → release → import, AED and views`, () => {
  test("the recorded calibrated failures are imported as cases beside the demo data", async () => {
    const before = await src.case.count();
    expect(before).toBeGreaterThan(20); // the demo data is there
    const r = await importPaths(src, [casesDir, extraDir]);
    expect(r.failed).toEqual([]);
    expect(r.imported).toBe(4);
    for (const f of failures) {
      const c = r.cases.find((x) => x.bundleId === f.bundle.id)!;
      const bundle = (await exportBundle(src, { caseId: c.caseId }))!;
      expect(bundle.outcome?.passed).toBe(false);
      cases.push({ caseId: c.caseId, bundleId: f.bundle.id, bundle, taskId: f.task.id, category: f.task.category, nodeId: f.reference.nodeId, failure: f });
    }
    expect(new Set(cases.map((c) => c.taskId)).size).toBe(3);
    expect(await src.case.count()).toBe(before + 4);
  });

  test("three annotators annotate blind with quotes and a correction; the adjudicator finalizes", async () => {
    const user = async (email: string) => {
      const u = await src.user.findUniqueOrThrow({ where: { email } });
      return { id: u.id, roles: u.roles.split(",") as Role[] };
    };
    const admin = await user("admin@symtrace.local");
    const annotators = await Promise.all(["annotator1", "annotator2", "annotator3"].map((a) => user(`${a}@symtrace.local`)));
    const adjudicator = await user("adjudicator@symtrace.local");
    await assignCases(src, admin, { caseIds: cases.map((c) => c.caseId), perCase: 3, annotatorIds: annotators.map((a) => a.id), adjudicatorId: adjudicator.id });
    for (const [ci, c] of cases.entries()) {
      const b = c.bundle;
      const atNode = quoteFrom(b, c.nodeId);
      const before = earlierQuote(b, c.nodeId);
      const evidence = [...(atNode ? [{ nodeId: c.nodeId, quote: atNode }] : []), before];
      const correct: AnnotationFields = {
        categories: [c.category as AnnotationFields["primary"] & string],
        primary: c.category as AnnotationFields["primary"],
        nodeId: c.nodeId,
        nodeType: nodeType(b, c.nodeId),
        confidence: "high",
        rationale: `The failure starts here: the trace shows "${before.quote}" before this step, and the step does not use the looked-up price.`,
        evidence,
        // a* at the node: the Clerk's report line with the unit price for the task's quantity (the
        // lookup result shows it); on case 3 the adjudicator gets the price wrong
        correction: `FACT: unit price of ${c.failure.task.item.sku} = ${(ci === 2 ? 1.11 : unitPriceFor(c.failure.task.item, c.failure.task.qty)).toFixed(2)} EUR.`,
      };
      const initial: AnnotationFields[] = annotators.map(() => structuredClone(correct));
      // Disagreement, so the agreement figures are not trivial: annotator 3 blames an earlier node
      // with another category on case 2; annotator 2 adds a second category on case 3.
      if (ci === 1) initial[2] = { ...initial[2]!, categories: [otherCategory(c.category)] as AnnotationFields["categories"], primary: otherCategory(c.category) as AnnotationFields["primary"], nodeId: before.nodeId, nodeType: nodeType(b, before.nodeId), evidence: [before], correction: "" };
      if (ci === 2) initial[1] = { ...initial[1]!, categories: [c.category, otherCategory(c.category)].sort() as AnnotationFields["categories"] };
      for (const [ai, a] of annotators.entries()) {
        // blind: no one has seen anyone else's work; each saves a draft, then submits it
        const d = await saveDraft(src, a, { caseId: c.caseId, kind: "initial", version: 0, fields: initial[ai]! });
        await submitInitial(src, a, { caseId: c.caseId, version: d.version });
      }
      await finalizeCase(src, adjudicator, { caseId: c.caseId, fields: correct });
      made.set(c.caseId, { initial, final: correct });
    }
    expect(await src.case.count({ where: { id: { in: cases.map((c) => c.caseId) }, finalAnnotationId: { not: null } } })).toBe(4);
    expect(await src.annotation.count({ where: { kind: "initial", status: "submitted" } })).toBe(12);
  });

  test(`experiment run on the calibrated world: ${METHODS.join(", ")}, k = ${K}`, async () => {
    const r = await experimentCommand(
      [
        "run", "--cases", casesDir, "--methods", METHODS.join(","), "--attempts", String(K),
        "--upstream", live!.upstream, "--tool-upstream", live!.toolUpstream,
        "--evaluator", "node scripts/calibrated-evaluator.mjs",
        "--seed", "7", "--workers", "2", "--out", path.join(tmp, "exp"), "--", ...mas,
      ],
      { url: srcUrl, log: () => {} },
    );
    expect(r.code).toBe(0);
    const o = r.output as { cases: number; methods: Record<string, { attempts: number; errors: number; skipped: number }> };
    expect(o.cases).toBe(3);
    // all K attempts of every case ran; a node-level method's repair rate (pass@k) counts attempt 1
    // of each case, its later attempts feed rep_k (issue 20 item 8), task-level methods count all K
    const stored = JSON.parse(readFileSync(path.join(tmp, "exp", "experiment.json"), "utf8")) as { attempts: Array<{ method: string }> };
    for (const m of METHODS) {
      expect(stored.attempts.filter((a) => a.method === m), m).toHaveLength(3 * K);
      expect(o.methods[m], m).toMatchObject({ attempts: (TASK_LEVEL_METHODS.includes(m) ? K : 1) * 3, errors: 0, skipped: 0 });
    }
  }, 180_000);

  test("release export, then release import into a new empty database: identical bundle hashes and agreement figures", async () => {
    process.env.SYMTRACE_RELEASE_PSEUDONYM_KEY = "e2e-key";
    const ex = await release(srcUrl, ["export", "--out", releaseDir]);
    expect(ex.code).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(releaseDir, "manifest.json"), "utf8")) as { cases: Array<{ bundleId: string; bundleHash: string; sha256: string; file: string }>; counts: Record<string, unknown> };
    // the default selection (adjudicated) is exactly the four cases annotated here
    expect(manifest.cases.map((c) => c.bundleId).sort()).toEqual(cases.map((c) => c.bundleId).sort());
    expect(manifest.counts).toMatchObject({ cases: 4, adjudicated: 4, initialAnnotations: 12, finalAnnotations: 4, annotators: 3, adjudicators: 1 });

    const im = await release(dstUrl, ["import", releaseDir]);
    expect(im.code, JSON.stringify(im.output)).toBe(0);
    expect(im.output).toMatchObject({ ok: true, cases: 4, annotations: { initial: 12, final: 4 }, verified: { bundleHashes: 4, agreement: "equal" } });
    const { db: dst } = openDb(dstUrl);
    try {
      // per case: the stored hash in the new database equals the source's and the manifest's
      for (const c of manifest.cases) {
        const a = await src.case.findUniqueOrThrow({ where: { bundleId: c.bundleId }, select: { bundleHash: true } });
        const b = await dst.case.findUniqueOrThrow({ where: { bundleId: c.bundleId }, select: { bundleHash: true } });
        expect(b.bundleHash).toBe(a.bundleHash);
        expect(c.bundleHash).toBe(a.bundleHash);
        expect(createHash("sha256").update(readFileSync(path.join(releaseDir, c.file))).digest("hex")).toBe(c.sha256);
      }
      expect(await dst.case.count()).toBe(4);
      // agreement: every figure equal (only the annotators' labels differ: pseudonyms)
      const A = await agreementFromDb(src);
      const B = await agreementFromDb(dst);
      expect(A.ok && B.ok).toBe(true);
      if (!A.ok || !B.ok) return;
      const strip = (r: typeof A) => ({ ...r, cohen: Object.fromEntries(Object.entries(r.cohen).map(([k, v]) => [k, v.map((p) => p.kappa).sort()])) });
      expect(strip(B)).toEqual(strip(A));
      expect(B).toEqual(JSON.parse(readFileSync(path.join(releaseDir, "agreement.json"), "utf8")).report);
      // and the values are the ones of the annotations made here (Fleiss' κ recomputed independently)
      const primaries = cases.map((c) => made.get(c.caseId)!.initial.map((f) => f.primary!));
      const kappa = fleiss(primaries);
      expect(kappa).toBeGreaterThan(0);
      expect(kappa).toBeLessThan(1);
      expect(B.cases).toBe(4);
      expect(B.primaryCategory.kappa).toBeCloseTo(kappa, 12);
    } finally {
      await dst.$disconnect();
    }
  });

  test("AED export: every row valid against the repo's schema (ajv), grades = the ladder over the stored attempts, every quote resolves", async () => {
    const out = path.join(tmp, "aed");
    const r = await release(srcUrl, ["export", "--format", "aed", "--status", "all", "--cases", cases.map((c) => c.bundleId).join(","), "--out", out]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    const rows = jsonl(path.join(out, "aed.jsonl")) as unknown as Array<{
      id: string;
      source: { bundleId: string; taskId: string };
      trace: { steps: Array<{ index: number; nodeId: string }> };
      diagnosis: { step: { nodeId: string; index: number }; labels: { categories: string[]; primary: string }; explanation: string; quotes: Array<{ source: string; nodeId: string | null; stepIndex: number | null; text: string }>; correction: string | null };
      review: { kind: string; adjudicated: boolean };
      replay: { treatment: { n: number; s: number; trials: number }; control: { n: number; s: number; trials: number } };
      evidenceGrade: string;
    }>;
    expect(jsonl(path.join(out, "aed.rejects.jsonl"))).toEqual([]);
    expect(rows.length).toBe(4 * 4); // per case: the final and three initial annotations
    const schema = JSON.parse(readFileSync(path.join(ROOT, "lib/release/aed/aed-record.schema.json"), "utf8")) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    for (const row of rows) expect(validate(row), `${row.id}: ${JSON.stringify(validate.errors)}`).toBe(true);

    const grades: string[] = [];
    for (const c of cases) {
      const attempts = (await src.experimentAttempt.findMany({ where: { experimentCase: { caseId: c.caseId } }, select: { method: true, status: true, anchorNodeId: true } })).filter((a) => ["passed", "failed", "error"].includes(a.status));
      const mine = made.get(c.caseId)!;
      const key = (f: { nodeId: string | null; primary: string | null; categories: string[] }) => `${f.nodeId}|${f.primary}|${[...f.categories].sort().join()}`;
      const initialRows = rows.filter((x) => x.source.bundleId === c.bundleId && x.review.kind === "initial");
      expect(initialRows.map((x) => key({ nodeId: x.diagnosis.step.nodeId, ...x.diagnosis.labels })).sort()).toEqual(mine.initial.map(key).sort());
      for (const row of rows.filter((x) => x.source.bundleId === c.bundleId)) {
        // the annotation this row is (initial rows are numbered in the order of content)
        const same = (f: AnnotationFields) => f.nodeId === row.diagnosis.step.nodeId && f.primary === row.diagnosis.labels.primary && [...f.categories].sort().join() === row.diagnosis.labels.categories.join() && f.rationale === row.diagnosis.explanation;
        const fields = row.review.kind === "final" ? mine.final : mine.initial.find(same)!;
        expect(fields, row.id).toBeDefined();
        expect(row.diagnosis.step.nodeId).toBe(fields.nodeId);
        // quotes: the annotation's evidence and rationale quote, each found at or before the blamed node
        const blamed = c.bundle.order.indexOf(fields.nodeId!);
        expect(blamed).toBeGreaterThanOrEqual(0);
        expect(row.diagnosis.quotes.map((q) => q.text).sort()).toEqual([...fields.evidence.map((e) => e.quote), fields.rationale.split('"')[1]!].sort());
        for (const q of row.diagnosis.quotes) {
          expect(q.nodeId, `${row.id}: ${q.text}`).not.toBeNull();
          const at = c.bundle.order.indexOf(q.nodeId!);
          expect(at).toBeGreaterThanOrEqual(0);
          expect(at).toBeLessThanOrEqual(blamed);
          expect(nodeHas(c.bundle, q.nodeId!, q.text), `${row.id}: "${q.text}" in ${q.nodeId}`).toBe(true);
          expect(row.trace.steps[q.stepIndex!]!.nodeId).toBe(q.nodeId);
        }
        // the grade from the stored attempts anchored at this diagnosis's node: the first pair whose
        // treatment ran there (one experiment here)
        const arm = (m: string) => attempts.filter((a) => a.method === m && a.anchorNodeId === fields.nodeId).map((a) => (a.status === "error" ? null : a.status === "passed"));
        const pair = PAIRS.find(([t]) => arm(t).length > 0) ?? PAIRS[0];
        const T = arm(pair[0]);
        const C = arm(pair[1]);
        expect(row.evidenceGrade, row.id).toBe(ladder(true, T, C));
        expect(row.replay.treatment).toMatchObject({ trials: T.length, s: T.filter((x) => x === true).length });
        expect(row.replay.control).toMatchObject({ trials: C.length, s: C.filter((x) => x === true).length });
        if (row.review.kind === "final") {
          const inExperiment = c.failure.file!.startsWith(casesDir + path.sep);
          expect(T.length).toBe(inExperiment ? K : 0);
          expect(C.length).toBe(inExperiment ? K : 0);
          expect(row.diagnosis.correction).toBe(fields.correction);
          if (inExperiment) expect(row.replay).toMatchObject({ source: "experiment", protocol: "substitution" });
          grades.push(row.evidenceGrade);
        }
      }
    }
    // the finals in the experiment were replayed (k trials per arm): only the extra case is left at E0
    expect(grades.filter((g) => g === "E0")).toEqual(["E0"]);
    console.log(`release-e2e: final grades ${JSON.stringify(grades)}`);

    // The reloaded database gives the same diagnoses: same rows, traces, quotes, corrections and
    // splits (a release carries no experiments, so there the replay evidence is empty: E0).
    const again = path.join(tmp, "aed-reloaded");
    const r2 = await release(dstUrl, ["export", "--format", "aed", "--status", "all", "--out", again]);
    expect(r2.code, JSON.stringify(r2.output)).toBe(0);
    const rows2 = jsonl(path.join(again, "aed.jsonl")) as unknown as typeof rows;
    const strip = (x: (typeof rows)[number]) => ({ ...x, replay: undefined, evidenceGrade: undefined, gradeReason: undefined });
    const byId = (xs: typeof rows) => Object.fromEntries(xs.map((x) => [x.id, strip(x)]));
    expect(byId(rows2)).toEqual(byId(rows));
    expect(new Set(rows2.map((x) => x.evidenceGrade))).toEqual(new Set(["E0"]));
  });

  test("training views: no task in two splits, splits by the documented rule, no privileged text in any input", async () => {
    const tasks = [...new Set(cases.map((c) => c.taskId))];
    // a split seed that spreads these tasks over at least two splits (so the check can fail)
    let seed = 0;
    while (new Set(tasks.map((t) => splitOfTask(t, String(seed), 0.5, 0.25))).size < 2) seed++;
    const out = path.join(tmp, "views");
    const splitOf = new Map<string, string>();
    for (const view of ["sft-diagnosis", "sft-recovery", "preference"]) {
      const r = await release(srcUrl, ["export", "--format", view, "--out", out, "--seed", String(seed), "--train", "0.5", "--validation", "0.25"]);
      expect(r.code, JSON.stringify(r.output)).toBe(0);
      const index = jsonl(path.join(out, view, "index.jsonl")) as Array<{ split: string; taskId: string; bundleId: string }>;
      if (view === "sft-diagnosis") expect(index.length).toBe(4);
      for (const it of index) {
        expect(it.split).toBe(splitOfTask(it.taskId, String(seed), 0.5, 0.25));
        expect(splitOf.get(it.taskId) ?? it.split, `${view}: task ${it.taskId}`).toBe(it.split);
        splitOf.set(it.taskId, it.split);
        expect(cases.find((c) => c.bundleId === it.bundleId)?.taskId).toBe(it.taskId);
      }
      const bySplit = new Map<string, Set<string>>();
      for (const s of ["train", "validation", "test"]) {
        const rows = jsonl(path.join(out, view, `${s}.jsonl`));
        expect(rows.length).toBe(index.filter((i) => i.split === s).length);
        bySplit.set(s, new Set(index.filter((i) => i.split === s).map((i) => i.taskId)));
        // inputs (everything but the target) hold no reference answer and no evaluator output
        for (const row of rows) {
          const input = JSON.stringify("messages" in row ? (row.messages as unknown[]).slice(0, -1) : row.prompt);
          for (const c of cases.filter((x) => bySplit.get(s)!.has(x.taskId))) {
            const ref = (c.bundle.task.reference as { expected: string[] }).expected[0]!;
            // (unless the acting model saw that text itself, e.g. a unit price equal to the amount)
            if (!strings(c.bundle.graph.nodes.map((n) => n.content)).some((t) => t.includes(ref))) expect(input).not.toContain(ref);
            expect(input).not.toContain("calibrated-evaluator");
          }
        }
      }
      const [tr, va, te] = ["train", "validation", "test"].map((s) => bySplit.get(s)!);
      for (const t of tr!) expect(va!.has(t) || te!.has(t)).toBe(false);
      for (const t of va!) expect(te!.has(t)).toBe(false);
    }
    // both cases of the first task share its split
    expect(new Set(cases.filter((c) => c.taskId === cases[0]!.taskId).map((c) => splitOf.get(c.taskId))).size).toBe(1);
    expect(new Set(splitOf.values()).size).toBeGreaterThanOrEqual(2);
  });
});
