/**
 * Machine annotations (issue 24 item 3): an LLM annotator's answer stored as an annotation of the
 * SymTrace protocol under a machine account (User.kind "machine", no roles, no credential, so it
 * cannot sign in or be assigned). Its rows have Annotation.kind "machine": every query of initial
 * annotations (the queue, submission, exportAnnotations, Fleiss' κ of the three blind humans)
 * selects kind "initial" and so never sees them. They are validated exactly like a human
 * submission (validateForSubmit: categories, primary, node and node type in the graph, rationale,
 * every evidence quote found in its node).
 */
import { formatCategories, parseCategories, validateForSubmit, type AnnotationFields } from "../annotation";
import type { Db } from "./client";
import { graphLookup, WorkflowError } from "./annotations";

/** The machine account of one annotator model (created once). `name` e.g. "LLM annotator (gpt-4o)". */
export async function ensureMachineAccount(db: Db, o: { model: string }): Promise<{ id: string; name: string; email: string }> {
  const slug = o.model.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^-+|-+$/g, "") || "model";
  const email = `machine+${slug}@machine.symtrace.invalid`;
  const name = `LLM annotator (${o.model})`;
  const u = await db.user.upsert({ where: { email }, update: {}, create: { email, name, roles: "", kind: "machine", emailVerified: false } });
  if (u.kind !== "machine") throw new WorkflowError(409, `${email} exists and is not a machine account`);
  return { id: u.id, name: u.name, email };
}

/**
 * Store (or replace) the machine account's annotation of a case, submitted and audited.
 * @param o.caseId the case id or bundle id
 * @param o.about what produced it (attributor, model), kept in the audit event
 * @throws WorkflowError 404 (no such case), 403 (not a machine account), 400 with field errors
 */
export async function submitMachineAnnotation(db: Db, o: { caseId: string; machineUserId: string; fields: AnnotationFields; about?: Record<string, unknown> }): Promise<{ id: string; caseId: string }> {
  const c = await db.case.findFirst({ where: { OR: [{ id: o.caseId }, { bundleId: o.caseId }] }, select: { id: true } });
  if (!c) throw new WorkflowError(404, `no case "${o.caseId}"`);
  const u = await db.user.findUnique({ where: { id: o.machineUserId }, select: { kind: true } });
  if (u?.kind !== "machine") throw new WorkflowError(403, "machine annotations are written by machine accounts only");
  const errors = validateForSubmit(o.fields, await graphLookup(db, c.id, o.fields.evidence.map((e) => e.nodeId)));
  if (errors.length) throw new WorkflowError(400, "the machine annotation does not satisfy the protocol", errors);
  const row = {
    categories: formatCategories(o.fields.categories),
    primary: o.fields.primary,
    nodeId: o.fields.nodeId,
    nodeType: o.fields.nodeType,
    confidence: o.fields.confidence,
    rationale: o.fields.rationale,
    correction: o.fields.correction?.trim() ? o.fields.correction : null,
    status: "submitted",
    submittedAt: new Date(),
  };
  return db.$transaction(async (tx) => {
    const key = { caseId_userId_kind: { caseId: c.id, userId: o.machineUserId, kind: "machine" } };
    const prior = await tx.annotation.findUnique({ where: key, select: { id: true } });
    const a = prior ? await tx.annotation.update({ where: { id: prior.id }, data: { ...row, version: { increment: 1 } } }) : await tx.annotation.create({ data: { caseId: c.id, userId: o.machineUserId, kind: "machine", ...row, version: 1 } });
    await tx.evidence.deleteMany({ where: { annotationId: a.id } });
    await tx.evidence.createMany({ data: o.fields.evidence.map((e, idx) => ({ annotationId: a.id, idx, nodeId: e.nodeId, quote: e.quote })) });
    await tx.auditEvent.create({ data: { actorId: o.machineUserId, action: prior ? "machine_annotation.replace" : "machine_annotation.submit", entityType: "annotation", entityId: a.id, caseId: c.id, dataJson: JSON.stringify({ fields: o.fields, about: o.about ?? {} }) } });
    return { id: a.id, caseId: c.id };
  });
}

/** A stored machine annotation, by bundle id (what the agreement service pairs with the humans'). */
export interface MachineAnnotationRow {
  caseId: string;
  rater: string;
  categories: string[];
  primary: string | null;
  nodeId: string | null;
  nodeType: string | null;
}

/** Every submitted machine annotation (kind "machine" by a machine account), sorted by case then rater. */
export async function listMachineAnnotations(db: Db): Promise<MachineAnnotationRow[]> {
  const rows = await db.annotation.findMany({
    where: { kind: "machine", status: "submitted", user: { kind: "machine" } },
    select: { categories: true, primary: true, nodeId: true, nodeType: true, user: { select: { name: true } }, case: { select: { bundleId: true } } },
  });
  return rows
    .map((r) => ({ caseId: r.case.bundleId, rater: r.user.name, categories: parseCategories(r.categories), primary: r.primary, nodeId: r.nodeId, nodeType: r.nodeType }))
    .sort((a, b) => a.caseId.localeCompare(b.caseId) || a.rater.localeCompare(b.rater));
}
