/**
 * Blindness, enforced in one place (annotation-protocol.md "Who does what"; issue 20 items 1–3).
 *
 * - {@link blindnessGate} is the one gate: may this viewer see the reference layer (others'
 *   work, the final, the dataset's reference labels, the evaluator's reference answer and every
 *   text derived from them) and the detector layer (rule hits, c_f, the anchor) — of one case, or
 *   of all cases at once (the agreement dashboard, releases: they hold everyone's work).
 * - {@link caseForViewer} is the one projection of a case's fields: what a viewer without the
 *   reference layer gets of a case (labels, reference answer, source file name and
 *   label-derived import notes withheld). Pages and routes take the case through it.
 *
 * The rules themselves are lib/annotation `canSeeOthersWork` / `canSeeSymptoms` (pure).
 */
import { canSeeOthersWork, canSeeSymptoms, type CaseAccessState, type Viewer } from "../annotation";
import { getCaseByBundleId } from "./cases";
import type { Db } from "./client";

/** What the viewer's relation to a case allows (assignment, submission). */
export async function caseAccess(db: Db, viewer: Viewer, caseId: string): Promise<CaseAccessState> {
  const [asg, submitted] = await Promise.all([
    db.assignment.findMany({ where: { caseId, userId: viewer.id }, select: { role: true, assisted: true } }),
    db.annotation.count({ where: { caseId, userId: viewer.id, kind: "initial", status: "submitted" } }),
  ]);
  return {
    isAssignedAnnotator: asg.some((a) => a.role === "annotator"),
    isAssignedAdjudicator: asg.some((a) => a.role === "adjudicator"),
    hasSubmittedInitial: submitted > 0,
    isAssisted: asg.some((a) => a.role === "annotator" && a.assisted),
  };
}

/** The answer of {@link blindnessGate}. */
export interface BlindnessGate {
  /**
   * May see the reference layer: others' annotations, the final, the dataset's reference labels,
   * the evaluator's reference answer, and text derived from them (label notes, file names).
   */
  references: boolean;
  /** May see detector output: the symptom layer and rule-based earliest-node warnings. */
  detector: boolean;
  /** Detector output is visible only because an admin made the viewer's assignment assisted. */
  assisted: boolean;
  /** Per case: the viewer's relation to the case. Null for the all-cases gate. */
  access: CaseAccessState | null;
  /** All-cases gate: the viewer's own annotator assignments not yet submitted (0 per case). */
  openOwn: number;
}

/**
 * The blindness gate. Per case (`{caseId}`): lib/annotation canSeeOthersWork (references) and
 * canSeeSymptoms (detector) — an annotator before submitting sees neither, unless an admin made
 * the assignment assisted (detector only). For all cases (`{allCases: true}`, views that pool
 * everyone's work: agreement, releases): closed while the viewer has any own annotator assignment
 * not yet submitted (`openOwn` says how many).
 * @returns the gate; never throws for an unknown case (a viewer with no relation to it)
 */
export async function blindnessGate(db: Db, viewer: Viewer, o: { caseId: string } | { allCases: true }): Promise<BlindnessGate> {
  if ("allCases" in o) {
    const openOwn = await db.assignment.count({ where: { userId: viewer.id, role: "annotator", status: { not: "submitted" } } });
    return { references: openOwn === 0, detector: openOwn === 0, assisted: false, access: null, openOwn };
  }
  const access = await caseAccess(db, viewer, o.caseId);
  const references = canSeeOthersWork(viewer, access);
  const detector = canSeeSymptoms(viewer, access);
  return { references, detector, assisted: detector && !references, access, openOwn: 0 };
}

/** May the viewer see others' work, the final, reference answers and labels of this case? (the gate's `references`) */
export async function mayViewerSeeOthers(db: Db, viewer: Viewer, caseId: string): Promise<boolean> {
  return (await blindnessGate(db, viewer, { caseId })).references;
}

/** May the viewer see the symptom layer (detector output) of this case? (the gate's `detector`) */
export async function mayViewerSeeSymptoms(db: Db, viewer: Viewer, caseId: string): Promise<boolean> {
  return (await blindnessGate(db, viewer, { caseId })).detector;
}

// ------------------------------------------------------------------ the projection of a case

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/** The reference labels of a case as far as the projection reads them (lib/db rows or bundle labels). */
export interface LabelLike {
  nodeId?: string | null;
  agent?: string | null;
  reason?: string | null;
  failureModes?: Array<{ mode?: string | null }> | null;
  extra?: Obj | null;
}

/** Words that make an import note about the dataset's labels (Who&When mistake_*, corrections, annotations). */
const LABEL_WORDS = /mistake_|mistake\b|annotat|correction|reference label|\blabel(s|led)?\b|ground.?truth/i;

/** Every string a label carries (agent, node, reason, failure modes, extra values) of at least 3 characters. */
export function labelStrings(labels: ReadonlyArray<LabelLike>): string[] {
  const out = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === "string" && v.trim().length >= 3) out.add(v.trim());
    else if (Array.isArray(v)) v.forEach(add);
    else if (isObj(v)) Object.values(v).forEach(add);
  };
  for (const l of labels) {
    add(l.nodeId);
    add(l.agent);
    add(l.reason);
    for (const m of l.failureModes ?? []) add(m.mode);
    add(l.extra ?? null);
  }
  return [...out];
}

/**
 * Is this import note derived from the dataset's reference labels? Yes when it speaks of them
 * (Who&When `mistake_agent` / `mistake_step`, an annotation inconsistency, a human correction,
 * labels) or quotes one of the case's label values (agent, node, reason, failure mode, ...).
 * E.g. `mistake_agent "Orchestrator" matched role "Orchestrator (thought)" of history[5] by
 * prefix` (it names the labelled step). Errs on the side of hiding.
 */
export function isReferenceDerivedNote(note: string, labels: ReadonlyArray<LabelLike>): boolean {
  if (LABEL_WORDS.test(note)) return true;
  return labelStrings(labels).some((s) => note.includes(s));
}

/** Case fields the projection withholds from a viewer without the reference layer (listed for tests and the UI). */
export const REFERENCE_FIELDS = [
  "headerJson (raw; the projected header replaces it)",
  "referenceLabels",
  "sourceFile",
  "header.referenceLabels",
  "header.task.reference",
  "header.source.file",
  "header.source.notes (label-derived ones)",
  "header.sourceExtra",
] as const;

/** What {@link caseForViewer} hid, for the page to say so. */
export interface Withheld {
  /** The reference layer was withheld (the viewer is blind on this case). */
  blind: boolean;
  /** Import notes withheld because they derive from the labels. */
  notes: number;
}

/**
 * The one projection of a case's fields for a viewer: with `gate.references` the case as stored;
 * without, a copy with the reference layer removed — `referenceLabels` emptied, `sourceFile` and
 * `header.source.file` removed (a file name can encode the answer: gold-c1 … gold-c4),
 * `header.referenceLabels`, `header.task.reference` (the evaluator's answer) and
 * `header.sourceExtra` (unmapped dataset keys) removed, and the import notes that derive from the
 * labels ({@link isReferenceDerivedNote}) dropped; the raw `headerJson` is dropped (the parsed,
 * projected `header` replaces it). Never mutates its input.
 * @param c a case as lib/db getCaseByBundleId returns it (any object with these optional fields)
 */
export function caseForViewer<C extends { referenceLabels?: ReadonlyArray<LabelLike>; sourceFile?: string | null; header?: Obj; headerJson?: string }>(c: C, gate: Pick<BlindnessGate, "references">): C & { withheld: Withheld } {
  if (gate.references) return { ...c, withheld: { blind: false, notes: 0 } };
  const header = isObj(c.header) ? c.header : {};
  const labels = [...(c.referenceLabels ?? []), ...((Array.isArray(header.referenceLabels) ? header.referenceLabels : []) as LabelLike[])];
  const { referenceLabels: _rl, sourceExtra: _se, ...restHeader } = header;
  const task = isObj(header.task) ? (({ reference: _ref, ...t }) => t)(header.task as Obj) : header.task;
  let notesHidden = 0;
  let source = header.source;
  if (isObj(source)) {
    const { file: _file, notes, ...s } = source;
    const kept = Array.isArray(notes) ? notes.filter((n) => !isReferenceDerivedNote(String(n), labels)) : undefined;
    notesHidden = Array.isArray(notes) ? notes.length - (kept?.length ?? 0) : 0;
    source = { ...s, ...(kept ? { notes: kept } : {}) };
  }
  const { headerJson: _raw, ...rest } = c as C & { headerJson?: string };
  const out = {
    ...rest,
    ...("referenceLabels" in c ? { referenceLabels: [] } : {}),
    ...("sourceFile" in c ? { sourceFile: null } : {}),
    header: { ...restHeader, ...(task !== undefined ? { task } : {}), ...(source !== undefined ? { source } : {}) },
    withheld: { blind: true, notes: notesHidden },
  };
  return out as C & { withheld: Withheld };
}

/**
 * A case by bundle id as this viewer may see it: {@link caseForViewer} of lib/db
 * getCaseByBundleId under the viewer's {@link blindnessGate}, with the gate.
 * @returns null when no such case, or a derived case the viewer may not see ({@link isDerivedHiddenFrom})
 */
export async function getCaseForViewer(db: Db, viewer: Viewer, o: { bundleId: string }) {
  const c = await getCaseByBundleId(db, o);
  if (!c || (await isDerivedHiddenFrom(db, viewer, c.id))) return null;
  const gate = await blindnessGate(db, viewer, { caseId: c.id });
  return { case: caseForViewer(c, gate), gate };
}

// ------------------------------------------------------------------ cases derived from another

/**
 * Cases derived from another case: a replay result (ReplayRun.resultCaseId, or a bundle with
 * `parent.bundleId`), an experiment attempt's recording (ExperimentAttempt.bundleId) — their
 * traces carry guidance written from the source's labels or final annotation ("Annotated failure
 * category: C1 … target agent_action_0001"). Each maps to its root source (followed up to 20
 * levels), so one rule covers replays of replays.
 * @returns derived case id → root source case id
 */
export async function derivedCaseRoots(db: Db): Promise<Map<string, string>> {
  const [withParent, attempts, runs] = await Promise.all([
    db.case.findMany({ where: { parentBundleId: { not: null } }, select: { id: true, parentBundleId: true } }),
    db.experimentAttempt.findMany({ where: { bundleId: { not: null } }, select: { bundleId: true, experimentCase: { select: { caseId: true } } } }),
    db.replayRun.findMany({ where: { resultCaseId: { not: null } }, select: { resultCaseId: true, sourceCaseId: true } }),
  ]);
  const parentBundles = [...new Set([...withParent.map((c) => c.parentBundleId as string), ...attempts.map((a) => a.bundleId as string)])];
  const idOf = new Map((await db.case.findMany({ where: { bundleId: { in: parentBundles } }, select: { id: true, bundleId: true } })).map((c) => [c.bundleId, c.id]));
  const parent = new Map<string, string>();
  for (const c of withParent) {
    const p = idOf.get(c.parentBundleId as string);
    if (p && p !== c.id) parent.set(c.id, p);
  }
  for (const a of attempts) {
    const child = idOf.get(a.bundleId as string);
    const src = a.experimentCase.caseId;
    if (child && src && child !== src && !parent.has(child)) parent.set(child, src);
  }
  for (const r of runs) if (r.resultCaseId && r.resultCaseId !== r.sourceCaseId && !parent.has(r.resultCaseId)) parent.set(r.resultCaseId, r.sourceCaseId);
  const roots = new Map<string, string>();
  for (const id of parent.keys()) {
    let at = id;
    for (let i = 0; i < 20 && parent.has(at); i++) at = parent.get(at)!;
    roots.set(id, at);
  }
  return roots;
}

/**
 * The derived cases (see {@link derivedCaseRoots}) whose trace this viewer may not see: those
 * whose root source the viewer is blind on (blindnessGate `references` false there — e.g. a
 * plain annotator on every case they have not submitted). Researchers, adjudicators and admins
 * lose only the derivatives of cases they are assigned to annotate and have not submitted.
 * @returns case ids to leave out of lists and to refuse (404) on every case route
 */
export async function hiddenDerivedCaseIds(db: Db, viewer: Viewer): Promise<Set<string>> {
  const roots = await derivedCaseRoots(db);
  if (!roots.size) return new Set();
  const privileged = viewer.roles.some((r) => r === "admin" || r === "researcher" || r === "adjudicator");
  const [own, submitted] = await Promise.all([
    db.assignment.findMany({ where: { userId: viewer.id, role: "annotator" }, select: { caseId: true } }),
    db.annotation.findMany({ where: { userId: viewer.id, kind: "initial", status: "submitted" }, select: { caseId: true } }),
  ]);
  const done = new Set(submitted.map((a) => a.caseId));
  const blindOn = (root: string) => (done.has(root) ? false : privileged ? own.some((a) => a.caseId === root) : true);
  return new Set([...roots].filter(([, root]) => blindOn(root)).map(([id]) => id));
}

/**
 * The database id of a case by bundle id, as a case route may serve it to this viewer: null when
 * there is no such case or when it is a derived case the viewer may not see
 * ({@link hiddenDerivedCaseIds}; answered like an unknown case, so its existence is not told).
 */
export async function findCaseIdFor(db: Db, viewer: Viewer, o: { bundleId: string }): Promise<string | null> {
  const c = await db.case.findUnique({ where: { bundleId: o.bundleId }, select: { id: true } });
  if (!c) return null;
  return (await isDerivedHiddenFrom(db, viewer, c.id)) ? null : c.id;
}

/** Is this case a derived case the viewer may not see? ({@link hiddenDerivedCaseIds} for one case.) */
export async function isDerivedHiddenFrom(db: Db, viewer: Viewer, caseId: string): Promise<boolean> {
  const c = await db.case.findUnique({ where: { id: caseId }, select: { bundleId: true, parentBundleId: true } });
  if (!c) return false;
  const [attempt, run] = await Promise.all([
    db.experimentAttempt.findFirst({ where: { bundleId: c.bundleId }, select: { id: true } }),
    db.replayRun.findFirst({ where: { resultCaseId: caseId }, select: { id: true } }),
  ]);
  if (!c.parentBundleId && !attempt && !run) return false;
  return (await hiddenDerivedCaseIds(db, viewer)).has(caseId);
}

// ------------------------------------------------------------------ views that pool every case

/** Views that pool reference labels and detector output across cases, with how a refusal names them. */
export const POOLED_VIEWS = {
  agreement: "Agreement figures",
  releases: "Releases",
  experiments: "Experiments",
  "repair-searches": "Repair searches",
  attribution: "Attribution runs",
} as const;
export type PooledView = keyof typeof POOLED_VIEWS;

/** The answer of {@link pooledViewGate}. */
export interface PooledViewGate {
  /** The view may be shown (and its jobs started) for this viewer. */
  open: boolean;
  /** The viewer's own annotator assignments not yet submitted (0 when open). */
  openOwn: number;
  /** Why not, naming the view and the number of open assignments; null when open. */
  refusal: string | null;
}

/**
 * The all-cases {@link blindnessGate} for a view that pools labels and detector output across
 * cases — experiments (attempts carry guidance written from the reference label, the primary
 * category, the anchor), repair searches, attribution runs (scored against every label), like the
 * agreement dashboard and releases: closed while the viewer has any own annotator assignment not
 * yet submitted, for every role (a researcher who also annotates included). Pages show `refusal`;
 * API routes answer 403 `{error: refusal, openOwn}` (lib/api `refusePooledView`).
 */
export async function pooledViewGate(db: Db, viewer: Viewer, view: PooledView): Promise<PooledViewGate> {
  const g = await blindnessGate(db, viewer, { allCases: true });
  if (g.references) return { open: true, openOwn: 0, refusal: null };
  return { open: false, openOwn: g.openOwn, refusal: `${POOLED_VIEWS[view]} are hidden while you have unsubmitted annotations of your own (${g.openOwn} open annotator assignment${g.openOwn === 1 ? "" : "s"})` };
}

// ------------------------------------------------------------------ case lists

/**
 * The per-case gate's `references` for many cases at once (a list page): two queries for the
 * whole batch, the same rule as {@link blindnessGate} per case (lib/annotation canSeeOthersWork).
 * @returns the ids of `caseIds` whose reference layer the viewer may NOT see
 */
export async function blindCaseIds(db: Db, viewer: Viewer, caseIds: readonly string[]): Promise<Set<string>> {
  if (!caseIds.length) return new Set();
  const ids = [...new Set(caseIds)];
  const [asg, submitted] = await Promise.all([
    db.assignment.findMany({ where: { userId: viewer.id, caseId: { in: ids } }, select: { caseId: true, role: true, assisted: true } }),
    db.annotation.findMany({ where: { userId: viewer.id, caseId: { in: ids }, kind: "initial", status: "submitted" }, select: { caseId: true } }),
  ]);
  const done = new Set(submitted.map((a) => a.caseId));
  const out = new Set<string>();
  for (const id of ids) {
    const mine = asg.filter((a) => a.caseId === id);
    const access: CaseAccessState = {
      isAssignedAnnotator: mine.some((a) => a.role === "annotator"),
      isAssignedAdjudicator: mine.some((a) => a.role === "adjudicator"),
      hasSubmittedInitial: done.has(id),
      isAssisted: mine.some((a) => a.role === "annotator" && a.assisted),
    };
    if (!canSeeOthersWork(viewer, access)) out.add(id);
  }
  return out;
}

/**
 * The rows of a case list as this viewer may see them: on a row the viewer is blind on
 * ({@link blindCaseIds}) the reference-label count is 0, `finalizedAt` null and `labelsWithheld`
 * true (the page says so instead of the count). One query batch for the page.
 */
export async function caseRowsForViewer<R extends { id: string; _count: { referenceLabels: number }; finalizedAt?: Date | null }>(db: Db, viewer: Viewer, rows: readonly R[]): Promise<Array<R & { labelsWithheld: boolean }>> {
  const blind = await blindCaseIds(db, viewer, rows.map((r) => r.id));
  return rows.map((r) => (blind.has(r.id) ? { ...r, _count: { ...r._count, referenceLabels: 0 }, ...("finalizedAt" in r ? { finalizedAt: null } : {}), labelsWithheld: true } : { ...r, labelsWithheld: false }));
}
