/**
 * Test support (vitest only): real sign-in for calling the app's route handlers the way Next.js
 * calls them, with no mocked session. Signs in through better-auth's own handler (lib/auth.ts,
 * POST /api/auth/sign-in/email on the database of DATABASE_URL) and returns the session cookie,
 * so lib/session `viewerForRequest` resolves the viewer exactly as in the running app.
 * Set DATABASE_URL before the first call (lib/db getDb and lib/auth getAuth are process-wide).
 */
import { getAuth } from "../auth";
import { upsertUser, type Db } from "../db";
import type { Role } from "../annotation";

/** Password of the accounts made by {@link signedInUser}. */
export const TEST_PASSWORD = "route-test-password";

/**
 * The `cookie` header value of a fresh better-auth session for this email and password.
 * @throws Error with the status and body when the sign-in is refused
 */
export async function sessionCookie(email: string, password: string, base = "http://app.test"): Promise<string> {
  // many sign-ins from one address in a test: no per-IP rate limit (read when lib/auth is first built)
  process.env.SYMTRACE_AUTH_RATE_LIMIT = "0";
  process.env.BETTER_AUTH_URL ??= base;
  const res = await getAuth().handler(new Request(`${base}/api/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) }));
  if (!res.ok) throw new Error(`sign-in of ${email} refused: ${res.status} ${await res.text()}`);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  if (!cookies.length) throw new Error(`sign-in of ${email} set no cookie`);
  return cookies.join("; ");
}

/** A new account with these roles (real credential) and its session cookie. */
export async function signedInUser(db: Db, roles: Role[], email = `${roles.join("-")}-${Math.random().toString(36).slice(2, 10)}@route.test`): Promise<{ id: string; email: string; roles: Role[]; cookie: string }> {
  const u = await upsertUser(db, { email, roles, password: TEST_PASSWORD });
  return { id: u.id, email: u.email, roles, cookie: await sessionCookie(u.email, TEST_PASSWORD) };
}
