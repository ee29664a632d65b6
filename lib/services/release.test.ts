import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract as tarExtract } from "tar-stream";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { serializeBundle } from "../bundle";
import { exportBundle, type DbHandle } from "../db";
import { freshTestDb } from "../db/test-db";
import { MANIFEST_FILE, SHA256SUMS_FILE, sha256Hex, type ReleaseManifest } from "../release";
import { seedReleaseData, GOLD_IDS, RELEASE_SEED_USERS } from "../testing/release-seed";
import { agreementFromDb } from "./agreement";
import { exportRelease, ReleaseExportError } from "./release-export";
import { importRelease, ReleaseImportError } from "./release-import";
import { createStoredRelease, listReleases, readReleaseFile, releaseArchive } from "./release-store";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const tmp = () => mkdtempSync(path.join(os.tmpdir(), "symtrace-release-"));

let src: DbHandle;
let ww: string[];
let dir: string;
let manifest: ReleaseManifest;

beforeAll(async () => {
  src = await freshTestDb();
  ({ whoAndWhen: ww } = await seedReleaseData(src.db, SHARED));
  dir = path.join(tmp(), "release");
  ({ manifest } = await exportRelease(src.db, { out: dir, filter: { status: "all" }, pseudonymKey: "test-key", now: new Date("2026-12-01T09:00:00Z") }));
});
afterAll(async () => {
  await src?.db.$disconnect();
});

function filesOf(d: string, base = ""): string[] {
  return readdirSync(path.join(d, base), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(d, path.join(base, e.name)) : [path.join(base, e.name)]));
}

describe(`release export (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("the folder: manifest with cases, counts, licences, checksums of every file; datasheet; no identity of a person", async () => {
    expect(filesOf(dir).sort()).toEqual(
      [
        "README.md",
        "SHA256SUMS",
        "agreement.json",
        "annotations/annotations.json",
        ...[...GOLD_IDS, ...ww].map((id) => `bundles/${id.replace(/[^A-Za-z0-9._-]+/g, "__")}.bundle.json`),
        "licenses/who_and_when.LICENSE.txt",
        "manifest.json",
      ].sort(),
    );
    expect(manifest.counts).toMatchObject({
      cases: 6,
      adjudicated: 3,
      initialAnnotations: 14,
      finalAnnotations: 3,
      annotators: 3,
      adjudicators: 1,
      byMas: { ag2: 3, "captain-agent": 1, crewai: 1, "magentic-one": 1 },
      byBenchmark: { AssistantBench: 2, GAIA: 1, webarena_verified_hard: 3 },
      bySourceDataset: { bundle: 4, who_and_when: 2 },
      byPrimaryCategory: { C1: 1, C2: 1, C3: 1, "(none)": 3 },
    });
    expect(manifest.release.version).toMatch(/^2026\.12\.01-[0-9a-f]{8}$/);
    expect(manifest.tool.name).toBe("symtrace-studio");
    expect(manifest.licences.map((l) => [l.dataset, l.licence, l.cases])).toEqual([
      ["bundle", "unspecified", 4],
      ["who_and_when", "MIT", 2],
    ]);
    // every listed checksum is the file's
    for (const f of manifest.files) expect(sha256Hex(readFileSync(path.join(dir, f.path)))).toBe(f.sha256);
    expect(manifest.files.map((f) => f.path)).not.toContain("manifest.json");
    const sums = readFileSync(path.join(dir, "SHA256SUMS"), "utf8");
    expect(sums).toContain(`${sha256Hex(readFileSync(path.join(dir, "manifest.json")))}  manifest.json\n`);
    // bundle files are byte-identical to `symtrace export`, and carry the stored bundle hash
    for (const c of manifest.cases) {
      const b = await exportBundle(src.db, { bundleId: c.bundleId });
      expect(readFileSync(path.join(dir, c.file), "utf8")).toBe(serializeBundle(b!));
      const stored = await src.db.case.findUniqueOrThrow({ where: { bundleId: c.bundleId }, select: { bundleHash: true } });
      expect(c.bundleHash).toBe(stored.bundleHash);
    }
    // no email or name of a person anywhere in the release
    const all = filesOf(dir).map((f) => readFileSync(path.join(dir, f), "utf8")).join("\n");
    for (const u of RELEASE_SEED_USERS) {
      expect(all).not.toContain(u.email);
      expect(all).not.toContain(u.name);
    }
    expect(all).not.toContain("symtrace.local");
  });

  test("pseudonyms are consistent across files and cases, and stable for the same key", async () => {
    const ann = JSON.parse(readFileSync(path.join(dir, "annotations/annotations.json"), "utf8")) as {
      cases: Array<{ caseId: string; initial: Array<{ annotator: string; rationale: string }>; final: { adjudicator: string } | null }>;
    };
    const initialPeople = new Set(ann.cases.flatMap((c) => c.initial.map((a) => a.annotator)));
    const finalPeople = new Set(ann.cases.flatMap((c) => (c.final ? [c.final.adjudicator] : [])));
    expect(initialPeople.size).toBe(3);
    expect(finalPeople.size).toBe(1);
    for (const p of [...initialPeople, ...finalPeople]) expect(p).toMatch(/^person-[0-9a-f]{8}$/);
    // names and emails inside a rationale became the pseudonyms (or the neutral marker)
    const named = ann.cases.flatMap((c) => c.initial).find((a) => a.rationale.includes("asked"))!;
    const one = ann.cases.flatMap((c) => c.initial).find((a) => a.rationale.startsWith("Annotator 1's"))!.annotator;
    expect(named.rationale).toBe(`Annotator 2's reading; ${one} (${one}) asked [another account] about it.`);
    // "Annotator 2's" rationale always carries the same pseudonym
    const who2 = new Set(ann.cases.flatMap((c) => c.initial.filter((a) => a.rationale.startsWith("Annotator 2's")).map((a) => a.annotator)));
    expect(who2.size).toBe(1);
    const agreement = JSON.parse(readFileSync(path.join(dir, "agreement.json"), "utf8")) as { report: { cohen: { primaryCategory: Array<{ a: string; b: string }> } } };
    const cohenPeople = new Set(agreement.report.cohen.primaryCategory.flatMap((p) => [p.a, p.b]));
    expect(cohenPeople).toEqual(initialPeople);
    // same key → same pseudonyms in a second release
    const again = path.join(tmp(), "again");
    await exportRelease(src.db, { out: again, filter: { status: "all" }, pseudonymKey: "test-key" });
    expect(readFileSync(path.join(again, "annotations/annotations.json"), "utf8")).toBe(readFileSync(path.join(dir, "annotations/annotations.json"), "utf8"));
  });

  test("agreement.json: the numbers of agreement --from-db (primary-category κ = 7/13), datasheet quotes them", async () => {
    const a = JSON.parse(readFileSync(path.join(dir, "agreement.json"), "utf8")) as { report: Awaited<ReturnType<typeof agreementFromDb>> & { ok: true } };
    const fromDb = await agreementFromDb(src.db);
    expect(fromDb.ok).toBe(true);
    if (!fromDb.ok) return;
    expect(a.report.cases).toBe(4);
    expect(a.report.primaryCategory.kappa).toBeCloseTo(7 / 13, 12);
    expect(fromDb.primaryCategory.kappa).toBeCloseTo(7 / 13, 12);
    // every figure equal; only the annotator labels of the pairwise tables differ
    const strip = (r: typeof fromDb) => ({ ...r, cohen: Object.fromEntries(Object.entries(r.cohen).map(([k, v]) => [k, v.map((p) => p.kappa).sort()])) });
    expect(strip(a.report)).toEqual(strip(fromDb));
    expect(a.report.excluded).toEqual([{ caseId: ww[0], reason: "2 initial annotations (3 required)" }]);
    expect(manifest.agreement).toMatchObject({ cases: 4, excluded: 1, resamples: 20000, seed: 20260722 });
    const readme = readFileSync(path.join(dir, "README.md"), "utf8");
    for (const h of ["## Motivation", "## Composition", "## Collection process", "## Preprocessing, cleaning and labelling", "## Uses", "## Distribution", "## Maintenance"]) expect(readme).toContain(h);
    // 4 cases: no bootstrap interval, as on the agreement dashboard ("— (n < 10)"; before: a one-point interval)
    expect(readme).toContain(`| primary category | ${(7 / 13).toFixed(3)} | — (n < 10: too few cases for a bootstrap interval) |`);
    expect(a.report.primaryCategory).toMatchObject({ ci95: null, ciReason: "n < 10: too few cases for a bootstrap interval" });
    expect(readme).toContain("6 case(s)");
    expect(readme).toContain("Who&When");
  });

  test("filters: --status adjudicated (default), --mas, --cases; a non-empty --out and an unknown case are refused", async () => {
    const adj = await exportRelease(src.db, { out: path.join(tmp(), "adj"), filter: {} });
    expect(adj.manifest.cases.map((c) => c.bundleId)).toEqual(GOLD_IDS.slice(0, 3));
    expect(adj.manifest.agreement?.cases).toBe(3);
    const crew = await exportRelease(src.db, { out: path.join(tmp(), "crew"), filter: { mas: "crewai", status: "all" } });
    expect(crew.manifest.cases.map((c) => c.bundleId)).toEqual([GOLD_IDS[3]]);
    const bench = await exportRelease(src.db, { out: path.join(tmp(), "bench"), filter: { benchmark: "assistantbench", status: "all" } });
    expect(bench.manifest.counts.byBenchmark).toEqual({ AssistantBench: 2 });
    expect(bench.manifest.cases.map((c) => c.bundleId)).toContain(GOLD_IDS[0]);
    const listed = await exportRelease(src.db, { out: path.join(tmp(), "listed"), filter: { status: "all", cases: [ww[1]] } });
    expect(listed.manifest.cases.map((c) => c.bundleId)).toEqual([ww[1]]);
    expect(listed.manifest.agreement).toBeNull();
    await expect(exportRelease(src.db, { out: path.join(tmp(), "x"), filter: { cases: ["nope/1"] } })).rejects.toThrow(/no case with bundle id or case id "nope\/1"/);
    await expect(exportRelease(src.db, { out: dir, filter: {} })).rejects.toBeInstanceOf(ReleaseExportError);
  });
});

describe("release import", () => {
  test("round trip into a fresh database: identical bundle hashes and agreement figures", async () => {
    const dst = await freshTestDb();
    try {
      const r = await importRelease(dst.db, dir);
      expect(r).toMatchObject({ cases: 6, annotations: { initial: 14, final: 3 }, verified: { files: manifest.files.length, bundleHashes: 6, agreement: "equal" }, unlisted: [] });
      const hashes = async (h: DbHandle) => Object.fromEntries((await h.db.case.findMany({ select: { bundleId: true, bundleHash: true } })).map((c) => [c.bundleId, c.bundleHash]));
      expect(await hashes(dst)).toEqual(await hashes(src));
      for (const c of manifest.cases) expect(sha256Hex(serializeBundle((await exportBundle(dst.db, { bundleId: c.bundleId }))!))).toBe(c.sha256);
      const got = await agreementFromDb(dst.db);
      const want = JSON.parse(readFileSync(path.join(dir, "agreement.json"), "utf8")).report;
      expect(got).toEqual(want);
      expect(got.ok && got.primaryCategory.kappa).toBeCloseTo(7 / 13, 12);
      // finals are the case's final annotations again
      expect(await dst.db.case.count({ where: { finalAnnotationId: { not: null } } })).toBe(3);
      // a second import into the now non-empty database is refused, nothing added
      const err = await importRelease(dst.db, dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ReleaseImportError);
      expect((err as ReleaseImportError).errors[0]).toMatchObject({ path: "database" });
      expect((err as Error).message).toMatch(/not empty \(6 case\(s\), 17 annotation\(s\)/);
      expect(await dst.db.case.count()).toBe(6);
    } finally {
      await dst.db.$disconnect();
    }
  });

  test("a tampered or missing file is named and nothing is written", async () => {
    const dst = await freshTestDb();
    try {
      const bad = path.join(tmp(), "tampered");
      cpSync(dir, bad, { recursive: true });
      const victim = manifest.cases[1].file;
      const text = readFileSync(path.join(bad, victim), "utf8");
      writeFileSync(path.join(bad, victim), text.replace('"passed"', '"Passed"'));
      const ann = path.join(bad, "annotations/annotations.json");
      writeFileSync(ann, readFileSync(ann, "utf8").replace("C2", "C4"));
      const err = (await importRelease(dst.db, bad).catch((e: unknown) => e)) as ReleaseImportError;
      expect(err).toBeInstanceOf(ReleaseImportError);
      expect(err.errors.map((e) => e.path).sort()).toEqual(["annotations/annotations.json", victim].sort());
      expect(err.errors.find((e) => e.path === victim)?.message).toMatch(new RegExp(`^${victim.replace(/[.]/g, "\\.")} was altered: sha256 [0-9a-f]{64}`));
      expect(await dst.db.case.count()).toBe(0);
      expect(await dst.db.annotation.count()).toBe(0);
      expect(await dst.db.user.count()).toBe(0);

      const gone = path.join(tmp(), "missing");
      cpSync(dir, gone, { recursive: true });
      writeFileSync(path.join(gone, "agreement.json"), "");
      const e2 = (await importRelease(dst.db, gone).catch((e: unknown) => e)) as ReleaseImportError;
      expect(e2.errors).toEqual([expect.objectContaining({ path: "agreement.json" })]);
      expect(await dst.db.case.count()).toBe(0);
    } finally {
      await dst.db.$disconnect();
    }
  });

  test("an annotation the graph rejects (checksums re-signed) rolls back every case already written", async () => {
    const dst = await freshTestDb();
    try {
      const bad = path.join(tmp(), "resigned");
      cpSync(dir, bad, { recursive: true });
      const annPath = path.join(bad, "annotations/annotations.json");
      const ann = JSON.parse(readFileSync(annPath, "utf8"));
      ann.cases[1].initial[0].nodeId = "no_such_node";
      const text = JSON.stringify(ann, null, 2) + "\n";
      writeFileSync(annPath, text);
      const m = JSON.parse(readFileSync(path.join(bad, "manifest.json"), "utf8")) as ReleaseManifest;
      const f = m.files.find((x) => x.path === "annotations/annotations.json")!;
      f.sha256 = sha256Hex(text);
      f.bytes = Buffer.byteLength(text);
      writeFileSync(path.join(bad, "manifest.json"), JSON.stringify(m, null, 2));
      const err = (await importRelease(dst.db, bad).catch((e: unknown) => e)) as ReleaseImportError;
      expect(err).toBeInstanceOf(ReleaseImportError);
      expect(err.errors[0].path).toBe("annotations/annotations.json $.cases[1].initial[0].nodeId");
      expect(await dst.db.case.count()).toBe(0);
      expect(await dst.db.annotation.count()).toBe(0);
      expect(await dst.db.user.count()).toBe(0);
      expect(await dst.db.auditEvent.count()).toBe(0);
    } finally {
      await dst.db.$disconnect();
    }
  });
});

describe("stored releases (the Releases page)", () => {
  test("create, list newest first, and serve only the files the manifest lists", async () => {
    const store = tmp();
    const a = await createStoredRelease(src.db, { status: "adjudicated" }, { dir: store, now: new Date("2026-11-30T10:00:00Z") });
    const b = await createStoredRelease(src.db, { status: "all" }, { dir: store, now: new Date("2026-12-01T10:00:00Z") });
    expect(a.name).toMatch(/^2026\.11\.30-[0-9a-f]{8}$/);
    expect(listReleases(store).map((r) => [r.name, r.manifest.counts.cases])).toEqual([
      [b.name, 6],
      [a.name, 3],
    ]);
    expect(readReleaseFile(a.name, "manifest.json", store)?.contentType).toBe("application/json");
    expect(readReleaseFile(a.name, a.manifest.cases[0].file, store)?.bytes.toString("utf8")).toBe(readFileSync(path.join(a.dir, a.manifest.cases[0].file), "utf8"));
    expect(readReleaseFile(a.name, "README.md", store)?.contentType).toBe("text/markdown; charset=utf-8");
    expect(readReleaseFile(a.name, "../" + b.name + "/manifest.json", store)).toBeNull();
    expect(readReleaseFile("..", "manifest.json", store)).toBeNull();
    expect(readReleaseFile(a.name, "bundles/none.bundle.json", store)).toBeNull();
  });

  test("the whole release as one .tar.gz: every listed file byte for byte, and it imports again", async () => {
    const store = tmp();
    const a = await createStoredRelease(src.db, { status: "adjudicated" }, { dir: store, now: new Date("2026-11-29T10:00:00Z") });
    expect(releaseArchive("..", store)).toBeNull();
    expect(releaseArchive("no-such-release", store)).toBeNull();
    const chunks: Buffer[] = [];
    for await (const c of releaseArchive(a.name, store)!) chunks.push(c as Buffer);
    const out = tmp();
    await pipeline(Readable.from([Buffer.concat(chunks)]), createGunzip(), extractTar(out));
    const want = [MANIFEST_FILE, SHA256SUMS_FILE, ...a.manifest.files.map((f) => f.path)];
    for (const rel of want) expect(readFileSync(path.join(out, a.name, rel)).equals(readFileSync(path.join(a.dir, rel)))).toBe(true);
    expect(a.manifest.files.length).toBeGreaterThanOrEqual(a.manifest.cases.length + 2);
    const dst = await freshTestDb();
    try {
      const r = await importRelease(dst.db, path.join(out, a.name));
      expect(r).toMatchObject({ cases: 3, verified: { files: a.manifest.files.length, bundleHashes: 3 }, unlisted: [] });
    } finally {
      await dst.db.$disconnect();
    }
  });
});

/** A tar extractor into `dir` with tar-stream (test only; entries are regular files). */
function extractTar(dir: string) {
  const ex = tarExtract();
  ex.on("entry", (h, stream, next) => {
    const abs = path.join(dir, h.name);
    mkdirSync(path.dirname(abs), { recursive: true });
    const parts: Buffer[] = [];
    stream.on("data", (c: unknown) => parts.push(c as Buffer));
    stream.on("end", () => {
      writeFileSync(abs, Buffer.concat(parts));
      next();
    });
  });
  return ex;
}
