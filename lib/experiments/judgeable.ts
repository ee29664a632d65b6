/**
 * Which cases an experiment's evaluator can judge (issue 22 item 2, issue 20 item 4): pure rules
 * over the evaluators a server has configured and the cases' tasks. An evaluator follows the
 * SYMTRACE_REPLAY_EVALUATOR contract (exit 0 = passed, 1 = failed, anything else = no verdict);
 * one that declares the tasks it knows (`tasks`, a regular expression) is checked against each
 * case's task text here, without running it; one that declares nothing is probed by the service
 * (lib/services/experiments/judgeable.ts: it is run once on the case's source run, and a reply
 * other than 0/1 means it cannot judge that case, with the evaluator's own reason).
 */

/** An evaluator the server offers (never a command from a request). */
export interface EvaluatorOption {
  /** Stable name shown in the form and sent by the API (`evaluator: <name>`). */
  name: string;
  /** The shell command (SYMTRACE_REPLAY_EVALUATOR contract). */
  command: string;
  /** Where it is configured: "built-in", "SYMTRACE_REPLAY_EVALUATOR" or the registry file. */
  source: string;
  /** What it judges, in words (shown beside it). */
  description: string;
  /** Regular expression (JavaScript source, case-insensitive) a task text must match; null = not declared (probe). */
  tasks: string | null;
  /** The reproduction judge that goes with it (a command with the same contract), or null. */
  reproductionJudge: string | null;
}

/** A case as the check sees it. */
export interface JudgeableCaseInput {
  caseId: string;
  bundleId: string;
  dataset: string;
  task: string;
}

/** The verdict of the check for one case and one evaluator: null reason = it can judge the case. */
export interface CaseJudgeability {
  caseId: string;
  bundleId: string;
  dataset: string;
  /** Why the evaluator cannot judge the case, or null when it can. */
  reason: string | null;
}

/**
 * The declared scope check: null when `ev` declares no task pattern (it must be probed) or the
 * task matches; else the reason ("evaluator <name> judges only <description>; this task is
 * "<first 80 characters>"").
 * @throws nothing: an invalid pattern is reported as the reason
 */
export function declaredScopeReason(ev: EvaluatorOption, task: string): string | null {
  if (ev.tasks === null) return null;
  let re: RegExp;
  try {
    re = new RegExp(ev.tasks, "i");
  } catch (e) {
    return `evaluator ${ev.name} has an invalid task pattern /${ev.tasks}/: ${(e as Error).message}`;
  }
  if (re.test(task)) return null;
  const t = task.replace(/\s+/g, " ").trim();
  return `evaluator ${ev.name} judges only ${ev.description}; this task is "${t.length > 80 ? `${t.slice(0, 79)}…` : t}"`;
}

/** Summary per dataset for the form: how many cases, how many the evaluator can judge, the distinct reasons. */
export interface DatasetJudgeability {
  dataset: string;
  cases: number;
  judgeable: number;
  reasons: string[];
}

/** Group per-case verdicts by dataset (datasets in first-seen order; reasons distinct, first 5). */
export function byDataset(rows: readonly CaseJudgeability[]): DatasetJudgeability[] {
  const out = new Map<string, DatasetJudgeability>();
  for (const r of rows) {
    const d = out.get(r.dataset) ?? { dataset: r.dataset, cases: 0, judgeable: 0, reasons: [] };
    d.cases++;
    if (r.reason === null) d.judgeable++;
    else if (!d.reasons.includes(r.reason) && d.reasons.length < 5) d.reasons.push(r.reason);
    out.set(r.dataset, d);
  }
  return [...out.values()];
}

/**
 * The refusal message for an experiment with cases its evaluator cannot judge: names how many,
 * the first few bundle ids with their reasons; null when every case can be judged.
 */
export function refusalMessage(evaluator: string | null, rows: readonly CaseJudgeability[]): string | null {
  const bad = rows.filter((r) => r.reason !== null);
  if (bad.length === 0) return null;
  const shown = bad.slice(0, 3).map((r) => `${r.bundleId}: ${r.reason}`);
  const more = bad.length > 3 ? `; and ${bad.length - 3} more` : "";
  return `${bad.length} of ${rows.length} case(s) cannot be judged by ${evaluator ? `evaluator ${evaluator}` : "any evaluator"}, so their attempts could have no verdict — leave them out or configure an evaluator for them: ${shown.join("; ")}${more}`;
}
