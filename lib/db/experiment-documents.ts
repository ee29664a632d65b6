/**
 * Experiment documents (`<out>/experiment.json`, format symtrace.experiment/v1): a finished
 * experiment stored from its document (the demo's shipped experiment; an experiment moved between
 * databases). The live experiment rows are ./experiments.ts's.
 */
import type { Db } from "./client";
import type { ExperimentSettings } from "../experiments/settings";
import { checkSettings, ExperimentError, FINAL_ATTEMPT_STATUSES, FINAL_EXPERIMENT_STATUSES, type ExperimentStatus } from "../experiments/lifecycle";
import { checkMethods, type CaseSetSpec, type ExperimentAttemptView, type ExperimentCaseView } from "./experiments";

/** The document `symtrace experiment run` writes as `<out>/experiment.json` (format symtrace.experiment/v1). */
export interface ExperimentDocument {
  format: "symtrace.experiment/v1";
  experiment: string;
  name?: string;
  status: ExperimentStatus;
  settings: ExperimentSettings;
  caseSet: CaseSetSpec;
  methods: string[];
  createdAt?: string;
  startedAt?: string | null;
  finishedAt?: string | null;
  cases: ExperimentCaseView[];
  attempts: Array<Omit<ExperimentAttemptView, "startedAt" | "finishedAt" | "leaseExpiresAt"> & { startedAt: string | null; finishedAt: string | null }>;
  /** The stored report (lib/experiments ExperimentReport). */
  report: unknown;
  cli?: unknown;
}

/**
 * Store a finished experiment from its document (the demo's shipped experiment; an experiment
 * moved between databases), with its id, frozen settings, cases, every attempt and its report —
 * final, never run again. Idempotent: an experiment with that id is left as it is. Source and
 * attempt bundles are imported separately (importCase); cases are linked by bundle id when present.
 * @returns "imported" | "skipped"
 * @throws ExperimentError "invalid" naming the JSON path of a bad field
 */
export async function importExperimentDocument(db: Db, doc: ExperimentDocument): Promise<"imported" | "skipped"> {
  if (!doc || doc.format !== "symtrace.experiment/v1") throw new ExperimentError("invalid", `$.format must be "symtrace.experiment/v1"`, "$.format");
  if (typeof doc.experiment !== "string" || !doc.experiment) throw new ExperimentError("invalid", "$.experiment must be the experiment id", "$.experiment");
  if (!FINAL_EXPERIMENT_STATUSES.includes(doc.status)) throw new ExperimentError("invalid", `$.status must be final (${FINAL_EXPERIMENT_STATUSES.join(", ")}); got ${JSON.stringify(doc.status)}`, "$.status");
  if (!Array.isArray(doc.cases) || !Array.isArray(doc.attempts)) throw new ExperimentError("invalid", "$.cases and $.attempts must be arrays", Array.isArray(doc.cases) ? "$.attempts" : "$.cases");
  if (await db.experiment.findUnique({ where: { id: doc.experiment }, select: { id: true } })) return "skipped";
  const settings = checkSettings(doc.settings);
  const methods = checkMethods(doc.methods);
  const known = new Map((await db.case.findMany({ where: { bundleId: { in: doc.cases.map((c) => c.bundleId) } }, select: { id: true, bundleId: true } })).map((c) => [c.bundleId, c.id]));
  const date = (v: string | null | undefined) => (v ? new Date(v) : null);
  await db.$transaction(
    async (tx) => {
      await tx.experiment.create({
        data: {
          id: doc.experiment,
          name: doc.name ?? "",
          status: doc.status,
          stopReason: doc.status === "finished" ? null : doc.status,
          cancelRequested: doc.status === "cancelled",
          settingsJson: JSON.stringify(settings),
          caseSetJson: JSON.stringify(doc.caseSet),
          methodsJson: JSON.stringify(methods),
          attempts: settings.attempts,
          seed: settings.seed,
          maxCalls: settings.budget.maxCalls,
          maxTokens: settings.budget.maxTokens,
          reportJson: doc.report == null ? null : JSON.stringify(doc.report),
          ...(doc.createdAt ? { createdAt: new Date(doc.createdAt) } : {}),
          startedAt: date(doc.startedAt),
          finishedAt: date(doc.finishedAt) ?? new Date(),
        },
      });
      const caseRowId = new Map<string, string>();
      for (const [i, c] of doc.cases.entries()) {
        if (typeof c.bundleId !== "string") throw new ExperimentError("invalid", `$.cases[${i}].bundleId must be a string`, `$.cases[${i}].bundleId`);
        const row = await tx.experimentCase.create({
          data: { experimentId: doc.experiment, idx: i, caseId: known.get(c.bundleId) ?? null, bundleId: c.bundleId, mas: c.mas, benchmark: c.benchmark ?? null, task: c.task ?? "", primaryCategory: c.primaryCategory ?? null, referenceJson: c.reference ? JSON.stringify(c.reference) : null },
          select: { id: true },
        });
        caseRowId.set(c.bundleId, row.id);
      }
      const data = doc.attempts.map((a, i) => {
        const ec = caseRowId.get(a.caseBundleId);
        if (!ec) throw new ExperimentError("invalid", `$.attempts[${i}].caseBundleId "${a.caseBundleId}" is not in $.cases`, `$.attempts[${i}].caseBundleId`);
        if (!FINAL_ATTEMPT_STATUSES.includes(a.status)) throw new ExperimentError("invalid", `$.attempts[${i}].status must be final; got ${JSON.stringify(a.status)}`, `$.attempts[${i}].status`);
        return {
          experimentId: doc.experiment,
          experimentCaseId: ec,
          method: a.method,
          attempt: a.attempt,
          status: a.status,
          passed: a.passed,
          reproduced: a.reproduced,
          anchorNodeId: a.anchorNodeId,
          guidance: a.guidance,
          bundleId: a.bundleId,
          calls: a.calls,
          auxCalls: a.auxCalls,
          promptTokens: a.tokens?.prompt ?? 0,
          completionTokens: a.tokens?.completion ?? 0,
          tokens: a.tokens?.total ?? 0,
          auxTokens: a.auxTokens ?? 0,
          masMs: a.masMs ?? 0,
          error: a.error,
          skipReason: a.skipReason,
          judgeReason: a.judgeReason,
          finalJson: a.final === undefined ? null : JSON.stringify(a.final),
          claims: a.claims ?? 1,
          progressJson: JSON.stringify({ phase: "done", liveCalls: a.calls }),
          startedAt: date(a.startedAt),
          finishedAt: date(a.finishedAt),
        };
      });
      await tx.experimentAttempt.createMany({ data });
      await tx.auditEvent.create({ data: { action: "experiment.import", entityType: "experiment", entityId: doc.experiment, dataJson: JSON.stringify({ status: doc.status, attempts: data.length }) } });
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  return "imported";
}
