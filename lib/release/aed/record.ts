/**
 * One AED error–diagnosis record (`symtrace.aed/v1`): one failed case × one diagnosis
 * (seeds/004 §2.1 "Record"; seeds-002-004.md §3.2 mapping). Pure: the caller (lib/services/
 * release-aed.ts) loads the bundle, the diagnosis and the replay trials; this module grounds the
 * quotes, grades the evidence, assigns the split and either builds the row or says why not.
 *
 * Row shape (JSON Schema: aed-record.schema.json, validated with ajv in validate.ts):
 * ```
 * { format: "symtrace.aed/v1", id: "<bundle id>#final" | "<bundle id>#initial-<k>",
 *   source: { bundleId, bundleHash, taskId, benchmark, dataset, mas, masVersion, model, seed, temperature, verdict: "failed" },
 *   trace: StudentTrace (trace.ts; privileged data is in privileged.jsonl, keyed by bundleId),
 *   diagnosis: { step: { nodeId, index, type }, agent, explanation, quotes: [{ source, index, nodeId, stepIndex, text }],
 *                correction, labels: { labelSet: "symtrace-c1c4@1", categories, primary }, confidence },
 *   review: { kind: "final"|"initial", adjudicated, initialCount, pattern, agreesWithFinal },
 *   replay: { status, source, protocol, treatment: Arm, control: Arm, delta },
 *   evidenceGrade, gradeReason, split, leakageGroup }
 * ```
 */
import type { ReplayBundle } from "../../bundle";
import { evidenceGrade, type ArmSummary, type EvidenceGrade } from "./grade";
import { diagnosisQuotes, resolveQuotes, type ResolvedQuote } from "./quotes";
import { splitOf, taskKeyOf, type Split, type SplitOptions } from "./split";
import { studentTrace, type StudentTrace } from "./trace";

export const AED_FORMAT = "symtrace.aed/v1";
/** The versioned label set of `diagnosis.labels` (C1–C4 of the SymFail protocol, version 1). */
export const AED_LABEL_SET = "symtrace-c1c4@1";

/** A diagnosis as stored (an initial or final annotation). */
export interface DiagnosisInput {
  kind: "final" | "initial";
  /** 1-based position among the case's submitted initial annotations (row id; the caller orders them by content, lib/services/release-aed.ts initialOrderKey); ignored for the final. */
  ordinal?: number;
  categories: string[];
  primary: string | null;
  nodeId: string;
  nodeType: string | null;
  confidence: string | null;
  rationale: string;
  evidence: Array<{ nodeId: string; quote: string }>;
  correction: string | null;
  /** The final's relation to the initials (lib/annotation relateFinal), when known. */
  relation?: { pattern?: string } | null;
}

/** One trial of a replay arm, with the run (or experiment attempt) it came from. */
export interface ReplayTrial {
  id: string;
  passed: boolean | null;
}

/** The replay evidence of a diagnosis (empty arms: never replayed). */
export interface ReplayEvidenceInput {
  /** Where the trials come from: "replay-runs" (guided replays from the node) or "experiment". */
  source: "replay-runs" | "experiment" | null;
  /** How the treatment was applied, e.g. "guidance" (q ⊕ Δ) or "substitution" (a* replaces the node). */
  protocol: string | null;
  treatment: ReplayTrial[];
  control: ReplayTrial[];
  planned?: { treatment?: number; control?: number };
}

export interface AedCaseInput {
  bundle: ReplayBundle;
  /** sha256 of JCS(bundle) as stored ("sha256:<hex>"). */
  bundleHash: string;
  /** Case.sourceDataset (bundle, who_and_when, mad, langfuse, otlp, replay). */
  dataset: string;
}

export interface AedArm extends ArmSummary {
  runs: ReplayTrial[];
}

export interface AedRecord {
  format: typeof AED_FORMAT;
  id: string;
  source: {
    bundleId: string;
    bundleHash: string;
    taskId: string;
    benchmark: string | null;
    dataset: string;
    mas: string | null;
    masVersion: string | null;
    model: string | null;
    seed: number | string | null;
    temperature: number | null;
    verdict: "failed";
  };
  trace: StudentTrace;
  diagnosis: {
    step: { nodeId: string; index: number; type: string };
    agent: string | null;
    explanation: string;
    quotes: Array<{ source: "evidence" | "rationale"; index: number; nodeId: string | null; stepIndex: number | null; text: string }>;
    correction: string | null;
    labels: { labelSet: typeof AED_LABEL_SET; categories: string[]; primary: string | null };
    confidence: string | null;
  };
  review: { kind: "final" | "initial"; adjudicated: boolean; initialCount: number; pattern: string | null; agreesWithFinal: boolean | null };
  replay: { status: "none" | "checkpoint_named" | "executed" | "no_verdict"; source: string | null; protocol: string | null; treatment: AedArm; control: AedArm; delta: number | null };
  evidenceGrade: EvidenceGrade;
  gradeReason: string;
  split: Split;
  leakageGroup: string;
}

/** A row that was not exported, and every reason. */
export interface AedReject {
  id: string;
  bundleId: string;
  taskId: string;
  kind: "final" | "initial";
  nodeId: string;
  reasons: string[];
  quotes: ResolvedQuote[];
}

export type AedBuild = { ok: true; record: AedRecord } | { ok: false; reject: AedReject };

const tupleKey = (d: { categories: string[]; primary: string | null; nodeId: string; nodeType: string | null }) => [[...d.categories].sort().join(","), d.primary ?? "", d.nodeId, d.nodeType ?? ""].join("|");

/** The row id of a diagnosis of a case. */
export const aedRowId = (bundleId: string, d: Pick<DiagnosisInput, "kind" | "ordinal">): string => (d.kind === "final" ? `${bundleId}#final` : `${bundleId}#initial-${d.ordinal ?? 1}`);

/**
 * Build the AED row of one (failed case, diagnosis), or the reject that says why it is not exported.
 * @param c the case (its bundle must have `outcome.passed === false`)
 * @param d the diagnosis (its node t* and quotes are checked against the student trace)
 * @param o.replay the replay trials of the diagnosis (default: none); o.final the case's final
 *   diagnosis (for `review.agreesWithFinal` of an initial row); o.initialCount the case's
 *   submitted initial annotations; o.split split options
 * @returns `{ ok: true, record }`, or `{ ok: false, reject }` when the case did not fail, the
 *   blamed node is not in the trace, or any quote does not resolve at or before it
 */
export function buildAedRecord(
  c: AedCaseInput,
  d: DiagnosisInput,
  o: { replay?: ReplayEvidenceInput; final?: DiagnosisInput | null; initialCount?: number; split?: SplitOptions } = {},
): AedBuild {
  const b = c.bundle;
  const id = aedRowId(b.id, d);
  const taskId = taskKeyOf({ taskId: b.task.id, bundleId: b.id });
  const trace = studentTrace(b);
  const quotes = resolveQuotes(trace, d.nodeId, diagnosisQuotes(d));
  const reasons: string[] = [];
  if (b.outcome?.passed !== false) reasons.push(`the case did not fail (outcome.passed is ${JSON.stringify(b.outcome?.passed ?? null)}): only failed cases have error–diagnosis rows`);
  const step = trace.steps.find((s) => s.nodeId === d.nodeId);
  if (!step) reasons.push(`the blamed node "${d.nodeId}" is not in the trace`);
  else for (const q of quotes) if (!q.resolved) reasons.push(q.message!);
  if (reasons.length || !step) return { ok: false, reject: { id, bundleId: b.id, taskId, kind: d.kind, nodeId: d.nodeId, reasons, quotes: quotes.filter((q) => !q.resolved) } };

  const replay = o.replay ?? { source: null, protocol: null, treatment: [], control: [] };
  const g = evidenceGrade({ grounded: quotes.length > 0, treatment: replay.treatment, control: replay.control, planned: replay.planned });
  const cfg = b.config as ReplayBundle["config"] & { seed?: unknown };
  const init = b.initialState as { seed?: unknown } | null | undefined;
  const seedRaw = cfg.seed ?? (init && typeof init === "object" ? init.seed : undefined);
  const seed = typeof seedRaw === "number" || typeof seedRaw === "string" ? seedRaw : null;
  const record: AedRecord = {
    format: AED_FORMAT,
    id,
    source: {
      bundleId: b.id,
      bundleHash: c.bundleHash,
      taskId,
      benchmark: b.task.benchmark ?? null,
      dataset: c.dataset,
      mas: cfg.mas ?? null,
      masVersion: cfg.masVersion ?? null,
      model: cfg.model ?? null,
      seed,
      temperature: cfg.temperature ?? null,
      verdict: "failed",
    },
    trace,
    diagnosis: {
      step: { nodeId: step.nodeId, index: step.index, type: step.type },
      agent: step.agent,
      explanation: d.rationale,
      quotes: quotes.map((q) => ({ source: q.source, index: q.index, nodeId: q.at === "task" ? null : (q.at?.nodeId ?? null), stepIndex: q.at === "task" ? null : (q.at?.stepIndex ?? null), text: q.text })),
      correction: d.correction?.trim() ? d.correction : null,
      labels: { labelSet: AED_LABEL_SET, categories: [...d.categories].sort(), primary: d.primary },
      confidence: d.confidence,
    },
    review: {
      kind: d.kind,
      adjudicated: d.kind === "final",
      initialCount: o.initialCount ?? 0,
      pattern: d.kind === "final" ? (d.relation?.pattern ?? null) : null,
      agreesWithFinal: d.kind === "initial" && o.final ? tupleKey(d) === tupleKey(o.final) : null,
    },
    replay: {
      status: g.replayStatus,
      source: replay.treatment.length || replay.control.length ? replay.source : null,
      protocol: replay.treatment.length || replay.control.length ? replay.protocol : null,
      treatment: { ...g.treatment, runs: replay.treatment.map((t) => ({ id: t.id, passed: t.passed })) },
      control: { ...g.control, runs: replay.control.map((t) => ({ id: t.id, passed: t.passed })) },
      delta: g.delta,
    },
    evidenceGrade: g.grade,
    gradeReason: g.reason,
    split: splitOf(taskId, o.split),
    leakageGroup: taskId,
  };
  return { ok: true, record };
}
