/**
 * Agreement of the app's own annotations (issue: κ dashboard and `agreement --from-db`): the
 * submitted initial and final annotations, exported as symtrace.annotations/v1 and analysed by
 * lib/agreement exactly like a file. Cached per filter until annotations change.
 */
import { analyzeAnnotations, validateAnnotations, type AgreementReport } from "../agreement";
import { exportAnnotations, listCases, type Db } from "../db";

export interface AgreementFilter {
  dataset?: string | null;
  mas?: string | null;
  benchmark?: string | null;
}

const cache = new Map<string, { stamp: string; report: AgreementReport & { ok: true } }>();

/** Latest annotation change (count + newest update): the cache key's freshness part. */
async function annotationsStamp(db: Db): Promise<string> {
  const [n, last] = await Promise.all([db.annotation.count(), db.annotation.findFirst({ orderBy: { updatedAt: "desc" }, select: { updatedAt: true } })]);
  return `${n}:${last?.updatedAt.toISOString() ?? ""}`;
}

/**
 * The agreement report of submitted annotations in the database.
 * @returns the lib/agreement report (cases without three submitted initials are listed in
 *   `excluded`), or `{ok:false, errors}` when the exported data does not validate
 */
export async function agreementFromDb(db: Db, f: AgreementFilter = {}, o: { resamples?: number; seed?: number } = {}) {
  const key = JSON.stringify([f.dataset ?? null, f.mas ?? null, f.benchmark ?? null, o.resamples ?? null, o.seed ?? null]);
  const stamp = await annotationsStamp(db);
  const hit = cache.get(key);
  if (hit && hit.stamp === stamp) return hit.report;
  const file = await exportAnnotations(db, { submittedOnly: true });
  let cases = file.cases;
  if (f.dataset || f.mas || f.benchmark) {
    const { cases: allowed } = await listCases(db, { dataset: f.dataset, mas: f.mas, benchmark: f.benchmark, take: 1_000_000 });
    const ids = new Set(allowed.map((c) => c.bundleId));
    cases = cases.filter((c) => ids.has(c.caseId));
  }
  const v = validateAnnotations({ ...file, cases });
  if (!v.ok) return { ok: false as const, errors: v.errors };
  const report = { ok: true as const, ...analyzeAnnotations(v.file.cases, { resamples: o.resamples, seed: o.seed }) };
  cache.set(key, { stamp, report });
  return report;
}
