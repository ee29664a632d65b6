/**
 * Loads evaluation cases for lib/symptoms' detector evaluation (`symtrace detect --eval`): from the
 * database (final annotations, then dataset reference labels) or from files (replay bundles and any
 * importable file; `symtrace.annotations/v1` files among them give final annotations, e.g.
 * the shared fixtures bundles/gold-annotations.json). Runs rules-only detection on each and returns
 * the lib/symptoms evaluation report.
 *
 * Reference of a case, first that applies:
 *   1. its final (adjudicated) annotation: node + categories (source "final", or "gold" for a file);
 *   2. Who&When reference labels (source "who_and_when": the mistake step): nodes, no categories
 *      (other datasets' labels are not failure locations: MAD labels whole traces, a Langfuse
 *      correction marks an output, not a failure);
 *   3. none: the case counts in `cases` but in no rate.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseJsonText } from "../bundle";
import { exportAnnotations, exportBundle, listCases, listReferenceLabels, type Db } from "../db";
import { importText } from "../importers";
import { CATEGORIES, detectSymptoms, evaluateDetections, type Category, type EvalCase, type EvalReport } from "../symptoms";

type Final = { nodeId: string | null; categories: Category[] };
const cats = (xs: unknown): Category[] => (Array.isArray(xs) ? CATEGORIES.filter((k) => xs.includes(k)) : []);

function referenceOf(finals: Map<string, Final>, bundleId: string, labels: Array<{ source: string; nodeId: string | null | undefined }>, finalSource: string): Pick<EvalCase, "referenceNodes" | "referenceCategories" | "referenceSource"> {
  const f = finals.get(bundleId);
  if (f && f.nodeId) return { referenceNodes: [f.nodeId], referenceCategories: f.categories, referenceSource: finalSource };
  const ww = labels.filter((l) => l.source === "who_and_when" && l.nodeId);
  const nodes = [...new Set(ww.map((l) => l.nodeId as string))];
  if (nodes.length) return { referenceNodes: nodes, referenceCategories: null, referenceSource: "who_and_when" };
  return { referenceNodes: [], referenceCategories: null, referenceSource: "none" };
}

/** Evaluation over the database's cases (optionally one source dataset). */
export async function evalFromDb(db: Db, o: { dataset?: string | null; seed?: number } = {}): Promise<EvalReport> {
  const { cases } = await listCases(db, { dataset: o.dataset ?? undefined, take: 1_000_000 });
  const file = await exportAnnotations(db, { submittedOnly: true });
  const finals = new Map<string, Final>();
  for (const c of file.cases) if (c.final) finals.set(c.caseId, { nodeId: c.final.nodeId, categories: cats(c.final.categories) });
  const evalCases: EvalCase[] = [];
  for (const c of cases) {
    const bundle = await exportBundle(db, { caseId: c.id });
    if (!bundle) continue;
    const labels = await listReferenceLabels(db, { caseId: c.id });
    evalCases.push({ caseId: bundle.id, dataset: c.sourceDataset, bundle, ...referenceOf(finals, bundle.id, labels, "final") });
  }
  return evaluateDetections(evalCases, evalCases.map((c) => detectSymptoms(c.bundle)), { seed: o.seed });
}

function walk(p: string): string[] {
  const s = statSync(p);
  if (s.isDirectory()) return readdirSync(p).sort().flatMap((f) => walk(path.join(p, f)));
  return p.endsWith(".json") ? [p] : [];
}

/**
 * Evaluation over files and directories (recursively, `*.json`). Files that do not import are
 * listed in `skipped` with the importer's first error.
 */
export function evalFromFiles(paths: string[], o: { dataset?: string | null; seed?: number } = {}): EvalReport & { skipped: Array<{ file: string; message: string }> } {
  const files = paths.flatMap(walk);
  const finals = new Map<string, Final>();
  const imported: Array<{ dataset: string; bundle: EvalCase["bundle"]; labels: Array<{ source: string; nodeId: string | null | undefined }> }> = [];
  const skipped: Array<{ file: string; message: string }> = [];
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    let value: unknown = null;
    try {
      value = parseJsonText(text, { allowNaN: true });
    } catch {
      /* importText reports it */
    }
    if (value && typeof value === "object" && (value as { format?: unknown }).format === "symtrace.annotations/v1") {
      for (const c of ((value as { cases?: unknown }).cases as Array<{ caseId: string; final?: { nodeId?: string | null; categories?: unknown } | null }>) ?? []) {
        if (c.final) finals.set(c.caseId, { nodeId: c.final.nodeId ?? null, categories: cats(c.final.categories) });
      }
      continue;
    }
    const r = importText(text, f);
    for (const c of r.cases) imported.push({ dataset: c.source.dataset, bundle: c.bundle, labels: c.referenceLabels });
    for (const x of r.failures) skipped.push({ file: f, message: `${x.where}: ${x.errors[0]?.path ?? "$"} ${x.errors[0]?.message ?? ""}` });
  }
  const evalCases: EvalCase[] = imported
    .filter((c) => !o.dataset || c.dataset === o.dataset)
    .map((c) => ({ caseId: c.bundle.id, dataset: c.dataset, bundle: c.bundle, ...referenceOf(finals, c.bundle.id, c.labels, "gold") }));
  return { ...evaluateDetections(evalCases, evalCases.map((c) => detectSymptoms(c.bundle)), { seed: o.seed }), skipped };
}
