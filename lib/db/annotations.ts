/**
 * The annotation workflow's data (annotation-protocol.md; seeds/000 §4.3, Appendix B):
 * assignment and queues, drafts with optimistic versions, submission, adjudication (first
 * finalizer wins), reopening, the append-only audit trail, and blindness enforced here: every
 * read that can return someone else's work takes the viewer and applies the blindness gate
 * (./visibility.ts `blindnessGate`).
 */
import {
  emptyAnnotationFields,
  formatCategories,
  hasRole,
  parseCategories,
  relateFinal,
  validateDraft,
  validateForSubmit,
  type AnnotationFields,
  type FieldError,
  type GraphLookup,
  type StrictTuple,
  type Viewer,
} from "../annotation";
import { randomUUID } from "node:crypto";
import type { Db } from "./client";
import { blindnessGate, caseAccess, mayViewerSeeOthers } from "./visibility";

export type AnnotationKind = "initial" | "final";

/** A refused request: `status` is the HTTP status a route should answer with. */
export class WorkflowError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    readonly current?: unknown,
  ) {
    super(message);
    this.name = "WorkflowError";
  }
}

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

async function audit(
  tx: Tx | Db,
  e: { actorId: string | null; action: string; entityType: string; entityId: string; caseId?: string | null; data?: unknown },
) {
  await tx.auditEvent.create({
    data: { actorId: e.actorId, action: e.action, entityType: e.entityType, entityId: e.entityId, caseId: e.caseId ?? null, dataJson: JSON.stringify(e.data ?? {}) },
  });
}

/**
 * Graph lookups of a case for validation: node types, and the content of the nodes that
 * evidence quotes name (loaded up front; other contents read as undefined).
 */
export async function graphLookup(db: Db, caseId: string, contentOf: string[] = []): Promise<GraphLookup> {
  const [nodes, withContent] = await Promise.all([
    db.node.findMany({ where: { caseId }, select: { nodeId: true, type: true } }),
    contentOf.length
      ? db.node.findMany({ where: { caseId, nodeId: { in: [...new Set(contentOf)] } }, select: { nodeId: true, contentJson: true } })
      : Promise.resolve([]),
  ]);
  const types = new Map(nodes.map((n) => [n.nodeId, n.type]));
  const contents = new Map(withContent.map((n) => [n.nodeId, JSON.parse(n.contentJson) as unknown]));
  return { nodeType: (id) => types.get(id), nodeContent: (id) => contents.get(id) };
}

// ------------------------------------------------------------------ assignment

/**
 * Assign cases to annotators and optionally an adjudicator. Idempotent: existing assignments count
 * and are never duplicated or removed.
 *
 * - `annotatorIds` given (a blind-study design): every chosen annotator gets every case, nobody
 *   else is added. `perCase`, when given, must equal the number chosen (no silent trimming). Each
 *   id must name an account with the annotator role, and the adjudicator cannot be among them.
 * - no `annotatorIds`: each case is filled up to `perCase` (default 3) annotators drawn from all
 *   annotators, least loaded first (ties by id).
 * - `assisted: true` (assisted annotation, issue 12): the new annotator assignments, and the
 *   existing ones of the chosen annotators on these cases, let the annotator see the symptom
 *   layer before submitting; recorded on each annotation at submit.
 * @returns per case, who was newly assigned (ids)
 * @throws WorkflowError 403 (not an admin), 404 (a case id that names no case; the message names
 *   it), 400 (perCase out of 1..10 or not the number chosen, an
 *   id that is not an annotator, the adjudicator among the annotators, too few annotators) —
 *   checked before anything is written
 */
export async function assignCases(
  db: Db,
  actor: Viewer,
  o: { caseIds: string[]; perCase?: number; annotatorIds?: string[]; adjudicatorId?: string | null; assisted?: boolean },
): Promise<Array<{ caseId: string; annotators: string[]; adjudicator: string | null }>> {
  if (!hasRole(actor, "admin")) throw new WorkflowError(403, "only an admin can assign cases");
  const asked = [...new Set(o.caseIds)];
  // a case is named by its database id or its bundle id (the id deep links and the case routes use)
  const rows = await db.case.findMany({ where: { OR: [{ id: { in: asked } }, { bundleId: { in: asked } }] }, select: { id: true, bundleId: true, finalAnnotationId: true } });
  const idOf = new Map<string, string>();
  for (const c of rows) idOf.set(c.bundleId, c.id);
  for (const c of rows) idOf.set(c.id, c.id);
  const unknown = asked.filter((id) => !idOf.has(id));
  if (unknown.length) {
    const named = unknown.map((id) => JSON.stringify(id)).join(", ");
    throw new WorkflowError(404, `no case with id ${named}: nothing was assigned`, [{ field: "caseIds", message: `unknown case id ${named}` }]);
  }
  const caseIds = [...new Set(asked.map((id) => idOf.get(id)!))];
  const chosen = o.annotatorIds?.length ? [...new Set(o.annotatorIds)] : null;
  const perCase = o.perCase ?? chosen?.length ?? 3;
  if (perCase < 1 || perCase > 10) throw new WorkflowError(400, "perCase must be between 1 and 10", [{ field: "perCase", message: "between 1 and 10" }]);
  if (chosen) {
    if (perCase !== chosen.length) {
      throw new WorkflowError(400, `${chosen.length} annotators chosen but ${perCase} per case: every chosen annotator gets every case, so choose ${perCase} or set annotators per case to ${chosen.length}`, [{ field: "perCase", message: `must equal the ${chosen.length} annotators chosen` }]);
    }
    const found = await db.user.findMany({ where: { id: { in: chosen } }, select: { id: true, roles: true } });
    const annotators = new Set(found.filter((u) => u.roles.split(",").includes("annotator")).map((u) => u.id));
    const bad = chosen.filter((id) => !annotators.has(id));
    if (bad.length) throw new WorkflowError(400, `not an annotator account: ${bad.join(", ")}`, [{ field: "annotatorIds", message: `${bad.join(", ")}: not an annotator` }]);
    if (o.adjudicatorId && chosen.includes(o.adjudicatorId)) {
      throw new WorkflowError(400, "the adjudicator cannot also annotate the same case: remove them from the chosen annotators", [{ field: "adjudicatorId", message: "is among the annotators" }]);
    }
  }
  const pool =
    chosen ??
    (await db.user.findMany({ where: { roles: { contains: "annotator" } }, select: { id: true, roles: true } }))
      .filter((u) => u.roles.split(",").includes("annotator"))
      .map((u) => u.id);
  if (!chosen && pool.length < perCase) throw new WorkflowError(400, `need ${perCase} annotators, only ${pool.length} available`, [{ field: "annotatorIds", message: `need at least ${perCase}` }]);
  const loads = new Map<string, number>(pool.map((id) => [id, 0]));
  if (!chosen) {
    for (const g of await db.assignment.groupBy({ by: ["userId"], where: { role: "annotator", userId: { in: pool } }, _count: { _all: true } })) {
      loads.set(g.userId, g._count._all);
    }
  }
  if (chosen && o.adjudicatorId) {
    // A chosen annotator already adjudicating one of these cases would break blindness: refuse up front.
    const clash = await db.assignment.findFirst({ where: { caseId: { in: caseIds }, role: "adjudicator", userId: { in: chosen } }, select: { caseId: true, userId: true } });
    if (clash) throw new WorkflowError(400, `annotator ${clash.userId} already adjudicates case ${clash.caseId}`);
  }
  const out: Array<{ caseId: string; annotators: string[]; adjudicator: string | null }> = [];
  // An adjudicated case keeps the initial annotations it was finalized from: another annotator's
  // would silently take it out of the agreement figures (they need exactly three). Checked for
  // every case before anything is assigned.
  const finalized = rows.filter((c) => c.finalAnnotationId !== null && caseIds.includes(c.id));
  if (finalized.length) {
    const held = await db.assignment.findMany({ where: { caseId: { in: finalized.map((c) => c.id) }, role: "annotator" }, select: { caseId: true, userId: true } });
    for (const c of finalized) {
      const have = new Set(held.filter((a) => a.caseId === c.id).map((a) => a.userId));
      const adds = chosen ? chosen.filter((id) => !have.has(id)).length : Math.max(0, perCase - have.size);
      if (adds > 0) {
        throw new WorkflowError(409, `case ${c.bundleId} is already adjudicated: another annotator would change the annotations it was finalized from and take it out of the agreement figures (they need exactly three); nothing was assigned`, [{ field: "caseIds", message: `${c.bundleId} is adjudicated` }]);
      }
    }
  }
  for (const caseId of caseIds) {
    const res = await db.$transaction(async (tx) => {
      const existing = await tx.assignment.findMany({ where: { caseId }, select: { userId: true, role: true } });
      const have = new Set(existing.filter((a) => a.role === "annotator").map((a) => a.userId));
      const added: string[] = [];

      if (chosen) {
        for (const id of chosen) {
          if (have.has(id)) {
            if (o.assisted) await tx.assignment.updateMany({ where: { caseId, userId: id, role: "annotator" }, data: { assisted: true } });
            continue;
          }
          if (existing.some((a) => a.role === "adjudicator" && a.userId === id)) throw new WorkflowError(400, `annotator ${id} already adjudicates case ${caseId}`);
          await tx.assignment.create({ data: { caseId, userId: id, role: "annotator", assisted: o.assisted ?? false } });
          added.push(id);
        }
      } else {
        const candidates = [...pool].filter((id) => !have.has(id) && id !== o.adjudicatorId).sort((a, b) => loads.get(a)! - loads.get(b)! || a.localeCompare(b));
        for (const id of candidates) {
          if (have.size + added.length >= perCase) break;
          await tx.assignment.create({ data: { caseId, userId: id, role: "annotator", assisted: o.assisted ?? false } });
          loads.set(id, (loads.get(id) ?? 0) + 1);
          added.push(id);
        }
      }
      let adj: string | null = null;
      if (o.adjudicatorId && !existing.some((a) => a.role === "adjudicator" && a.userId === o.adjudicatorId)) {
        if (have.has(o.adjudicatorId)) throw new WorkflowError(400, "the adjudicator cannot also annotate the same case");
        await tx.assignment.create({ data: { caseId, userId: o.adjudicatorId, role: "adjudicator" } });
        adj = o.adjudicatorId;
      }
      if (added.length || adj) await audit(tx, { actorId: actor.id, action: "assignment.create", entityType: "case", entityId: caseId, caseId, data: { annotators: added, adjudicator: adj, ...(o.assisted ? { assisted: true } : {}) } });
      return { caseId, annotators: added, adjudicator: adj };
    });
    out.push(res);
  }
  return out;
}

/** The viewer's queue: their assignments with case summary and progress (to do / in progress / done). */
export async function listQueue(db: Db, viewer: Viewer, o: { role?: "annotator" | "adjudicator" } = {}) {
  const rows = await db.assignment.findMany({
    where: { userId: viewer.id, ...(o.role ? { role: o.role } : {}) },
    include: {
      case: {
        select: {
          id: true,
          bundleId: true,
          taskPrompt: true,
          benchmark: true,
          mas: true,
          sourceDataset: true,
          nodeCount: true,
          finalAnnotationId: true,
          annotations: { where: { kind: "initial", status: "submitted" }, select: { id: true } },
        },
      },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((a) => {
    const submittedInitials = a.case.annotations.length;
    const status =
      a.role === "annotator"
        ? a.status === "submitted"
          ? "done"
          : a.status === "in_progress"
            ? "in_progress"
            : "todo"
        : a.case.finalAnnotationId
          ? "done"
          : submittedInitials >= 3
            ? a.status === "in_progress"
              ? "in_progress"
              : "todo"
            : "waiting";
    return {
      assignmentId: a.id,
      role: a.role as "annotator" | "adjudicator",
      status: status as "todo" | "in_progress" | "done" | "waiting",
      caseId: a.case.id,
      bundleId: a.case.bundleId,
      taskPrompt: a.case.taskPrompt,
      benchmark: a.case.benchmark,
      mas: a.case.mas,
      sourceDataset: a.case.sourceDataset,
      nodeCount: a.case.nodeCount,
      // only a count, never whose: adjudicators need to know when three are in
      submittedInitials: a.role === "adjudicator" ? submittedInitials : undefined,
    };
  });
}

// ------------------------------------------------------------------ reading annotations

export interface AnnotationView extends AnnotationFields {
  id: string;
  caseId: string;
  kind: AnnotationKind;
  status: "draft" | "submitted";
  version: number;
  author: { id: string; name: string; email: string };
  submittedAt: string | null;
  updatedAt: string;
  relation: unknown;
  /** Set when an admin reopened it: when and why (shown to the author). */
  reopened: { at: string; reason: string | null } | null;
}

const annotationInclude = { evidence: { orderBy: { idx: "asc" as const } }, user: { select: { id: true, name: true, email: true } } };

type AnnotationRow = Awaited<ReturnType<Db["annotation"]["findMany"]>>[number] & {
  evidence: Array<{ nodeId: string; quote: string }>;
  user: { id: string; name: string; email: string };
};

function toView(a: AnnotationRow): AnnotationView {
  return {
    id: a.id,
    caseId: a.caseId,
    kind: a.kind as AnnotationKind,
    status: a.status as "draft" | "submitted",
    version: a.version,
    author: a.user,
    categories: parseCategories(a.categories),
    primary: (a.primary as AnnotationFields["primary"]) ?? null,
    nodeId: a.nodeId,
    nodeType: a.nodeType,
    confidence: (a.confidence as AnnotationFields["confidence"]) ?? null,
    rationale: a.rationale,
    evidence: a.evidence.map((e) => ({ nodeId: e.nodeId, quote: e.quote })),
    correction: a.correction ?? "",
    submittedAt: a.submittedAt?.toISOString() ?? null,
    updatedAt: a.updatedAt.toISOString(),
    relation: a.relationJson ? JSON.parse(a.relationJson) : null,
    reopened: a.reopenedAt ? { at: a.reopenedAt.toISOString(), reason: null } : null,
  };
}

/** The viewer's own annotation of a case (any status), or null. */
export async function getOwnAnnotation(db: Db, viewer: Viewer, o: { caseId: string; kind: AnnotationKind }): Promise<AnnotationView | null> {
  const a = await db.annotation.findUnique({ where: { caseId_userId_kind: { caseId: o.caseId, userId: viewer.id, kind: o.kind } }, include: annotationInclude });
  if (!a) return null;
  const v = toView(a as AnnotationRow);
  if (v.reopened) {
    const ev = await db.auditEvent.findFirst({ where: { entityId: a.id, action: "annotation.reopen" }, orderBy: { at: "desc" } });
    const reason = ev ? (JSON.parse(ev.dataJson) as { reason?: unknown }).reason : null;
    v.reopened.reason = typeof reason === "string" ? reason : null;
  }
  return v;
}

/**
 * Everything about a case's annotations this viewer may see: their own initial; and — only when
 * the blindness gate's `references` — the other submitted initials and the final. Drafts of others are never
 * shown. `blind` says whether others' work was withheld.
 */
export async function getCaseAnnotationsFor(db: Db, viewer: Viewer, o: { caseId: string }) {
  const own = await getOwnAnnotation(db, viewer, { caseId: o.caseId, kind: "initial" });
  const gate = await blindnessGate(db, viewer, { caseId: o.caseId });
  const access = gate.access!;
  if (!gate.references) return { blind: true as const, own, initials: [] as AnnotationView[], final: null, finalizedAt: null, access };
  const [rows, c] = await Promise.all([
    db.annotation.findMany({ where: { caseId: o.caseId, status: "submitted" }, include: annotationInclude, orderBy: [{ submittedAt: "asc" }, { id: "asc" }] }),
    db.case.findUnique({ where: { id: o.caseId }, select: { finalAnnotationId: true, finalizedAt: true } }),
  ]);
  const views = (rows as AnnotationRow[]).map(toView);
  return {
    blind: false as const,
    own,
    initials: views.filter((v) => v.kind === "initial"),
    final: views.find((v) => v.id === c?.finalAnnotationId) ?? null,
    finalizedAt: c?.finalizedAt?.toISOString() ?? null,
    access,
  };
}

// ------------------------------------------------------------------ writing

function fieldsToRow(f: AnnotationFields) {
  return {
    categories: formatCategories(f.categories),
    primary: f.primary,
    nodeId: f.nodeId,
    nodeType: f.nodeType,
    confidence: f.confidence,
    rationale: f.rationale,
    correction: f.correction?.trim() ? f.correction : null,
  };
}

async function assertMayWrite(db: Db, viewer: Viewer, caseId: string, kind: AnnotationKind) {
  const c = await db.case.findUnique({ where: { id: caseId }, select: { id: true, finalAnnotationId: true } });
  if (!c) throw new WorkflowError(404, "no such case");
  const access = await caseAccess(db, viewer, caseId);
  if (kind === "initial") {
    if (!access.isAssignedAnnotator) throw new WorkflowError(403, "you are not assigned to annotate this case");
  } else {
    if (!hasRole(viewer, "adjudicator")) throw new WorkflowError(403, "only an adjudicator can write the final annotation");
    if (access.isAssignedAnnotator) throw new WorkflowError(403, "you annotated this case: another adjudicator must adjudicate it");
    const submitted = await db.annotation.count({ where: { caseId, kind: "initial", status: "submitted" } });
    if (submitted < 3) throw new WorkflowError(409, `adjudication opens once three initial annotations are submitted (${submitted} so far)`);
    if (c.finalAnnotationId) throw new WorkflowError(409, "this case is already finalized");
  }
}

/**
 * Save the viewer's draft (created on first save). Optimistic concurrency: `version` must be the
 * version the client read (0 for a new draft); otherwise WorkflowError 409 with the current copy,
 * and nothing is overwritten. Submitted annotations are locked for their author.
 */
export async function saveDraft(db: Db, viewer: Viewer, o: { caseId: string; kind: AnnotationKind; version: number; fields: AnnotationFields }): Promise<AnnotationView> {
  await assertMayWrite(db, viewer, o.caseId, o.kind);
  const g = await graphLookup(db, o.caseId);
  const errors = validateDraft(o.fields, g);
  if (errors.length) throw new WorkflowError(400, "the draft has invalid fields", errors);
  const key = { caseId_userId_kind: { caseId: o.caseId, userId: viewer.id, kind: o.kind } };
  const result = await db.$transaction(async (tx) => {
    const cur = await tx.annotation.findUnique({ where: key });
    if (cur?.status === "submitted") throw new WorkflowError(409, "this annotation is submitted and locked; an admin can reopen it");
    if ((cur?.version ?? 0) !== o.version) return { conflict: true as const, id: cur?.id ?? null };
    let id: string;
    if (!cur) {
      const a = await tx.annotation.create({ data: { caseId: o.caseId, userId: viewer.id, kind: o.kind, ...fieldsToRow(o.fields), version: 1 } });
      id = a.id;
      await audit(tx, { actorId: viewer.id, action: "annotation.create", entityType: "annotation", entityId: id, caseId: o.caseId, data: { kind: o.kind, fields: o.fields } });
    } else {
      const n = await tx.annotation.updateMany({ where: { id: cur.id, version: o.version, status: "draft" }, data: { ...fieldsToRow(o.fields), version: { increment: 1 } } });
      if (n.count === 0) return { conflict: true as const, id: cur.id };
      id = cur.id;
      await audit(tx, { actorId: viewer.id, action: "annotation.update", entityType: "annotation", entityId: id, caseId: o.caseId, data: { kind: o.kind, fields: o.fields, fromVersion: o.version } });
    }
    await tx.evidence.deleteMany({ where: { annotationId: id } });
    if (o.fields.evidence.length) await tx.evidence.createMany({ data: o.fields.evidence.map((e, idx) => ({ annotationId: id, idx, nodeId: e.nodeId, quote: e.quote })) });
    if (o.kind === "initial") await tx.assignment.updateMany({ where: { caseId: o.caseId, userId: viewer.id, role: "annotator", status: "assigned" }, data: { status: "in_progress" } });
    else await tx.assignment.updateMany({ where: { caseId: o.caseId, userId: viewer.id, role: "adjudicator", status: "assigned" }, data: { status: "in_progress" } });
    return { conflict: false as const, id };
  });
  const view = await getOwnAnnotation(db, viewer, { caseId: o.caseId, kind: o.kind });
  if (result.conflict) {
    await audit(db, { actorId: viewer.id, action: "annotation.save_conflict", entityType: "annotation", entityId: result.id ?? o.caseId, caseId: o.caseId, data: { kind: o.kind, staleVersion: o.version, attempted: o.fields } });
    throw new WorkflowError(409, "this annotation was changed elsewhere since you opened it (another tab?); your edits are kept in the form: reload to see the saved version", [], view);
  }
  return view!;
}

/**
 * Submit the viewer's initial annotation: validates every protocol rule, then locks it. Records
 * `warningsShown` (the earliest-node warnings for the submitted tuple, lib/symptoms
 * EarliestWarning[]) and whether the assignment was assisted (issue 12).
 */
export async function submitInitial(db: Db, viewer: Viewer, o: { caseId: string; version: number; warningsShown?: unknown[] }): Promise<AnnotationView> {
  await assertMayWrite(db, viewer, o.caseId, "initial");
  const own = await getOwnAnnotation(db, viewer, { caseId: o.caseId, kind: "initial" });
  if (!own) throw new WorkflowError(400, "nothing to submit: save a draft first", [{ field: "categories", message: "Choose at least one category (C1–C4)." }]);
  if (own.status === "submitted") throw new WorkflowError(409, "already submitted");
  if (own.version !== o.version) throw new WorkflowError(409, "this annotation was changed elsewhere since you opened it; reload before submitting", [], own);
  const g = await graphLookup(db, o.caseId, own.evidence.map((e) => e.nodeId));
  const errors = validateForSubmit(own, g);
  if (errors.length) throw new WorkflowError(400, "the annotation cannot be submitted yet", errors);
  await db.$transaction(async (tx) => {
    const asg = await tx.assignment.findFirst({ where: { caseId: o.caseId, userId: viewer.id, role: "annotator" }, select: { assisted: true } });
    const n = await tx.annotation.updateMany({
      where: { id: own.id, version: o.version, status: "draft" },
      data: { status: "submitted", submittedAt: new Date(), version: { increment: 1 }, assisted: asg?.assisted ?? false, warningsShownJson: o.warningsShown ? JSON.stringify(o.warningsShown) : null },
    });
    if (n.count === 0) throw new WorkflowError(409, "this annotation was changed elsewhere; reload before submitting");
    await tx.assignment.updateMany({ where: { caseId: o.caseId, userId: viewer.id, role: "annotator" }, data: { status: "submitted", submittedAt: new Date() } });
    await audit(tx, { actorId: viewer.id, action: "annotation.submit", entityType: "annotation", entityId: own.id, caseId: o.caseId, data: { tuple: tupleOf(own) } });
  });
  return (await getOwnAnnotation(db, viewer, { caseId: o.caseId, kind: "initial" }))!;
}

function tupleOf(f: AnnotationFields): StrictTuple {
  return { categories: f.categories, primary: f.primary, nodeId: f.nodeId, nodeType: f.nodeType };
}

/**
 * Finalize a case (adjudication): validates the final like a submission, stores it with its
 * relation to the three initial annotations, and marks the case finalized. When two adjudicators
 * finalize at once, the first to commit wins; the other gets WorkflowError 409 and their attempt
 * (with its content) is kept in the audit trail. `warningsShown`: the earliest-node warnings for
 * the final tuple (stored as JSON on the annotation row).
 */
export async function finalizeCase(db: Db, viewer: Viewer, o: { caseId: string; fields: AnnotationFields; warningsShown?: unknown[] }): Promise<AnnotationView> {
  const attempt = async (action: string, data: Record<string, unknown>) =>
    audit(db, { actorId: viewer.id, action, entityType: "case", entityId: o.caseId, caseId: o.caseId, data: { fields: o.fields, ...data } });
  try {
    await assertMayWrite(db, viewer, o.caseId, "final");
  } catch (e) {
    if (e instanceof WorkflowError && e.status === 409) await attempt("final.finalize_rejected", { reason: e.message });
    throw e;
  }
  const g = await graphLookup(db, o.caseId, o.fields.evidence.map((e) => e.nodeId));
  const errors = validateForSubmit(o.fields, g);
  if (errors.length) throw new WorkflowError(400, "the final annotation is not valid", errors);
  const initials = (await db.annotation.findMany({ where: { caseId: o.caseId, kind: "initial", status: "submitted" } })).map((a) => ({
    categories: parseCategories(a.categories),
    primary: a.primary as StrictTuple["primary"],
    nodeId: a.nodeId,
    nodeType: a.nodeType,
  }));
  const relation = relateFinal(initials, tupleOf(o.fields));
  try {
    await db.$transaction(async (tx) => {
      const key = { caseId_userId_kind: { caseId: o.caseId, userId: viewer.id, kind: "final" } };
      const cur = await tx.annotation.findUnique({ where: key, select: { id: true } });
      const annotationId = cur?.id ?? `c${randomUUID().replace(/-/g, "")}`;
      // The race is decided first, on the case row: only one adjudicator can move
      // finalAnnotationId from null. Claiming before writing the annotation also keeps the lock
      // order the same in every transaction (PostgreSQL would otherwise deadlock on the
      // annotation's foreign-key lock against the case update).
      const won = await tx.case.updateMany({ where: { id: o.caseId, finalAnnotationId: null }, data: { finalAnnotationId: annotationId, finalizedAt: new Date(), finalizedById: viewer.id } });
      if (won.count === 0) throw new WorkflowError(409, "another adjudicator finalized this case first; your final was not saved as the case's final (it is kept in the audit trail)");
      const row = { ...fieldsToRow(o.fields), status: "submitted", submittedAt: new Date(), relationJson: JSON.stringify(relation), warningsShownJson: o.warningsShown ? JSON.stringify(o.warningsShown) : null };
      const a = cur
        ? await tx.annotation.update({ where: { id: cur.id }, data: { ...row, version: { increment: 1 } } })
        : await tx.annotation.create({ data: { id: annotationId, caseId: o.caseId, userId: viewer.id, kind: "final", ...row, version: 1 } });
      await tx.evidence.deleteMany({ where: { annotationId: a.id } });
      if (o.fields.evidence.length) await tx.evidence.createMany({ data: o.fields.evidence.map((e, idx) => ({ annotationId: a.id, idx, nodeId: e.nodeId, quote: e.quote })) });
      await tx.assignment.updateMany({ where: { caseId: o.caseId, userId: viewer.id, role: "adjudicator" }, data: { status: "submitted", submittedAt: new Date() } });
      await audit(tx, { actorId: viewer.id, action: "final.finalize", entityType: "annotation", entityId: a.id, caseId: o.caseId, data: { tuple: tupleOf(o.fields), relation } });
    });
  } catch (e) {
    if (e instanceof WorkflowError) await attempt("final.finalize_rejected", { reason: e.message });
    else if (isUniqueViolation(e) || isTransactionConflict(e)) {
      await attempt("final.finalize_rejected", { reason: "concurrent finalize" });
      throw new WorkflowError(409, "another adjudicator finalized this case first; your final was not saved as the case's final (it is kept in the audit trail)");
    }
    throw e;
  }
  return (await getOwnAnnotation(db, viewer, { caseId: o.caseId, kind: "final" }))!;
}

/** Serialization failure or deadlock reported by the database (Prisma P2034). */
function isTransactionConflict(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: string }).code === "P2034";
}

function isUniqueViolation(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: string }).code === "P2002";
}

/**
 * Admin: reopen a submitted annotation (initial or final) with a reason. The author can edit it
 * again; a reopened final un-finalizes the case.
 */
export async function reopenAnnotation(db: Db, actor: Viewer, o: { annotationId: string; reason: string }): Promise<void> {
  if (!hasRole(actor, "admin")) throw new WorkflowError(403, "only an admin can reopen an annotation");
  if (!o.reason.trim()) throw new WorkflowError(400, "a reason is required", [{ field: "reason", message: "Say why it is reopened." }]);
  await db.$transaction(async (tx) => {
    const a = await tx.annotation.findUnique({ where: { id: o.annotationId } });
    if (!a) throw new WorkflowError(404, "no such annotation");
    if (a.status !== "submitted") throw new WorkflowError(409, "only a submitted annotation can be reopened");
    await tx.annotation.update({ where: { id: a.id }, data: { status: "draft", reopenedAt: new Date(), version: { increment: 1 } } });
    if (a.kind === "initial") await tx.assignment.updateMany({ where: { caseId: a.caseId, userId: a.userId, role: "annotator" }, data: { status: "in_progress", submittedAt: null } });
    else {
      await tx.case.updateMany({ where: { id: a.caseId, finalAnnotationId: a.id }, data: { finalAnnotationId: null, finalizedAt: null, finalizedById: null } });
      await tx.assignment.updateMany({ where: { caseId: a.caseId, userId: a.userId, role: "adjudicator" }, data: { status: "in_progress", submittedAt: null } });
    }
    await audit(tx, { actorId: actor.id, action: "annotation.reopen", entityType: "annotation", entityId: a.id, caseId: a.caseId, data: { reason: o.reason, kind: a.kind, authorId: a.userId } });
  });
}

/** The audit trail of a case, newest first (not for annotators who are still blind to it). */
export async function listCaseAudit(db: Db, viewer: Viewer, o: { caseId: string }) {
  if (!(await mayViewerSeeOthers(db, viewer, o.caseId)) || !hasRole(viewer, "admin", "researcher", "adjudicator")) {
    throw new WorkflowError(403, "the audit trail of this case is not available to you");
  }
  const rows = await db.auditEvent.findMany({ where: { caseId: o.caseId }, orderBy: [{ at: "desc" }, { id: "desc" }], include: { actor: { select: { email: true, name: true } } } });
  return rows.map((r) => ({ id: r.id, at: r.at.toISOString(), action: r.action, entityType: r.entityType, entityId: r.entityId, actor: r.actor, data: JSON.parse(r.dataJson) as unknown }));
}

export { emptyAnnotationFields };

/** Admin overview: submitted annotations (newest first) and per-case progress. */
export async function listSubmittedAnnotations(db: Db, actor: Viewer, o: { take?: number } = {}) {
  if (!hasRole(actor, "admin")) throw new WorkflowError(403, "admins only");
  const rows = await db.annotation.findMany({
    where: { status: "submitted" },
    orderBy: { submittedAt: "desc" },
    take: o.take ?? 50,
    include: { user: { select: { email: true } }, case: { select: { bundleId: true } } },
  });
  return rows.map((a) => ({ id: a.id, kind: a.kind, bundleId: a.case.bundleId, author: a.user.email, submittedAt: a.submittedAt?.toISOString() ?? null }));
}

/** Recent audit events across all cases (admins). */
export async function listRecentAudit(db: Db, actor: Viewer, o: { take?: number } = {}) {
  if (!hasRole(actor, "admin")) throw new WorkflowError(403, "admins only");
  const rows = await db.auditEvent.findMany({ orderBy: [{ at: "desc" }, { id: "desc" }], take: o.take ?? 50, include: { actor: { select: { email: true } } } });
  const caseIds = [...new Set(rows.map((r) => r.caseId).filter((x): x is string => !!x))];
  const cases = new Map((await db.case.findMany({ where: { id: { in: caseIds } }, select: { id: true, bundleId: true } })).map((c) => [c.id, c.bundleId]));
  return rows.map((r) => {
    const data = JSON.parse(r.dataJson) as { reason?: unknown };
    return {
      id: r.id,
      at: r.at.toISOString(),
      action: r.action,
      entityType: r.entityType,
      entityId: r.entityId,
      caseId: r.caseId,
      bundleId: r.caseId ? (cases.get(r.caseId) ?? null) : null,
      reason: typeof data.reason === "string" ? data.reason : null,
      actor: r.actor?.email ?? null,
      data: r.dataJson,
    };
  });
}

/**
 * Admin: remove an assignment that has not been submitted (the annotator's draft for that case
 * goes with it). Submitted work is never removed: reopen it instead.
 * @throws WorkflowError 403 (not admin), 404, 409 (already submitted)
 */
export async function removeAssignment(db: Db, actor: Viewer, o: { assignmentId: string }): Promise<void> {
  if (!hasRole(actor, "admin")) throw new WorkflowError(403, "only an admin can remove an assignment");
  await db.$transaction(async (tx) => {
    const a = await tx.assignment.findUnique({ where: { id: o.assignmentId } });
    if (!a) throw new WorkflowError(404, "no such assignment");
    if (a.status === "submitted") throw new WorkflowError(409, "this assignment is submitted; reopen the annotation instead of removing it");
    const kind = a.role === "adjudicator" ? "final" : "initial";
    const draft = await tx.annotation.findUnique({ where: { caseId_userId_kind: { caseId: a.caseId, userId: a.userId, kind } } });
    if (draft?.status === "submitted") throw new WorkflowError(409, "this annotation is submitted; reopen it instead");
    if (draft) await tx.annotation.delete({ where: { id: draft.id } });
    await tx.assignment.delete({ where: { id: a.id } });
    await audit(tx, { actorId: actor.id, action: "assignment.remove", entityType: "assignment", entityId: a.id, caseId: a.caseId, data: { userId: a.userId, role: a.role, status: a.status, draftRemoved: !!draft } });
  });
}

/** Admin: assignments not yet submitted, oldest first (for removal). */
export async function listOpenAssignments(db: Db, actor: Viewer, o: { take?: number } = {}) {
  if (!hasRole(actor, "admin")) throw new WorkflowError(403, "admins only");
  const rows = await db.assignment.findMany({
    where: { status: { not: "submitted" } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: o.take ?? 100,
    include: { user: { select: { email: true } }, case: { select: { bundleId: true } } },
  });
  return rows.map((a) => ({ id: a.id, role: a.role, status: a.status, bundleId: a.case.bundleId, email: a.user.email }));
}
