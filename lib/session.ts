/**
 * The signed-in viewer on the server, for pages (redirect / forbidden) and API routes (401/403).
 * Every page and route checks roles here, on the server.
 */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { parseRoles, type Role, type Viewer } from "./annotation";
import { getAuth } from "./auth";

export interface SessionViewer extends Viewer {
  email: string;
  name: string;
}

async function fromHeaders(h: Headers): Promise<SessionViewer | null> {
  const s = await getAuth().api.getSession({ headers: h });
  if (!s) return null;
  const u = s.user as typeof s.user & { roles?: string };
  return { id: u.id, email: u.email, name: u.name, roles: parseRoles(u.roles) };
}

/** The viewer of the current page request, or null. */
export async function getViewer(): Promise<SessionViewer | null> {
  return fromHeaders(await headers());
}

/**
 * For pages: the viewer, redirecting to /sign-in when signed out; when `roles` are given and the
 * viewer has none of them, redirects to /forbidden.
 */
export async function requireViewer(...roles: Role[]): Promise<SessionViewer> {
  const v = await getViewer();
  if (!v) redirect("/sign-in");
  if (roles.length && !v.roles.some((r) => roles.includes(r))) redirect("/forbidden");
  return v;
}

/**
 * For API routes: the viewer, or a ready Response (401 signed out, 403 wrong role).
 */
export async function viewerForRequest(req: Request, ...roles: Role[]): Promise<SessionViewer | Response> {
  const v = await fromHeaders(req.headers);
  if (!v) return Response.json({ error: "sign in first" }, { status: 401 });
  if (roles.length && !v.roles.some((r) => roles.includes(r))) return Response.json({ error: `this needs the role ${roles.join(" or ")}` }, { status: 403 });
  return v;
}
