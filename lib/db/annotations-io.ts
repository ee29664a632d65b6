/**
 * Import and export of `symtrace.annotations/v1` files (annotation-protocol.md; the format of
 * the shared fixtures bundles/gold-annotations.json and fixtures/agreement/*.annotations.json):
 *
 * ```
 * { "format": "symtrace.annotations/v1", "about"?: string, "adjudicator"?: string,
 *   "cases": [ { "caseId": <bundle id of an imported case>,
 *                "initial": [ { "annotator", "categories", "primary", "nodeId", "nodeType", "confidence"?, "rationale"?, "evidence"?, "correction"? } ],
 *                "final": { "categories", ..., "annotator"? | "adjudicator"? } | null } ] }
 * ```
 * Unknown keys are tolerated (lib/agreement's reader is the strict one). Every annotation is
 * validated against its case's graph exactly like a submission from the form; a case is imported
 * whole (one transaction) or not at all, and re-importing the same file changes nothing.
 */
import { z } from "zod";
import {
  annotationFieldsSchema,
  CATEGORIES,
  CONFIDENCE,
  formatCategories,
  parseCategories,
  relateFinal,
  validateForSubmit,
  type AnnotationFields,
  type FinalRelation,
  type StrictTuple,
} from "../annotation";
import { graphLookup, WorkflowError } from "./annotations";
import type { Db } from "./client";
import { ensureAnnotatorAccount } from "./users";

export const ANNOTATIONS_FILE_FORMAT = "symtrace.annotations/v1";
/** The adjudicator account of imported finals that name none (neither in the final nor the file). */
export const DEFAULT_IMPORT_ADJUDICATOR = "imported-adjudicator";
/** Accounts made by ensureAnnotatorAccount for a bare name get this email domain. */
const IMPORTED_EMAIL_DOMAIN = "@imported.symtrace.local";

export interface PathError {
  /** JSON path, e.g. `$.cases[3].initial[1].primary`. */
  path: string;
  message: string;
}

/** The file as a whole is not a `symtrace.annotations/v1` object (nothing was imported). */
export class AnnotationsFileError extends Error {
  constructor(readonly errors: PathError[]) {
    super(errors.map((e) => `${e.path}: ${e.message}`).join("; "));
    this.name = "AnnotationsFileError";
  }
}

// ------------------------------------------------------------------ schema

const evidenceSchema = z.looseObject({
  nodeId: z.string().min(1, "evidence nodeId must not be empty"),
  quote: z.string().min(1, "quote must not be empty"),
});

const fieldsShape = {
  categories: z
    .array(z.enum(CATEGORIES))
    .min(1, "categories must be a non-empty subset of C1..C4")
    .refine((c) => new Set(c).size === c.length, "each category at most once"),
  primary: z.enum(CATEGORIES),
  nodeId: z.string().min(1),
  nodeType: z.string().min(1),
  confidence: z.enum(CONFIDENCE).nullable().optional(),
  rationale: z.string().nullable().optional(),
  evidence: z.array(evidenceSchema).nullable().optional(),
  /** Proposed correction a* at the node (issue 14); optional free text. */
  correction: z.string().nullable().optional(),
};

export const importedInitialSchema = z.looseObject({ annotator: z.string().trim().min(1, "annotator must name the annotator"), ...fieldsShape });
export const importedFinalSchema = z.looseObject({
  annotator: z.string().trim().min(1).optional(),
  adjudicator: z.string().trim().min(1).optional(),
  ...fieldsShape,
});
/** A case entry; its annotations are parsed one by one (so each reports its own path). */
const caseEntrySchema = z.looseObject({
  caseId: z.string().min(1, "caseId must be the bundle id of an imported case"),
  initial: z.array(z.unknown()).optional(),
  final: z.unknown().optional(),
});
/** The file; its cases are parsed one by one (a bad case does not stop the others). */
export const annotationsFileEnvelopeSchema = z.looseObject({
  format: z.literal(ANNOTATIONS_FILE_FORMAT, { error: `format must be "${ANNOTATIONS_FILE_FORMAT}"` }),
  about: z.string().optional(),
  adjudicator: z.string().trim().min(1).optional(),
  cases: z.array(z.unknown()),
});

type ImportedInitial = z.infer<typeof importedInitialSchema>;
type ImportedFinal = z.infer<typeof importedFinalSchema>;

/** `["cases", 3, "primary"]` -> `$.cases[3].primary`. */
function jsonPath(base: string, p: ReadonlyArray<PropertyKey>): string {
  let out = base;
  for (const k of p) {
    if (typeof k === "number") out += `[${k}]`;
    else if (typeof k === "string" && /^[A-Za-z_$][\w$]*$/.test(k)) out += `.${k}`;
    else out += `[${JSON.stringify(String(k))}]`;
  }
  return out;
}

/** validateForSubmit's field names ("evidence[1].quote") under a JSON path. */
function fieldPath(base: string, field: string): string {
  return /^\[/.test(field) ? base + field : `${base}.${field}`;
}

function zodErrors(base: string, err: z.ZodError): PathError[] {
  return err.issues.map((i) => ({ path: jsonPath(base, i.path), message: i.message }));
}

function toFields(a: ImportedInitial | ImportedFinal): AnnotationFields {
  return {
    categories: [...a.categories].sort(),
    primary: a.primary,
    nodeId: a.nodeId,
    nodeType: a.nodeType,
    confidence: a.confidence ?? null,
    rationale: a.rationale ?? "",
    evidence: (a.evidence ?? []).map((e) => ({ nodeId: e.nodeId, quote: e.quote })),
    correction: a.correction ?? "",
  };
}

const tupleOf = (f: AnnotationFields): StrictTuple => ({ categories: f.categories, primary: f.primary, nodeId: f.nodeId, nodeType: f.nodeType });

// ------------------------------------------------------------------ import

export interface AnnotationsImportOptions {
  /** Source file name, recorded in the audit events. */
  source?: string | null;
  /** Who runs the import (audit actor); null for the CLI. */
  actorId?: string | null;
  /** Adjudicator of finals that name none; else the file's `adjudicator`, else "imported-adjudicator". */
  adjudicator?: string | null;
}

export interface AnnotationsImportResult {
  /** Cases with at least one annotation created or updated; annotations created or updated. */
  imported: { cases: number; initial: number; final: number };
  /** Of `imported`, how many annotations replaced a different earlier version (same annotator, case and kind). */
  updated: number;
  /** Annotations already stored identically (left untouched). */
  skipped: number;
  /** Cases not imported (nothing of them written), with every problem's JSON path. */
  failed: Array<{ caseId: string | null; errors: PathError[]; conflict?: true }>;
  /** Annotator names (or emails) whose accounts this import created. */
  accountsCreated: string[];
}

interface StoredRow {
  id: string;
  status: string;
  categories: string;
  primary: string | null;
  nodeId: string | null;
  nodeType: string | null;
  confidence: string | null;
  rationale: string;
  correction: string | null;
  relationJson?: string | null;
  evidence: Array<{ nodeId: string; quote: string }>;
}

function sameContent(row: StoredRow, f: AnnotationFields): boolean {
  return (
    row.categories === formatCategories(f.categories) &&
    row.primary === f.primary &&
    row.nodeId === f.nodeId &&
    row.nodeType === f.nodeType &&
    (row.confidence ?? null) === f.confidence &&
    row.rationale === f.rationale &&
    (row.correction ?? "") === (f.correction?.trim() ? f.correction : "") &&
    row.evidence.length === f.evidence.length &&
    row.evidence.every((e, i) => e.nodeId === f.evidence[i].nodeId && e.quote === f.evidence[i].quote)
  );
}

/** Thrown inside a case's transaction to roll it back with a reported error. */
class CaseRollback extends Error {
  constructor(
    readonly errors: PathError[],
    readonly conflict: boolean,
  ) {
    super(errors[0]?.message ?? "rolled back");
  }
}

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Import a parsed `symtrace.annotations/v1` value.
 * @returns counts, skipped (identical) annotations, the failed cases with JSON-path errors, and
 *   the accounts created; cases that fail are not written at all, the others are
 * @throws AnnotationsFileError when the value is not a `symtrace.annotations/v1` object
 */
export async function importAnnotationsFile(db: Db, value: unknown, opts: AnnotationsImportOptions = {}): Promise<AnnotationsImportResult> {
  const env = annotationsFileEnvelopeSchema.safeParse(value);
  if (!env.success) throw new AnnotationsFileError(zodErrors("$", env.error));
  const file = env.data;
  const result: AnnotationsImportResult = { imported: { cases: 0, initial: 0, final: 0 }, updated: 0, skipped: 0, failed: [], accountsCreated: [] };
  const created = new Set<string>();
  const seenCase = new Map<string, number>();
  const defaultAdjudicator = opts.adjudicator?.trim() || file.adjudicator || DEFAULT_IMPORT_ADJUDICATOR;

  for (let i = 0; i < file.cases.length; i++) {
    const base = `$.cases[${i}]`;
    const errors: PathError[] = [];
    const entry = caseEntrySchema.safeParse(file.cases[i]);
    if (!entry.success) {
      const raw = file.cases[i] as { caseId?: unknown } | null;
      result.failed.push({ caseId: typeof raw?.caseId === "string" ? raw.caseId : null, errors: zodErrors(base, entry.error) });
      continue;
    }
    const { caseId: bundleId } = entry.data;
    const first = seenCase.get(bundleId);
    if (first !== undefined) errors.push({ path: `${base}.caseId`, message: `duplicate caseId "${bundleId}" (first at $.cases[${first}])` });
    else seenCase.set(bundleId, i);

    // shape of each annotation
    const initials: Array<{ j: number; annotator: string; fields: AnnotationFields }> = [];
    const byAnnotator = new Map<string, number>();
    (entry.data.initial ?? []).forEach((raw, j) => {
      const p = importedInitialSchema.safeParse(raw);
      if (!p.success) return void errors.push(...zodErrors(`${base}.initial[${j}]`, p.error));
      const key = p.data.annotator.toLowerCase();
      const dup = byAnnotator.get(key);
      if (dup !== undefined) errors.push({ path: `${base}.initial[${j}].annotator`, message: `annotator "${p.data.annotator}" already annotated this case ($.cases[${i}].initial[${dup}])` });
      else byAnnotator.set(key, j);
      initials.push({ j, annotator: p.data.annotator, fields: toFields(p.data) });
    });
    let final: { annotator: string; fields: AnnotationFields } | null = null;
    if (entry.data.final !== undefined && entry.data.final !== null) {
      const p = importedFinalSchema.safeParse(entry.data.final);
      if (!p.success) errors.push(...zodErrors(`${base}.final`, p.error));
      else {
        const annotator = p.data.annotator ?? p.data.adjudicator ?? defaultAdjudicator;
        const j = byAnnotator.get(annotator.toLowerCase());
        if (j !== undefined)
          errors.push({ path: `${base}.final.${p.data.annotator ? "annotator" : "adjudicator"}`, message: `"${annotator}" annotated this case ($.cases[${i}].initial[${j}]); another person must adjudicate it` });
        final = { annotator, fields: toFields(p.data) };
      }
    }

    // the case, and every annotation against its graph (as a submission from the form)
    const c = await db.case.findUnique({ where: { bundleId }, select: { id: true } });
    if (!c) errors.push({ path: `${base}.caseId`, message: `no imported case has bundle id "${bundleId}": import its bundle first (symtrace import <bundle>)` });
    else {
      const all = [...initials.map((a) => ({ at: `${base}.initial[${a.j}]`, fields: a.fields })), ...(final ? [{ at: `${base}.final`, fields: final.fields }] : [])];
      const g = await graphLookup(db, c.id, all.flatMap((a) => a.fields.evidence.map((e) => e.nodeId)));
      for (const a of all) {
        const shape = annotationFieldsSchema.safeParse(a.fields);
        if (!shape.success) errors.push(...zodErrors(a.at, shape.error));
        // validateForSubmit requires confidence and a rationale, which the published annotation
        // files often omit (synthetic-60 has no rationales; finals may lack confidence). For
        // imports a missing confidence/rationale is not an error: validate a copy that fills
        // defaults for exactly those two fields. What is stored is the data as given (null, "").
        const check: AnnotationFields = { ...a.fields, confidence: a.fields.confidence ?? "low", rationale: a.fields.rationale.trim() ? a.fields.rationale : "(imported without rationale)" };
        for (const e of validateForSubmit(check, g)) errors.push({ path: fieldPath(a.at, e.field), message: e.message });
      }
    }
    if (errors.length || !c) {
      result.failed.push({ caseId: bundleId, errors });
      continue;
    }

    try {
      const r = await db.$transaction((tx) => importCaseTx(tx, { caseId: c.id, base, initials, final, source: opts.source ?? null, actorId: opts.actorId ?? null }), {
        timeout: 60_000,
        maxWait: 30_000,
      });
      result.imported.initial += r.initial;
      result.imported.final += r.final;
      if (r.initial + r.final > 0) result.imported.cases++;
      result.updated += r.updated;
      result.skipped += r.skipped;
      for (const a of r.accountsCreated) created.add(a);
    } catch (e) {
      if (e instanceof CaseRollback) result.failed.push({ caseId: bundleId, errors: e.errors, ...(e.conflict ? { conflict: true as const } : {}) });
      else if (e instanceof WorkflowError) result.failed.push({ caseId: bundleId, errors: [{ path: base, message: e.message }] });
      else throw e;
    }
  }
  result.accountsCreated = [...created];
  return result;
}

async function account(tx: Tx, annotator: string, role: "annotator" | "adjudicator", created: string[]): Promise<string> {
  // ensureAnnotatorAccount takes a client; the transaction client has the same model API, so the
  // account is created (or its role added) inside this case's transaction and rolls back with it.
  const before = await tx.user.count();
  const id = await ensureAnnotatorAccount(tx as unknown as Db, { annotator, role });
  if ((await tx.user.count()) > before) created.push(annotator);
  return id;
}

async function writeEvidence(tx: Tx, annotationId: string, f: AnnotationFields) {
  await tx.evidence.deleteMany({ where: { annotationId } });
  if (f.evidence.length) await tx.evidence.createMany({ data: f.evidence.map((e, idx) => ({ annotationId, idx, nodeId: e.nodeId, quote: e.quote })) });
}

function row(f: AnnotationFields) {
  return { categories: formatCategories(f.categories), primary: f.primary, nodeId: f.nodeId, nodeType: f.nodeType, confidence: f.confidence, rationale: f.rationale, correction: f.correction?.trim() ? f.correction : null };
}

async function importCaseTx(
  tx: Tx,
  o: {
    caseId: string;
    base: string;
    initials: Array<{ j: number; annotator: string; fields: AnnotationFields }>;
    final: { annotator: string; fields: AnnotationFields } | null;
    source: string | null;
    actorId: string | null;
  },
) {
  const out = { initial: 0, final: 0, updated: 0, skipped: 0, accountsCreated: [] as string[] };
  const now = new Date();
  const audit = (action: string, entityId: string, data: unknown) =>
    tx.auditEvent.create({ data: { actorId: o.actorId, action, entityType: "annotation", entityId, caseId: o.caseId, dataJson: JSON.stringify(data) } });

  for (const a of o.initials) {
    const userId = await account(tx, a.annotator, "annotator", out.accountsCreated);
    if (await tx.assignment.findFirst({ where: { caseId: o.caseId, userId, role: "adjudicator" }, select: { id: true } }))
      throw new CaseRollback([{ path: `${o.base}.initial[${a.j}].annotator`, message: `"${a.annotator}" is this case's adjudicator and cannot also annotate it` }], false);
    const cur = await tx.annotation.findUnique({ where: { caseId_userId_kind: { caseId: o.caseId, userId, kind: "initial" } }, include: { evidence: { orderBy: { idx: "asc" } } } });
    const asg = await tx.assignment.findUnique({ where: { caseId_userId_role: { caseId: o.caseId, userId, role: "annotator" } } });
    if (!asg) await tx.assignment.create({ data: { caseId: o.caseId, userId, role: "annotator", status: "submitted", submittedAt: now } });
    else if (asg.status !== "submitted") await tx.assignment.update({ where: { id: asg.id }, data: { status: "submitted", submittedAt: now } });
    if (cur && cur.status === "submitted" && sameContent(cur, a.fields)) {
      out.skipped++;
      continue;
    }
    const ann = cur
      ? await tx.annotation.update({ where: { id: cur.id }, data: { ...row(a.fields), status: "submitted", submittedAt: now, version: { increment: 1 } } })
      : await tx.annotation.create({ data: { caseId: o.caseId, userId, kind: "initial", ...row(a.fields), status: "submitted", submittedAt: now, version: 1 } });
    await writeEvidence(tx, ann.id, a.fields);
    await audit("annotation.import", ann.id, { source: o.source, annotator: a.annotator, status: cur ? "updated" : "created", tuple: tupleOf(a.fields) });
    out.initial++;
    if (cur) out.updated++;
  }

  if (o.final) {
    const f = o.final;
    const userId = await account(tx, f.annotator, "adjudicator", out.accountsCreated);
    if (await tx.assignment.findFirst({ where: { caseId: o.caseId, userId, role: "annotator" }, select: { id: true } }))
      throw new CaseRollback([{ path: `${o.base}.final`, message: `"${f.annotator}" annotated this case; another person must adjudicate it` }], false);
    const c = await tx.case.findUniqueOrThrow({ where: { id: o.caseId }, select: { finalAnnotationId: true, finalizedAt: true } });
    const existing = c.finalAnnotationId
      ? await tx.annotation.findUnique({ where: { id: c.finalAnnotationId }, include: { evidence: { orderBy: { idx: "asc" } }, user: { select: { name: true, email: true } } } })
      : null;
    if (existing && existing.userId !== userId) {
      if (sameContent(existing, f.fields)) {
        out.skipped++;
        return out;
      }
      throw new CaseRollback(
        [{ path: `${o.base}.final`, message: `the case already has a different final annotation by ${existing.user.name} <${existing.user.email}>; the case was left as it is (reopen that final to replace it)` }],
        true,
      );
    }
    const initials = (await tx.annotation.findMany({ where: { caseId: o.caseId, kind: "initial", status: "submitted" }, orderBy: [{ submittedAt: "asc" }, { id: "asc" }] })).map((a) => ({
      categories: parseCategories(a.categories),
      primary: a.primary as StrictTuple["primary"],
      nodeId: a.nodeId,
      nodeType: a.nodeType,
    }));
    const relation: FinalRelation = relateFinal(initials, tupleOf(f.fields));
    const relationJson = JSON.stringify(relation);
    const cur = await tx.annotation.findUnique({ where: { caseId_userId_kind: { caseId: o.caseId, userId, kind: "final" } }, include: { evidence: { orderBy: { idx: "asc" } } } });
    const asg = await tx.assignment.findUnique({ where: { caseId_userId_role: { caseId: o.caseId, userId, role: "adjudicator" } } });
    if (!asg) await tx.assignment.create({ data: { caseId: o.caseId, userId, role: "adjudicator", status: "submitted", submittedAt: now } });
    else if (asg.status !== "submitted") await tx.assignment.update({ where: { id: asg.id }, data: { status: "submitted", submittedAt: now } });
    if (cur && cur.status === "submitted" && c.finalAnnotationId === cur.id && cur.relationJson === relationJson && sameContent(cur, f.fields)) {
      out.skipped++;
      return out;
    }
    const data = { ...row(f.fields), status: "submitted", submittedAt: now, relationJson };
    const ann = cur
      ? await tx.annotation.update({ where: { id: cur.id }, data: { ...data, version: { increment: 1 } } })
      : await tx.annotation.create({ data: { caseId: o.caseId, userId, kind: "final", ...data, version: 1 } });
    await writeEvidence(tx, ann.id, f.fields);
    await tx.case.update({
      where: { id: o.caseId },
      data: { finalAnnotationId: ann.id, finalizedById: userId, ...(c.finalAnnotationId === ann.id && c.finalizedAt ? {} : { finalizedAt: now }) },
    });
    await audit("final.import", ann.id, { source: o.source, adjudicator: f.annotator, status: cur ? "updated" : "created", tuple: tupleOf(f.fields), relation });
    out.final++;
    if (cur) out.updated++;
  }
  return out;
}

// ------------------------------------------------------------------ export

export interface ExportedAnnotation {
  annotator?: string;
  adjudicator?: string;
  categories: string[];
  primary: string | null;
  nodeId: string | null;
  nodeType: string | null;
  confidence?: string;
  rationale: string;
  evidence: Array<{ nodeId: string; quote: string }>;
  /** Proposed correction a* at the node, when one was written (issue 14). */
  correction?: string;
}

export interface AnnotationsFileV1 {
  format: typeof ANNOTATIONS_FILE_FORMAT;
  about: string;
  cases: Array<{ caseId: string; initial: ExportedAnnotation[]; final: ExportedAnnotation | null }>;
}

/** How an account is named in an exported file: imported accounts by their name, others by email (unique). */
function accountLabel(u: { name: string; email: string }): string {
  return u.email.endsWith(IMPORTED_EMAIL_DOMAIN) && u.name.trim() ? u.name : u.email;
}

function exported(a: StoredRow & { user: { name: string; email: string } }, who: "annotator" | "adjudicator"): ExportedAnnotation {
  return {
    [who]: accountLabel(a.user),
    categories: parseCategories(a.categories),
    primary: a.primary,
    nodeId: a.nodeId,
    nodeType: a.nodeType,
    ...(a.confidence ? { confidence: a.confidence } : {}),
    rationale: a.rationale,
    evidence: a.evidence.map((e) => ({ nodeId: e.nodeId, quote: e.quote })),
    ...(a.correction ? { correction: a.correction } : {}),
  };
}

/**
 * Export annotations as a `symtrace.annotations/v1` value: per case (by bundle id), the submitted
 * initial annotations (drafts are never exported) and the final when the case is finalized. The
 * final names its author as `adjudicator` (what lib/agreement's strict reader accepts; the
 * importer takes `annotator` or `adjudicator`).
 * @param opts.bundleId one case (bundle id or case id); default every case
 * @param opts.submittedOnly only cases with at least one submitted annotation (default: every
 *   selected case, those without annotations as `initial: [], final: null`)
 * @throws WorkflowError 404 when `bundleId` names no case
 */
export async function exportAnnotations(db: Db, opts: { bundleId?: string | null; submittedOnly?: boolean } = {}): Promise<AnnotationsFileV1> {
  let cases: Array<{ id: string; bundleId: string; finalAnnotationId: string | null }>;
  if (opts.bundleId) {
    const c = await db.case.findFirst({ where: { OR: [{ bundleId: opts.bundleId }, { id: opts.bundleId }] }, select: { id: true, bundleId: true, finalAnnotationId: true } });
    if (!c) throw new WorkflowError(404, `no case with bundle id "${opts.bundleId}"`);
    cases = [c];
  } else cases = await db.case.findMany({ select: { id: true, bundleId: true, finalAnnotationId: true }, orderBy: { bundleId: "asc" } });
  const rows = await db.annotation.findMany({
    where: { status: "submitted", ...(opts.bundleId ? { caseId: cases[0].id } : {}) },
    include: { evidence: { orderBy: { idx: "asc" } }, user: { select: { name: true, email: true } } },
  });
  const byCase = new Map<string, typeof rows>();
  for (const r of rows) byCase.set(r.caseId, [...(byCase.get(r.caseId) ?? []), r]);
  const out: AnnotationsFileV1 = { format: ANNOTATIONS_FILE_FORMAT, about: "Exported by SymTrace Studio (symtrace annotations export).", cases: [] };
  for (const c of cases) {
    const mine = byCase.get(c.id) ?? [];
    const initial = mine
      .filter((a) => a.kind === "initial")
      .map((a) => exported(a, "annotator"))
      .sort((a, b) => (a.annotator ?? "").localeCompare(b.annotator ?? ""));
    const f = c.finalAnnotationId ? mine.find((a) => a.id === c.finalAnnotationId) : undefined;
    if (opts.submittedOnly && initial.length === 0 && !f) continue;
    out.cases.push({ caseId: c.bundleId, initial, final: f ? exported(f, "adjudicator") : null });
  }
  return out;
}
