/**
 * Sign-in (better-auth, email + password): sessions live in our database (Session table),
 * passwords are hashed by better-auth. Accounts are made by admins (`symtrace user add`) or by
 * the demo seed; there is no public sign-up.
 */
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { getDb, providerOfDb } from "./db";

/**
 * Origins allowed to call the auth endpoints: the origin the request itself was made to (the app
 * serves its own sign-in form on whatever host and port it runs), plus SYMTRACE_TRUSTED_ORIGINS
 * (comma-separated) for other front ends.
 */
function trustedOrigins(request?: Request): string[] {
  const extra = (process.env.SYMTRACE_TRUSTED_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!request) return extra;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const proto = request.headers.get("x-forwarded-proto") ?? new URL(request.url).protocol.replace(":", "");
  return host ? [`${proto}://${host}`, ...extra] : extra;
}

const DEMO_SECRET = "symtrace-embedded-demo-secret-set-BETTER_AUTH_SECRET-in-production";

function makeAuth() {
  const db = getDb();
  return betterAuth({
    database: prismaAdapter(db, { provider: providerOfDb(db) === "postgresql" ? "postgresql" : "sqlite" }),
    secret: process.env.BETTER_AUTH_SECRET || DEMO_SECRET,
    baseURL: process.env.BETTER_AUTH_URL || undefined,
    trustedOrigins,
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    user: { additionalFields: { roles: { type: "string", required: false, defaultValue: "researcher", input: false } } },
    session: { expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24 },
    telemetry: { enabled: false },
    // Sign-in attempts are rate-limited per IP (better-auth's default rules). The e2e server turns
    // it off (SYMTRACE_AUTH_RATE_LIMIT=0): its tests sign in dozens of users from one address.
    rateLimit: { enabled: process.env.SYMTRACE_AUTH_RATE_LIMIT !== "0", storage: "memory" },
    plugins: [nextCookies()],
  });
}

const globalForAuth = globalThis as unknown as { __symtraceAuth?: ReturnType<typeof makeAuth> };

/** The process-wide better-auth instance. */
export function getAuth() {
  if (!globalForAuth.__symtraceAuth) globalForAuth.__symtraceAuth = makeAuth();
  return globalForAuth.__symtraceAuth;
}
