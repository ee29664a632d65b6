/**
 * One verdict per case for every view (issue 22 item 7): the case list, the case header and the
 * replay page say the same thing about a case. The rule is the replay page's (lib/replay
 * `resolveOutcomes`, source side): the verdict recorded in the bundle (`outcome.passed`, e.g. a
 * dataset's label) when it is a boolean; else the evaluator's verdict on this case, stored when a
 * replay of it ran the evaluator on the source (`outcome.sourceEvaluation` of the replay's result
 * bundle; the latest run that judged it); else unknown. A viewer blind on a case (lib/db
 * visibility `blindCaseIds`: an annotator before submitting) gets only the recorded verdict: the
 * evaluator's would show that a replay of the case ran, and its result.
 */
import type { Viewer } from "../annotation";
import type { Db } from "./client";
import { blindCaseIds } from "./visibility";

/** A case's verdict and where it comes from. */
export interface CaseVerdict {
  passed: boolean | null;
  /** "recorded": the bundle's own outcome; "evaluator": the evaluator run on it by a replay; "none". */
  via: "recorded" | "evaluator" | "none";
  /** The evaluator's name (recorded outcome or the replay's evaluation), when known. */
  evaluator: string | null;
}

type Outcome = { passed?: unknown; evaluator?: unknown; sourceEvaluation?: { passed?: unknown; evaluator?: unknown } } | null | undefined;

/**
 * @param cases the cases (id and the stored `Case.outcomePassed`, which mirrors the bundle's `outcome.passed`)
 * @param viewer who is looking (replay-derived verdicts withheld on cases they are blind on); null: no
 *   viewer (CLI, tests): every verdict
 * @returns a verdict for every case id given; one query over the completed replays of the cases
 *   with no recorded verdict (none when every case has one)
 */
export async function caseVerdicts(db: Db, cases: ReadonlyArray<{ id: string; outcomePassed: boolean | null }>, viewer: Viewer | null): Promise<Map<string, CaseVerdict>> {
  const out = new Map<string, CaseVerdict>();
  const open: string[] = [];
  for (const c of cases) {
    if (typeof c.outcomePassed === "boolean") out.set(c.id, { passed: c.outcomePassed, via: "recorded", evaluator: null });
    else {
      out.set(c.id, { passed: null, via: "none", evaluator: null });
      open.push(c.id);
    }
  }
  if (open.length === 0) return out;
  const blind = viewer ? await blindCaseIds(db, viewer, open) : new Set<string>();
  const judgeable = open.filter((id) => !blind.has(id));
  if (judgeable.length === 0) return out;
  const runs = await db.replayRun.findMany({
    where: { sourceCaseId: { in: judgeable }, resultCaseId: { not: null }, status: "completed" },
    orderBy: [{ finishedAt: "desc" }, { createdAt: "desc" }],
    select: { sourceCaseId: true, resultCase: { select: { headerJson: true } } },
  });
  const judged = new Set<string>();
  for (const r of runs) {
    if (judged.has(r.sourceCaseId) || !r.resultCase) continue;
    let outcome: Outcome;
    try {
      outcome = (JSON.parse(r.resultCase.headerJson) as { outcome?: Outcome }).outcome;
    } catch {
      continue;
    }
    const e = outcome?.sourceEvaluation;
    if (!e || typeof e.passed !== "boolean") continue;
    judged.add(r.sourceCaseId);
    out.set(r.sourceCaseId, { passed: e.passed, via: "evaluator", evaluator: typeof e.evaluator === "string" ? e.evaluator : null });
  }
  return out;
}

/** {@link caseVerdicts} of one case. */
export async function caseVerdict(db: Db, c: { id: string; outcomePassed: boolean | null }, viewer: Viewer | null): Promise<CaseVerdict> {
  return (await caseVerdicts(db, [c], viewer)).get(c.id)!;
}
