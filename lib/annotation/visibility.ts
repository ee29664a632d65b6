/**
 * Blindness (annotation-protocol.md, "Who does what"; enforced by the server): until an
 * annotator has submitted their own initial annotation of a case, they may not see other
 * annotators' work, the final annotation, the evaluator's reference answer, the dataset's
 * reference labels, or suspicious-node hints for that case.
 */
import type { Role } from "./protocol";

export interface Viewer {
  id: string;
  roles: Role[];
}

export interface CaseAccessState {
  /** The viewer is assigned to annotate this case (role annotator). */
  isAssignedAnnotator: boolean;
  /** The viewer has submitted their initial annotation of this case. */
  hasSubmittedInitial: boolean;
  /** The viewer is assigned to adjudicate this case. */
  isAssignedAdjudicator: boolean;
  /** The viewer's annotator assignment of this case is assisted (sees the symptom layer before submitting). */
  isAssisted?: boolean;
}

/**
 * May the viewer see other people's annotations, the final, reference answers and labels of
 * this case? No for an annotator who has not submitted it; no for a plain annotator who is not
 * assigned (they may be assigned later); yes for researchers, admins and adjudicators who are
 * not waiting to annotate it themselves.
 */
export function canSeeOthersWork(v: Viewer, s: CaseAccessState): boolean {
  if (s.hasSubmittedInitial) return true;
  if (s.isAssignedAnnotator) return false;
  return v.roles.some((r) => r === "admin" || r === "researcher" || r === "adjudicator");
}

/**
 * May the viewer see the symptom layer (detector output: which rules fired, c_f, the anchor)?
 * A detector's guess is a label (issue 12): whoever may see others' work, plus an assigned
 * annotator whose assignment an admin made assisted, before submitting too.
 */
export function canSeeSymptoms(v: Viewer, s: CaseAccessState): boolean {
  return canSeeOthersWork(v, s) || (s.isAssignedAnnotator && !!s.isAssisted);
}

export const hasRole = (v: Viewer | null | undefined, ...roles: Role[]) => !!v && v.roles.some((r) => roles.includes(r));
