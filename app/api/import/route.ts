import { z } from "zod";
import { errorResponse } from "@/lib/api";
import { getDb } from "@/lib/db";
import { IMPORT_FORMATS } from "@/lib/importers";
import { importMaxBytes, importUpload, UploadTooLargeError, uploadFileName } from "@/lib/services/import-upload";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

const q = z.object({
  name: z.string({ error: "name: the file name is required (?name=<file name>)" }).min(1, "name: the file name is required"),
  format: z.enum(IMPORT_FORMATS, { error: `format: one of ${IMPORT_FORMATS.join(", ")}` }).default("auto"),
});

/**
 * POST ?name=<file name>&format=auto|bundle|whowhen|mad|otel, body = the file's bytes
 * (application/octet-stream or application/json): import one file (researcher or admin) the way
 * `symtrace import` does. 200 with the import report (a bad file is reported in `failed`, not an
 * HTTP error); 413 over SYMTRACE_IMPORT_MAX_BYTES; 401/403 without the role.
 */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const parsed = q.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return Response.json({ error: parsed.error.issues[0].message }, { status: 400 });
  // Raw bytes only: a cross-site HTML form cannot send these types without a CORS preflight.
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/octet-stream" && type !== "application/json") {
    return Response.json({ error: "send the file's bytes as application/octet-stream (one file per request)" }, { status: 415 });
  }
  const limit = importMaxBytes();
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > limit) return Response.json({ error: new UploadTooLargeError(uploadFileName(parsed.data.name), limit).message }, { status: 413 });
  try {
    const report = await importUpload(getDb(), { name: parsed.data.name, body: req.body, format: parsed.data.format, actorId: v.id, maxBytes: limit });
    return Response.json(report);
  } catch (e) {
    if (e instanceof UploadTooLargeError) return Response.json({ error: e.message }, { status: 413 });
    return errorResponse(e);
  }
}
