/**
 * A small experiment computed by hand (tests of report.ts, export.ts and the experiment page's
 * components): 4 cases on 2 MAS, rerun / suspicious-node / critic, k = 3, with errors, skips, a
 * cancel and a pending case. The expected numbers are spelled out in report.test.ts.
 */
import type { AttemptRecord, AttemptStatus, ExperimentCaseRef, ExperimentReportInput } from "./types";

export const cases: ExperimentCaseRef[] = [
  { caseId: "c1", mas: "AG2", primaryCategory: "C1" },
  { caseId: "c2", mas: "AG2", primaryCategory: "C3" },
  { caseId: "c3", mas: "CrewAI", primaryCategory: "C1" },
  { caseId: "c4", mas: "CrewAI", primaryCategory: null },
];
const masOf = Object.fromEntries(cases.map((c) => [c.caseId, c]));
export function rec(caseId: string, method: string, attempt: number, status: AttemptStatus, reproduced: boolean | null, calls: number, auxCalls = 0): AttemptRecord {
  const c = masOf[caseId];
  const passed = status === "passed" ? true : status === "failed" || status === "error" ? false : null;
  return { caseId, mas: c.mas, primaryCategory: c.primaryCategory, method, attempt, status, passed, reproduced, calls, auxCalls, tokens: 10 * calls };
}
const T = true;
const F = false;
export const records: AttemptRecord[] = [
  // rerun (task level, chains): c1 fail→pass; c2 error,fail,fail; c3 fail×3; c4 cancelled (pending)
  rec("c1", "rerun", 1, "failed", T, 4),
  rec("c1", "rerun", 2, "passed", null, 5),
  rec("c2", "rerun", 1, "error", null, 2),
  rec("c2", "rerun", 2, "failed", T, 3),
  rec("c2", "rerun", 3, "failed", T, 3),
  rec("c3", "rerun", 1, "failed", T, 2),
  rec("c3", "rerun", 2, "failed", T, 2),
  rec("c3", "rerun", 3, "failed", T, 2),
  rec("c4", "rerun", 1, "cancelled", null, 1),
  // suspicious-node (node level, 3 independent attempts): pass@1 = attempt 1
  rec("c1", "suspicious-node", 1, "passed", F, 3),
  rec("c1", "suspicious-node", 2, "failed", T, 3),
  rec("c1", "suspicious-node", 3, "passed", F, 3),
  rec("c2", "suspicious-node", 1, "failed", T, 2),
  rec("c2", "suspicious-node", 2, "failed", T, 2),
  rec("c2", "suspicious-node", 3, "failed", T, 2),
  rec("c3", "suspicious-node", 1, "passed", null, 2),
  rec("c3", "suspicious-node", 2, "error", null, 1),
  rec("c3", "suspicious-node", 3, "failed", F, 2),
  rec("c4", "suspicious-node", 1, "skipped", null, 0),
  // critic (task level): c1 fail×3; c2 pass at 1; c3 skipped; c4 error×3
  rec("c1", "critic", 1, "failed", T, 4, 1),
  rec("c1", "critic", 2, "failed", T, 4, 1),
  rec("c1", "critic", 3, "failed", T, 4, 1),
  rec("c2", "critic", 1, "passed", null, 5, 1),
  rec("c3", "critic", 1, "skipped", null, 0),
  rec("c3", "critic", 2, "skipped", null, 0),
  rec("c3", "critic", 3, "skipped", null, 0),
  rec("c4", "critic", 1, "error", null, 0, 1),
  rec("c4", "critic", 2, "error", null, 0, 1),
  rec("c4", "critic", 3, "error", null, 0, 0),
];
export const input: ExperimentReportInput = { experiment: "exp1", cases, methods: ["rerun", "suspicious-node", "critic"], attempts: 3, attemptsRecords: records, seed: 42 };

