"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { userSavedMessage } from "@/lib/user-form";
import { assignCases, createApiKey, getDb, listCases, removeAssignment, reopenAnnotation, revokeApiKey, upsertUser, UserInputError, WorkflowError } from "@/lib/db";
import { requireViewer } from "@/lib/session";

export type ActionState = {
  ok?: string;
  error?: string;
  /** The submitted single-valued fields, shown again after the action. */
  values?: Record<string, string>;
  /** The chosen annotators (a multi-select: kept apart from `values`, which holds one value per name). */
  annotatorIds?: string[];
  preview?: { matched: number; caseIds: string[] };
};

const assignForm = z.object({
  dataset: z.string().optional(),
  mas: z.string().optional(),
  benchmark: z.string().optional(),
  q: z.string().optional(),
  perCase: z.coerce.number().int().min(1).max(10),
  adjudicatorId: z.string().optional(),
  /** Checkbox "assisted annotation": "on" when ticked. */
  assisted: z.literal("on").optional(),
});

/**
 * Assign every case matching the filter. Two steps: "Preview" counts the matching cases; "Assign"
 * needs the previewed count to still match (no surprise bulk assignment). The form keeps its
 * values, the chosen annotators included. Annotators chosen: exactly they get every case (see
 * assignCases); none chosen: `perCase` drawn from all annotators, least loaded first.
 */
export async function assignByFilterAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  const annotatorIds = form.getAll("annotatorIds").map(String).filter(Boolean);
  const values = Object.fromEntries([...form.entries()].filter(([k, v]) => typeof v === "string" && k !== "annotatorIds").map(([k, v]) => [k, String(v)]));
  const keep = { values, annotatorIds };
  const f = assignForm.safeParse(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v || undefined])));
  if (!f.success) return { ...keep, error: f.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  const db = getDb();
  const { cases } = await listCases(db, { dataset: f.data.dataset, mas: f.data.mas, benchmark: f.data.benchmark, q: f.data.q, take: 100_000 });
  if (values.intent !== "assign") {
    return { ...keep, preview: { matched: cases.length, caseIds: cases.slice(0, 10).map((c) => c.bundleId) } };
  }
  if (String(cases.length) !== values.confirmCount) return { ...keep, error: `The filter now matches ${cases.length} case(s), not ${values.confirmCount}: preview again.` };
  try {
    const r = await assignCases(db, admin, {
      caseIds: cases.map((c) => c.id),
      // Chosen annotators: exactly they get each case, so the per-case count is theirs.
      perCase: annotatorIds.length ? undefined : f.data.perCase,
      annotatorIds: annotatorIds.length ? annotatorIds : undefined,
      adjudicatorId: f.data.adjudicatorId || null,
      assisted: f.data.assisted === "on",
    });
    revalidatePath("/admin");
    const n = r.reduce((s, x) => s + x.annotators.length, 0);
    return { ...keep, ok: `${cases.length} case(s) assigned; ${n} new annotator assignment(s)${annotatorIds.length ? ` to the ${annotatorIds.length} chosen annotator(s)` : ""}${f.data.adjudicatorId ? ", adjudicator set" : ""}${f.data.assisted ? ", assisted annotation on" : ""}.` };
  } catch (e) {
    return { ...keep, error: e instanceof WorkflowError ? e.message : "assignment failed" };
  }
}

/** Create or update an account. */
export async function upsertUserAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  try {
    const r = await upsertUser(getDb(), {
      email: String(form.get("email") ?? ""),
      name: String(form.get("name") ?? "") || undefined,
      roles: form.getAll("roles").map(String),
      password: String(form.get("password") ?? "") || null,
      actorId: admin.id,
    });
    revalidatePath("/admin");
    return { ok: userSavedMessage(r) };
  } catch (e) {
    return { error: e instanceof UserInputError ? `${e.field}: ${e.message}` : "could not save the account" };
  }
}

/** Reopen a submitted annotation with a reason. */
export async function reopenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  try {
    const db = getDb();
    const id = String(form.get("annotationId") ?? "");
    const a = await db.annotation.findUnique({ where: { id }, select: { kind: true, case: { select: { finalAnnotationId: true } } } });
    await reopenAnnotation(db, admin, { annotationId: id, reason: String(form.get("reason") ?? "") });
    revalidatePath("/admin");
    return { ok: a?.kind === "initial" && a.case.finalAnnotationId ? "Reopened. Note: the case stays finalized; its final was adjudicated from the earlier version." : "Reopened." };
  } catch (e) {
    return { error: e instanceof WorkflowError ? e.message : "could not reopen" };
  }
}

/** Remove an assignment that has not been submitted. */
export async function removeAssignmentAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  try {
    await removeAssignment(getDb(), admin, { assignmentId: String(form.get("assignmentId") ?? "") });
    revalidatePath("/admin");
    return { ok: "Removed." };
  } catch (e) {
    return { error: e instanceof WorkflowError ? e.message : "could not remove" };
  }
}

/** The result of creating an API key: the key itself, shown once. */
export type ApiKeyActionState = ActionState & { key?: string; name?: string };

/** Create an OTLP ingest API key (scope traces:write); the key is returned once and never stored. */
export async function createApiKeyAction(_prev: ApiKeyActionState, form: FormData): Promise<ApiKeyActionState> {
  const admin = await requireViewer("admin");
  try {
    const r = await createApiKey(getDb(), { name: String(form.get("name") ?? ""), createdById: admin.id });
    revalidatePath("/admin");
    return { ok: `Key "${r.apiKey.name}" created. Copy it now: it is not shown again.`, key: r.key, name: r.apiKey.name };
  } catch (e) {
    return { error: (e as Error).message.startsWith("name:") ? (e as Error).message : "could not create the key" };
  }
}

/** Revoke an API key (its next request gets 401). */
export async function revokeApiKeyAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  const r = await revokeApiKey(getDb(), { idOrPrefix: String(form.get("apiKeyId") ?? ""), actorId: admin.id });
  revalidatePath("/admin");
  return r ? { ok: "Revoked." } : { error: "no such key" };
}
