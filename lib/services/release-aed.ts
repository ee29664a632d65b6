/**
 * `release export --format aed | sft-diagnosis | sft-recovery | preference [--parquet]` (issue 14
 * items 2, 5, 6): the database side of lib/release/aed. Loads the selected cases (release
 * filters, lib/services/release-select.ts), their diagnoses (the final annotation; with
 * `--status all` also every submitted initial annotation), their replay trials and branches, and
 * the privileged data; the pure core builds, grades, splits and validates; this module writes the
 * files. Nothing is written when anything fails before writing (bad options, selection, a schema
 * violation of a built row).
 *
 * Replay evidence (see `replayEvidence`): the case's experiment attempts (issue 13) anchored at
 * the diagnosis's node — the matched pairs treatment `correction` (substitution) with control
 * `correction-control`, else `annotated-node` (guidance) with `node-resample` (the original request
 * re-executed), both arms from one experiment, which can reach E2 — else its
 * completed replay runs started at that node (treatment only, guidance protocol: E1 at most).
 *
 * Files under `--out` (AED): `aed.jsonl` (one row per exported (failed case, diagnosis), each
 * valid against `aed-record.schema.json`, written beside it), `aed.privileged.jsonl` (per case:
 * reference, evaluator outcome, published labels — never in a row), `aed.rejects.jsonl` (rows not
 * exported, with every reason); with `--parquet` also `aed.parquet` and `aed.privileged.parquet`.
 * Views: `<view>/train.jsonl`, `<view>/validation.jsonl`, `<view>/test.jsonl` (only the chat
 * columns, loadable as they are), `<view>/index.jsonl` (per row: id, split, task, source row and
 * branches), `<view>/skipped.jsonl`; with `--parquet` also `<view>/<split>.parquet` (every split,
 * also an empty one, so a loader given all three files never misses one).
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  AED_RECORD_SCHEMA,
  aedRowsToParquet,
  branchAction,
  buildAedRecord,
  chatRowsToParquet,
  diagnosisView,
  isViewItem,
  preferenceView,
  privilegedData,
  privilegedRowsToParquet,
  recoveryView,
  SPLITS,
  validateAedRecord,
  type AedRecord,
  type AedReject,
  type DiagnosisInput,
  type PrivilegedData,
  type ReplayBranch,
  type ReplayEvidenceInput,
  type SplitOptions,
  type ViewFormat,
  type ViewItem,
  type ViewSkip,
  replayEvidenceFromAttempts,
  type ExperimentAttemptInput,
} from "../release/aed";
import { interventionNodeId } from "../replay";
import { exportBundle, type Db } from "../db";
import { ReleaseSelectionError, selectReleaseCases, type ReleaseExportArgs, type ReleaseFormatExporter, type Result } from "./release-select";

const fail = (code: number, errors: Array<{ path: string; message: string }>): Result => ({ code, output: { ok: false, errors } });

/** Options of these formats after cli/release.ts's own: `--seed S`, `--train F`, `--validation F`. */
export function parseAedOptions(rest: string[]): SplitOptions | Result {
  const o: SplitOptions = {};
  for (let i = 0; i < rest.length; i += 2) {
    const k = rest[i]!;
    const v = rest[i + 1];
    if (!["--seed", "--train", "--validation"].includes(k)) return fail(2, [{ path: k, message: `unknown option ${k} (these formats take --seed S, --train F, --validation F)` }]);
    if (v === undefined || v.startsWith("--")) return fail(2, [{ path: k, message: `${k} needs a value` }]);
    if (k === "--seed") o.seed = v;
    else {
      const f = Number(v);
      if (!Number.isFinite(f) || f < 0 || f > 1) return fail(2, [{ path: k, message: `${k} must be a fraction in [0, 1], got "${v}"` }]);
      if (k === "--train") o.train = f;
      else o.validation = f;
    }
  }
  if ((o.train ?? 0.8) + (o.validation ?? 0.1) > 1) return fail(2, [{ path: "--train", message: `--train + --validation must be at most 1 (got ${(o.train ?? 0.8) + (o.validation ?? 0.1)})` }]);
  return o;
}

/** One case's inputs to the pure core. */
interface CaseInputs {
  /** Database id of the case. */
  caseId: string;
  bundleId: string;
  bundle: NonNullable<Awaited<ReturnType<typeof exportBundle>>>;
  bundleHash: string;
  dataset: string;
  diagnoses: DiagnosisInput[];
  final: DiagnosisInput | null;
  initialCount: number;
  privileged: PrivilegedData;
  runs: Array<{ id: string; targetNodeId: string; boundaryNodeId: string | null; resultCaseId: string | null; passed: boolean | null }>;
  /** Experiment attempts on this case (issue 13), with the bundle id of each attempt's recording. */
  attempts: Array<ExperimentAttemptInput & { bundleId: string | null }>;
}

/**
 * The replay evidence of a diagnosis at node `nodeId`: the case's experiment attempts anchored at
 * that node when there are any (matched pairs: `correction` / `correction-control`, else
 * `annotated-node` / `node-resample`; lib/release/aed/experiments.ts), else the completed replay runs of the
 * case started at the node (treatment only, guidance protocol).
 */
export function replayEvidence(c: Pick<CaseInputs, "runs" | "attempts">, caseKey: string, nodeId: string): ReplayEvidenceInput {
  const exp = replayEvidenceFromAttempts(c.attempts, caseKey, { nodeId });
  if ((exp.planned?.treatment ?? 0) > 0 || (exp.planned?.control ?? 0) > 0) return exp;
  const treatment = c.runs.filter((r) => r.targetNodeId === nodeId).map((r) => ({ id: r.id, passed: r.passed }));
  return { source: "replay-runs", protocol: "guidance", treatment, control: [] };
}

/**
 * The order of a case's initial annotations for their row ids (`#initial-<k>`): by content
 * (categories, primary, node, node type, confidence, rationale, evidence, correction), code-unit
 * order. What a release round trip preserves; submission times and row ids are not.
 */
export function initialOrderKey(a: {
  categories: string | null;
  primary: string | null;
  nodeId: string | null;
  nodeType: string | null;
  confidence: string | null;
  rationale: string;
  evidence: Array<{ nodeId: string; quote: string }>;
  correction: string | null;
}): string {
  const cats = (a.categories ?? "").split(",").filter(Boolean).sort().join(",");
  return JSON.stringify([cats, a.primary ?? "", a.nodeId ?? "", a.nodeType ?? "", a.confidence ?? "", a.rationale, a.evidence.map((e) => [e.nodeId, e.quote]), a.correction ?? ""]);
}

/** Load the selected failed cases with their diagnoses, trials and privileged data. */
async function loadCases(db: Db, args: ReleaseExportArgs) {
  const rows = await selectReleaseCases(db, args.filter);
  const skipped = { passed: [] as string[], noVerdict: [] as string[], noDiagnosis: [] as string[] };
  const cases: CaseInputs[] = [];
  for (const c of rows) {
    if (c.outcomePassed === true) {
      skipped.passed.push(c.bundleId);
      continue;
    }
    if (c.outcomePassed !== false) {
      skipped.noVerdict.push(c.bundleId);
      continue;
    }
    const anns = await db.annotation.findMany({
      where: { caseId: c.id, status: "submitted", ...(args.filter.status === "adjudicated" ? { id: c.finalAnnotationId ?? "-" } : {}) },
      include: { evidence: { orderBy: { idx: "asc" } } },
      orderBy: [{ submittedAt: "asc" }, { id: "asc" }],
    });
    const toInput = (a: (typeof anns)[number], kind: "final" | "initial", ordinal?: number): DiagnosisInput => ({
      kind,
      ordinal,
      categories: a.categories ? a.categories.split(",") : [],
      primary: a.primary,
      nodeId: a.nodeId ?? "",
      nodeType: a.nodeType,
      confidence: a.confidence,
      rationale: a.rationale,
      evidence: a.evidence.map((e) => ({ nodeId: e.nodeId, quote: e.quote })),
      correction: a.correction,
      relation: a.relationJson ? (JSON.parse(a.relationJson) as { pattern?: string }) : null,
    });
    const finalRow = anns.find((a) => a.id === c.finalAnnotationId);
    const final = finalRow ? toInput(finalRow, "final") : null;
    // `#initial-<k>`: k-th in the order of content, not of submission, so that a row names the same
    // annotation in a database reloaded from a release (which carries no submission times).
    const initials = anns
      .filter((a) => a.kind === "initial")
      .map((a) => ({ a, key: initialOrderKey(a) }))
      .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
      .map(({ a }, i) => toInput(a, "initial", i + 1));
    const initialCount = await db.annotation.count({ where: { caseId: c.id, kind: "initial", status: "submitted" } });
    const diagnoses = [...(final ? [final] : []), ...(args.filter.status === "all" ? initials : [])];
    if (!diagnoses.length) {
      skipped.noDiagnosis.push(c.bundleId);
      continue;
    }
    const bundle = await exportBundle(db, { caseId: c.id });
    if (!bundle) continue;
    const labels = await db.referenceLabel.findMany({ where: { caseId: c.id }, orderBy: { idx: "asc" } });
    const runRows = await db.replayRun.findMany({
      where: { sourceCaseId: c.id, status: "completed" },
      select: { id: true, targetNodeId: true, boundaryNodeId: true, resultCaseId: true, resultCase: { select: { outcomePassed: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    cases.push({
      caseId: c.id,
      bundleId: c.bundleId,
      bundle,
      bundleHash: c.bundleHash,
      dataset: c.sourceDataset,
      diagnoses,
      final,
      initialCount,
      privileged: privilegedData(
        bundle,
        labels.map((l) => ({ source: l.source, annotator: l.annotator, nodeId: l.nodeId, agent: l.agent, reason: l.reason, failureModes: JSON.parse(l.failureModesJson) as unknown })),
      ),
      runs: runRows.map((r) => ({ id: r.id, targetNodeId: r.targetNodeId, boundaryNodeId: r.boundaryNodeId, resultCaseId: r.resultCaseId, passed: r.resultCase?.outcomePassed ?? null })),
      attempts: (
        await db.experimentAttempt.findMany({
          where: { experimentCase: { caseId: c.id } },
          select: { id: true, experimentId: true, method: true, attempt: true, status: true, passed: true, anchorNodeId: true, bundleId: true },
          orderBy: [{ attempt: "asc" }, { id: "asc" }],
        })
      ).map((a) => ({ ...a, caseId: c.id })),
    });
  }
  return { cases, skipped };
}

/** Build (and schema-check) every AED row of the loaded cases. */
function buildRows(cases: CaseInputs[], split: SplitOptions) {
  const records: Array<{ record: AedRecord; c: CaseInputs }> = [];
  const rejects: AedReject[] = [];
  for (const c of cases) {
    for (const d of c.diagnoses) {
      const r = buildAedRecord({ bundle: c.bundle, bundleHash: c.bundleHash, dataset: c.dataset }, d, { replay: replayEvidence(c, c.caseId, d.nodeId), final: c.final, initialCount: c.initialCount, split });
      if (!r.ok) {
        rejects.push(r.reject);
        continue;
      }
      const errors = validateAedRecord(r.record);
      if (errors.length) throw new AedSchemaError(r.record.id, errors);
      records.push({ record: r.record, c });
    }
  }
  return { records, rejects };
}

/** A built row violates aed-record.schema.json (a bug: nothing is written). */
export class AedSchemaError extends Error {
  constructor(
    readonly rowId: string,
    readonly errors: Array<{ path: string; message: string }>,
  ) {
    super(`AED row ${rowId} does not match aed-record.schema.json: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
    this.name = "AedSchemaError";
  }
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
const count = <T extends string>(xs: T[]) => xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {});

/** Write files atomically enough: everything into a fresh temp folder next to `dir`, then move each into place. */
function writeAll(dir: string, files: Array<[string, string | ArrayBuffer]>) {
  mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.aed-tmp-${process.pid}-${Date.now()}`);
  mkdirSync(tmp);
  try {
    for (const [name, data] of files) {
      mkdirSync(path.dirname(path.join(tmp, name)), { recursive: true });
      writeFileSync(path.join(tmp, name), typeof data === "string" ? data : Buffer.from(data));
    }
    for (const [name] of files) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      renameSync(path.join(tmp, name), path.join(dir, name));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The shared front: options, selection, rows; or a failure Result. */
async function prepare(db: Db, args: ReleaseExportArgs) {
  const split = parseAedOptions(args.rest);
  if ("code" in split) return split;
  try {
    const { cases, skipped } = await loadCases(db, args);
    const { records, rejects } = buildRows(cases, split);
    return { split, cases, skipped, records, rejects };
  } catch (e) {
    if (e instanceof ReleaseSelectionError) return fail(1, [{ path: e.path, message: e.message }]);
    if (e instanceof AedSchemaError) return fail(1, e.errors.map((x) => ({ path: `${e.rowId}: ${x.path}`, message: x.message })));
    throw e;
  }
}

const rejectSummary = (rejects: AedReject[]) => rejects.map((r) => ({ id: r.id, nodeId: r.nodeId, reasons: r.reasons }));

/**
 * `--format aed`: AED rows, privileged data, rejects and the schema (see the module comment).
 * @returns exit 0 with the counts when every selected diagnosis became a row; exit 1 when some
 *   were rejected (listed in the output and in aed.rejects.jsonl; the others are written), or on
 *   a selection error (nothing written)
 */
export const aedReleaseFormat: ReleaseFormatExporter = async (db, args) => {
  const p = await prepare(db, args);
  if ("code" in p) return p;
  const rows = p.records.map((r) => r.record);
  const privileged = p.cases.filter((c) => rows.some((r) => r.source.bundleId === c.bundleId)).map((c) => c.privileged);
  const files: Array<[string, string | ArrayBuffer]> = [
    ["aed.jsonl", jsonl(rows)],
    ["aed.privileged.jsonl", jsonl(privileged)],
    ["aed.rejects.jsonl", jsonl(p.rejects)],
    ["aed-record.schema.json", JSON.stringify(AED_RECORD_SCHEMA, null, 2) + "\n"],
  ];
  if (args.parquet) files.push(["aed.parquet", aedRowsToParquet(rows)], ["aed.privileged.parquet", privilegedRowsToParquet(privileged)]);
  writeAll(args.out, files);
  return {
    code: p.rejects.length ? 1 : 0,
    output: {
      ok: p.rejects.length === 0,
      format: "aed",
      out: args.out,
      rows: rows.length,
      rejected: rejectSummary(p.rejects),
      skipped: p.skipped,
      grades: count(rows.map((r) => r.evidenceGrade)),
      splits: count(rows.map((r) => r.split)),
      files: files.map(([f]) => f),
    },
  };
};

/**
 * The replay branches of a case from a node (for the recovery and preference views): its
 * experiment attempts anchored there that recorded a bundle (treatment and control alike: each is
 * a branch from the same prefix with its own verdict; `error` ones have none), and its completed
 * replay runs started there.
 */
async function branchesOf(db: Db, c: CaseInputs, nodeId: string): Promise<ReplayBranch[]> {
  const sourceIds = new Set(c.bundle.graph.nodes.map((n) => n.id));
  const out: ReplayBranch[] = [];
  for (const a of c.attempts) {
    if (a.anchorNodeId !== nodeId || !a.bundleId || (a.status !== "passed" && a.status !== "failed")) continue;
    const replay = await exportBundle(db, { bundleId: a.bundleId });
    if (!replay) continue;
    const boundary = (replay.parent as { boundaryNodeId?: unknown } | null | undefined)?.boundaryNodeId;
    const b = typeof boundary === "string" ? boundary : nodeId;
    out.push({ id: a.id!, boundaryNodeId: b, passed: a.status === "passed", action: branchAction(sourceIds, replay, interventionNodeId(replay, b)) });
  }
  for (const r of c.runs) {
    if (r.targetNodeId !== nodeId || !r.resultCaseId) continue;
    const replay = await exportBundle(db, { caseId: r.resultCaseId });
    if (!replay) continue;
    const boundary = r.boundaryNodeId ?? r.targetNodeId;
    out.push({ id: r.id, boundaryNodeId: boundary, passed: r.passed, action: branchAction(sourceIds, replay, interventionNodeId(replay, boundary)) });
  }
  return out;
}

/**
 * `--format sft-diagnosis | sft-recovery | preference`: the view's rows per split (see the module
 * comment). Only adjudicated, grounded AED rows feed a view; rejected AED rows feed none.
 * @returns exit 0 with counts per split (AED rejects are listed; they do not change the exit code
 *   here, the view is complete for the rows that exist), exit 1 on a selection error
 */
export function viewReleaseFormat(view: ViewFormat): ReleaseFormatExporter {
  return async (db, args) => {
    const p = await prepare(db, args);
    if ("code" in p) return p;
    const items: Array<ViewItem<Record<string, unknown>>> = [];
    const skips: ViewSkip[] = [];
    for (const { record, c } of p.records) {
      let got: Array<ViewItem<object> | ViewSkip>;
      if (view === "sft-diagnosis") got = [diagnosisView(record, c.privileged)];
      else {
        const branches = record.review.adjudicated ? await branchesOf(db, c, record.diagnosis.step.nodeId) : [];
        got = view === "sft-recovery" ? recoveryView(record, branches, c.privileged) : preferenceView(record, branches, c.privileged);
      }
      for (const g of got) {
        if (isViewItem(g)) items.push(g as ViewItem<Record<string, unknown>>);
        else skips.push(g);
      }
    }
    const columns = view === "preference" ? ["prompt", "chosen", "rejected"] : ["messages"];
    const files: Array<[string, string | ArrayBuffer]> = [];
    for (const s of SPLITS) {
      const rows = items.filter((i) => i.meta.split === s).map((i) => i.row);
      files.push([`${view}/${s}.jsonl`, jsonl(rows)]);
      if (args.parquet) files.push([`${view}/${s}.parquet`, chatRowsToParquet(columns, rows as Array<Record<string, never>>, view)]);
    }
    files.push([`${view}/index.jsonl`, jsonl(items.map((i) => i.meta))], [`${view}/skipped.jsonl`, jsonl(skips)]);
    writeAll(args.out, files);
    return {
      code: 0,
      output: {
        ok: true,
        format: view,
        out: args.out,
        rows: items.length,
        splits: Object.fromEntries(SPLITS.map((s) => [s, items.filter((i) => i.meta.split === s).length])),
        tasks: Object.fromEntries(SPLITS.map((s) => [s, new Set(items.filter((i) => i.meta.split === s).map((i) => i.meta.taskId)).size])),
        skipped: skips.map((s) => ({ id: s.aedId, reason: s.reason })),
        aedRejected: rejectSummary(p.rejects),
        casesSkipped: p.skipped,
        files: files.map(([f]) => f),
      },
    };
  };
}
