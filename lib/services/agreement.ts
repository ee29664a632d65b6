/**
 * Agreement of the app's own annotations (issue: κ dashboard and `agreement --from-db`): the
 * submitted initial and final annotations, exported as symtrace.annotations/v1 and analysed by
 * lib/agreement exactly like a file. Cached per filter until annotations change.
 */
import { analyzeAnnotations, pooledBinaryFleiss, validateAnnotations, type AgreementReport } from "../agreement";
import { exportAnnotations, listCases, type AnnotationsFileV1, type Db } from "../db";

export interface AgreementFilter {
  dataset?: string | null;
  mas?: string | null;
  benchmark?: string | null;
  /** Inclusive date range (YYYY-MM-DD, UTC) on when a case's last initial annotation was submitted. */
  from?: string | null;
  to?: string | null;
}

/** Bundle ids allowed by the filter, or null when the filter allows every case. */
export async function allowedBundleIds(db: Db, f: AgreementFilter): Promise<Set<string> | null> {
  let ids: Set<string> | null = null;
  if (f.dataset || f.mas || f.benchmark) {
    const { cases } = await listCases(db, { dataset: f.dataset, mas: f.mas, benchmark: f.benchmark, take: 1_000_000 });
    ids = new Set(cases.map((c) => c.bundleId));
  }
  if (f.from || f.to) {
    const from = f.from ? new Date(`${f.from}T00:00:00.000Z`) : null;
    const to = f.to ? new Date(`${f.to}T23:59:59.999Z`) : null;
    const last = await db.annotation.groupBy({ by: ["caseId"], where: { kind: "initial", status: "submitted" }, _max: { submittedAt: true } });
    const inRange = last.filter((l) => l._max.submittedAt && (!from || l._max.submittedAt >= from) && (!to || l._max.submittedAt <= to)).map((l) => l.caseId);
    const rows = await db.case.findMany({ where: { id: { in: inRange } }, select: { bundleId: true } });
    const dated = new Set(rows.map((r) => r.bundleId));
    ids = ids ? new Set([...ids].filter((x) => dated.has(x))) : dated;
  }
  return ids;
}

/** Per database (two databases in one process never share entries), per filter. */
const caches = new WeakMap<Db, Map<string, { stamp: string; report: AgreementReport & { ok: true } }>>();

/** Latest annotation change (count + newest update): the cache key's freshness part. */
async function annotationsStamp(db: Db): Promise<string> {
  const [n, last] = await Promise.all([db.annotation.count(), db.annotation.findFirst({ orderBy: { updatedAt: "desc" }, select: { updatedAt: true } })]);
  return `${n}:${last?.updatedAt.toISOString() ?? ""}`;
}

/**
 * The agreement report of an exported `symtrace.annotations/v1` value (what `agreement --from-db`
 * computes after filtering; the release export calls it on the released, pseudonymised cases).
 * @returns the lib/agreement report, or `{ok:false, errors}` when the value does not validate or
 *   no case has three initial annotations
 */
export function agreementOfAnnotations(file: AnnotationsFileV1, o: { resamples?: number; seed?: number } = {}) {
  const v = validateAnnotations(file);
  if (!v.ok) return { ok: false as const, errors: v.errors };
  const withThree = v.file.cases.filter((c) => c.initial.length === 3);
  if (withThree.length === 0) {
    return { ok: false as const, errors: [{ path: "$", message: `no case has three submitted initial annotations yet (${v.file.cases.length} case(s) with some)` }] };
  }
  return { ok: true as const, ...analyzeAnnotations(v.file.cases, { resamples: o.resamples, seed: o.seed }) };
}

/**
 * The agreement report of submitted annotations in the database.
 * @returns the lib/agreement report (cases without three submitted initials are listed in
 *   `excluded`), or `{ok:false, errors}` when the exported data does not validate
 */
export async function agreementFromDb(db: Db, f: AgreementFilter = {}, o: { resamples?: number; seed?: number } = {}) {
  const key = JSON.stringify([f.dataset ?? null, f.mas ?? null, f.benchmark ?? null, f.from ?? null, f.to ?? null, o.resamples ?? null, o.seed ?? null]);
  const stamp = await annotationsStamp(db);
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && hit.stamp === stamp) return hit.report;
  const file = await exportAnnotations(db, { submittedOnly: true });
  const allowed = await allowedBundleIds(db, f);
  const cases = allowed ? file.cases.filter((c) => allowed.has(c.caseId)) : file.cases;
  const report = agreementOfAnnotations({ ...file, cases }, o);
  if (report.ok) cache.set(key, { stamp, report });
  return report;
}

/**
 * MAST/MAD-style reference labels in the database (three annotators × failure modes per trace):
 * pooled binary Fleiss' κ over (trace, mode) items (items with a missing rating are excluded and
 * listed), plus a per-mode table (keyed by the full mode string: taxonomy versions differ).
 */
export async function madAgreementFromDb(db: Db) {
  const cases = await db.case.findMany({
    where: { sourceDataset: "mad" },
    select: { bundleId: true, referenceLabels: { orderBy: { idx: "asc" }, select: { annotator: true, failureModesJson: true } } },
    orderBy: { bundleId: "asc" },
  });
  if (cases.length === 0) return null;
  const labelled = cases.map((c) => ({
    bundle: { id: c.bundleId },
    referenceLabels: c.referenceLabels.map((l) => ({ annotator: l.annotator, failureModes: JSON.parse(l.failureModesJson) as Array<{ mode: string; code: string | null; present: boolean | null }> })),
  }));
  const pooled = pooledBinaryFleiss(labelled);
  const modes = new Map<string, { mode: string; traces: number; yes: number[]; unanimous: number; excluded: number }>();
  for (const c of labelled) {
    const byMode = new Map<string, Array<boolean | null>>();
    c.referenceLabels.forEach((l, ai) => {
      for (const m of l.failureModes) {
        const arr = byMode.get(m.mode) ?? [];
        arr[ai] = m.present;
        byMode.set(m.mode, arr);
      }
    });
    for (const [mode, votes] of byMode) {
      const row = modes.get(mode) ?? { mode, traces: 0, yes: [0, 0, 0], unanimous: 0, excluded: 0 };
      row.traces++;
      if (votes.length < 3 || votes.some((v) => v === null || v === undefined)) row.excluded++;
      else if (votes.every((v) => v === votes[0])) row.unanimous++;
      votes.forEach((v, i) => {
        if (v === true) row.yes[i] = (row.yes[i] ?? 0) + 1;
      });
      modes.set(mode, row);
    }
  }
  return { pooled, modes: [...modes.values()].sort((a, b) => a.mode.localeCompare(b.mode)), annotators: labelled[0]?.referenceLabels.map((l) => l.annotator) ?? [] };
}

/**
 * Per case with three submitted initials: how much the annotators disagree (distinct strict
 * tuples, distinct category sets, distinct nodes), most disagreement first; and each annotator's
 * agreement with the final (primary, node, exact tuple).
 */
export async function disagreementFromDb(db: Db, f: AgreementFilter = {}) {
  const file = await exportAnnotations(db, { submittedOnly: true });
  const allowed = await allowedBundleIds(db, f);
  const cases = allowed ? file.cases.filter((c) => allowed.has(c.caseId)) : file.cases;
  const key = (a: { categories: string[]; primary: string | null; nodeId: string | null; nodeType: string | null }) =>
    [[...a.categories].sort().join(","), a.primary, a.nodeId, a.nodeType].join("|");
  const rows = cases
    .filter((c) => c.initial.length >= 3)
    .map((c) => ({
      caseId: c.caseId,
      tuples: new Set(c.initial.map(key)).size,
      sets: new Set(c.initial.map((a) => [...a.categories].sort().join(","))).size,
      nodes: new Set(c.initial.map((a) => a.nodeId)).size,
      finalized: !!c.final,
    }))
    .sort((a, b) => b.tuples - a.tuples || b.sets - a.sets || b.nodes - a.nodes || a.caseId.localeCompare(b.caseId));
  const perAnnotator = new Map<string, { annotator: string; cases: number; primary: number; node: number; tuple: number }>();
  for (const c of cases) {
    if (!c.final) continue;
    for (const a of c.initial) {
      const who = a.annotator ?? "unknown";
      const r = perAnnotator.get(who) ?? { annotator: who, cases: 0, primary: 0, node: 0, tuple: 0 };
      r.cases++;
      if (a.primary === c.final.primary) r.primary++;
      if (a.nodeId === c.final.nodeId) r.node++;
      if (key(a) === key(c.final)) r.tuple++;
      perAnnotator.set(who, r);
    }
  }
  return { cases: rows, perAnnotator: [...perAnnotator.values()].sort((a, b) => a.annotator.localeCompare(b.annotator)) };
}
