"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { blindnessGate, getDb } from "@/lib/db";
import { ReleaseExportError } from "@/lib/services/release-export";
import { createStoredRelease } from "@/lib/services/release-store";
import { requireViewer } from "@/lib/session";

const releaseForm = z.object({
  mas: z.string().optional(),
  benchmark: z.string().optional(),
  status: z.enum(["adjudicated", "all"]).default("adjudicated"),
});

/**
 * "Create release" (researchers and admins): write a release folder server-side (as `symtrace
 * release export`) and come back to /releases with the new release or the reason it failed.
 * A researcher with unsubmitted annotations of their own is refused (the release holds others' work).
 */
export async function createReleaseAction(form: FormData): Promise<void> {
  const viewer = await requireViewer("researcher", "admin");
  const values = Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === "string" && v !== "").map(([k, v]) => [k, String(v)]));
  const f = releaseForm.safeParse(values);
  if (!f.success) redirect(`/releases?error=${encodeURIComponent(f.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "))}`);
  const db = getDb();
  const gate = await blindnessGate(db, viewer, { allCases: true });
  if (!gate.references) redirect(`/releases?error=${encodeURIComponent(`submit your own ${gate.openOwn} open annotation(s) first: a release holds everyone's annotations`)}`);
  let name: string;
  try {
    name = (await createStoredRelease(db, { mas: f.data.mas, benchmark: f.data.benchmark, status: f.data.status })).name;
  } catch (e) {
    if (e instanceof ReleaseExportError) redirect(`/releases?error=${encodeURIComponent(e.message)}`);
    throw e;
  }
  redirect(`/releases?created=${encodeURIComponent(name)}`);
}
