/**
 * Small helpers for route handlers: JSON bodies parsed with zod (field-level 400s), workflow
 * errors mapped to their status, and the case of a `[caseId]` segment (a URL-encoded bundle id).
 */
import type { z } from "zod";
import { bundleIdFromParam } from "./case-links";
import { findCaseIdFor, getDb, getRun, pooledViewGate, ReplayRunError, WorkflowError, type Db, type PooledView, type ReplayRunView } from "./db";
import { mayReplay } from "./services/replay-access";
import type { Role, Viewer } from "./annotation";
import { viewerForRequest, type SessionViewer } from "./session";
import { formatJsonPath } from "./bundle";

/** Parse a JSON body; a Response (400 with field errors) when it does not fit the schema. */
export async function parseBody<T extends z.ZodType>(req: Request, schema: T): Promise<z.infer<T> | Response> {
  let raw: unknown;
  try {
    raw = await req.json();
  } catch {
    return Response.json({ error: "the body must be JSON" }, { status: 400 });
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    return Response.json(
      { error: "invalid request", fieldErrors: r.error.issues.map((i) => ({ field: formatJsonPath(i.path).replace(/^\$\.?/, ""), message: i.message })) },
      { status: 400 },
    );
  }
  return r.data;
}

/** Parse a route's query string; a Response (400 naming the first bad parameter) when it does not fit the schema. */
export function parseQuery<T extends z.ZodType>(req: Request, schema: T): z.infer<T> | Response {
  const parsed = schema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return Response.json({ error: `${parsed.error.issues[0].path.join(".") || "query"}: ${parsed.error.issues[0].message}` }, { status: 400 });
  return parsed.data;
}

/** Map a thrown error to a Response (WorkflowError keeps its status and field errors). */
export function errorResponse(e: unknown): Response {
  if (e instanceof ReplayRunError) {
    return Response.json({ error: e.message }, { status: e.code === "not-found" ? 404 : e.code === "conflict" ? 409 : 400 });
  }
  if (e instanceof WorkflowError) {
    return Response.json({ error: e.message, fieldErrors: e.fieldErrors, ...(e.current !== undefined ? { current: e.current } : {}) }, { status: e.status });
  }
  console.error(e);
  return Response.json({ error: "internal error" }, { status: 500 });
}

/** The database id of the case named by a route's `[caseId]`, or a 404 Response. */
export async function caseFromParam(param: string, viewer: Viewer): Promise<string | Response> {
  const bundleId = bundleIdFromParam(param);
  // a derived case (replay, experiment attempt) of a case the viewer is blind on answers as unknown (lib/db findCaseIdFor)
  const id = await findCaseIdFor(getDb(), viewer, { bundleId });
  return id ?? Response.json({ error: `no case "${bundleId}"` }, { status: 404 });
}

/**
 * The common start of a case route: the signed-in viewer (with one of `roles`, when given) and
 * the case's database id, or the Response to return (401, 403 or 404).
 */
export async function caseRoute(
  req: Request,
  params: Promise<{ caseId: string }>,
  ...roles: Role[]
): Promise<{ viewer: SessionViewer; caseId: string } | Response> {
  const viewer = await viewerForRequest(req, ...roles);
  if (viewer instanceof Response) return viewer;
  const caseId = await caseFromParam((await params).caseId, viewer);
  if (caseId instanceof Response) return caseId;
  return { viewer, caseId };
}

/** caseRoute for replay routes: also 403 unless the viewer may replay this case. */
export async function replayCaseRoute(req: Request, params: Promise<{ caseId: string }>): Promise<{ viewer: SessionViewer; caseId: string; db: Db } | Response> {
  const r = await caseRoute(req, params);
  if (r instanceof Response) return r;
  const db = getDb();
  if (!(await mayReplay(db, r.viewer, r.caseId))) return Response.json({ error: "replays of this case are not available to you" }, { status: 403 });
  return { ...r, db };
}

/** The start of a `/api/replays/<runId>` route: the viewer and the run, or 401/404. */
export async function replayRunRoute(req: Request, params: Promise<{ runId: string }>): Promise<{ viewer: SessionViewer; run: ReplayRunView; db: Db } | Response> {
  const viewer = await viewerForRequest(req);
  if (viewer instanceof Response) return viewer;
  const db = getDb();
  const run = await getRun(db, (await params).runId);
  // A run the viewer may not see is answered exactly like a missing one.
  if (!run || !(await mayReplay(db, viewer, run.sourceCaseId))) return Response.json({ error: "no such replay" }, { status: 404 });
  return { viewer, run, db };
}

/**
 * 403 `{error, openOwn}` when the viewer may not see a view that pools every case's labels and
 * detector output (lib/db `pooledViewGate`: experiments, repair searches, attribution runs); null
 * when the view is open.
 */
export async function refusePooledView(db: Db, viewer: Viewer, view: PooledView): Promise<Response | null> {
  const g = await pooledViewGate(db, viewer, view);
  return g.open ? null : Response.json({ error: g.refusal, openOwn: g.openOwn }, { status: 403 });
}
