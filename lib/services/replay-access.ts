/**
 * Who may start and see replays of a case (issue 7): researchers, adjudicators and admins;
 * annotators only after submitting their own annotation of the case — and never anything that
 * would reveal others' work (the same rule as blindness, lib/annotation visibility).
 */
import { hasRole, type Viewer } from "../annotation";
import { caseAccess, type Db } from "../db";
import { canSeeOthersWork } from "../annotation";

export async function mayReplay(db: Db, viewer: Viewer, caseId: string): Promise<boolean> {
  const access = await caseAccess(db, viewer, caseId);
  if (!canSeeOthersWork(viewer, access)) return false;
  return hasRole(viewer, "researcher", "adjudicator", "admin") || access.hasSubmittedInitial;
}
