/**
 * Who may start and see replays of a case (issue 7): researchers, adjudicators and admins;
 * annotators only after submitting their own annotation of the case — and never anything that
 * would reveal others' work (the same rule as blindness, lib/annotation visibility).
 */
import { canSeeOthersWork, hasRole, type CaseAccessState, type Viewer } from "../annotation";
import { blindnessGate, type Db } from "../db";

/** The rule, given the viewer's relation to the case (e.g. from getCaseAnnotationsFor); it includes the blindness gate's `references`. */
export function canReplay(viewer: Viewer, access: CaseAccessState): boolean {
  if (!canSeeOthersWork(viewer, access)) return false;
  return hasRole(viewer, "researcher", "adjudicator", "admin") || access.hasSubmittedInitial;
}

/** The rule, reading the viewer's relation to the case from the database. */
export async function mayReplay(db: Db, viewer: Viewer, caseId: string): Promise<boolean> {
  const gate = await blindnessGate(db, viewer, { caseId });
  return gate.references && canReplay(viewer, gate.access!);
}
