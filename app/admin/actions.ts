"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { assignCases, getDb, listCases, reopenAnnotation, upsertUser, UserInputError, WorkflowError } from "@/lib/db";
import { requireViewer } from "@/lib/session";

export type ActionState = { ok?: string; error?: string };

const assignForm = z.object({
  dataset: z.string().optional(),
  mas: z.string().optional(),
  benchmark: z.string().optional(),
  q: z.string().optional(),
  perCase: z.coerce.number().int().min(1).max(10),
  adjudicatorId: z.string().optional(),
});

/** Assign every case matching the filter (three annotators each by default). */
export async function assignByFilterAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  const f = assignForm.safeParse(Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v) || undefined])));
  if (!f.success) return { error: f.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  const db = getDb();
  const { cases } = await listCases(db, { dataset: f.data.dataset, mas: f.data.mas, benchmark: f.data.benchmark, q: f.data.q, take: 100_000 });
  try {
    const r = await assignCases(db, admin, { caseIds: cases.map((c) => c.id), perCase: f.data.perCase, adjudicatorId: f.data.adjudicatorId || null });
    revalidatePath("/admin");
    const n = r.reduce((s, x) => s + x.annotators.length, 0);
    return { ok: `${cases.length} case(s) matched; ${n} new annotator assignment(s)${f.data.adjudicatorId ? ", adjudicator set" : ""}.` };
  } catch (e) {
    return { error: e instanceof WorkflowError ? e.message : "assignment failed" };
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
    return { ok: `${r.email} ${r.status}.` };
  } catch (e) {
    return { error: e instanceof UserInputError ? `${e.field}: ${e.message}` : "could not save the account" };
  }
}

/** Reopen a submitted annotation with a reason. */
export async function reopenAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const admin = await requireViewer("admin");
  try {
    await reopenAnnotation(getDb(), admin, { annotationId: String(form.get("annotationId") ?? ""), reason: String(form.get("reason") ?? "") });
    revalidatePath("/admin");
    return { ok: "Reopened." };
  } catch (e) {
    return { error: e instanceof WorkflowError ? e.message : "could not reopen" };
  }
}
