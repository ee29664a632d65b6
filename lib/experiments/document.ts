/**
 * Recompute an experiment's report from its attempts (issue 20 item 6): the figures of an
 * `experiment run` document (the CLI's experiment.json, the demo's demo/experiment, a JSON export)
 * come from `summarizeExperiment` over the document's own cases and attempts — exactly as the
 * runner computes them (lib/services/experiments/run.ts `summarize`) — so a check never has to
 * trust the stored report. Pure.
 */
import { summarizeExperiment } from "./report";
import type { AttemptRecord, ExperimentReport } from "./types";

/** The parts of an experiment document the report is computed from. */
export interface ExperimentDocumentInput {
  experiment: string;
  methods: string[];
  settings: { attempts: number; seed: number; fake?: string | null; reproductionJudge?: unknown };
  cases: ReadonlyArray<{ bundleId: string; mas: string; primaryCategory: string | null }>;
  attempts: ReadonlyArray<StoredAttempt>;
}

/** An attempt as stored or written to a document (lib/db ExperimentAttemptView has these fields). */
export interface StoredAttempt {
  caseBundleId: string;
  mas: string;
  primaryCategory: string | null;
  method: string;
  attempt: number;
  status: string;
  passed: boolean | null;
  reproduced: boolean | null;
  calls: number;
  auxCalls: number;
  tokens: { total: number } | number;
  auxTokens?: number;
}

/**
 * A stored attempt as the statistics take it; queued/running attempts (no outcome yet) are null.
 * `auxTokens` is capped at the attempt's tokens.
 */
export function attemptRecordOf(a: StoredAttempt): AttemptRecord | null {
  if (a.status === "queued" || a.status === "running") return null;
  const total = typeof a.tokens === "number" ? a.tokens : a.tokens.total;
  return {
    caseId: a.caseBundleId,
    mas: a.mas,
    primaryCategory: a.primaryCategory,
    method: a.method,
    attempt: a.attempt,
    status: a.status as AttemptRecord["status"],
    passed: a.passed,
    reproduced: a.reproduced,
    calls: a.calls,
    auxCalls: a.auxCalls,
    tokens: total,
    auxTokens: Math.min(a.auxTokens ?? 0, total),
  };
}

/**
 * The report of an experiment document, recomputed from its attempts.
 * @returns what `summarizeExperiment` gives for the document's cases (case order), methods, k,
 *   seed and final attempts (queued / running rows are left out, as the runner does)
 * @throws RangeError from summarizeExperiment naming a bad attempt field
 */
export function reportOfDocument(doc: ExperimentDocumentInput): ExperimentReport {
  const records = doc.attempts.map(attemptRecordOf).filter((r): r is AttemptRecord => r !== null);
  return summarizeExperiment({
    experiment: doc.experiment,
    cases: doc.cases.map((c) => ({ caseId: c.bundleId, mas: c.mas, primaryCategory: c.primaryCategory })),
    methods: doc.methods,
    attempts: doc.settings.attempts,
    attemptsRecords: records,
    seed: doc.settings.seed,
    ...(doc.settings.fake ? { fake: doc.settings.fake } : {}),
    ...(doc.settings.reproductionJudge !== undefined ? { judged: doc.settings.reproductionJudge !== null } : {}),
  });
}
