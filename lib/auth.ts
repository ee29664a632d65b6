/**
 * Sign-in (better-auth, email + password): sessions live in our database (Session table),
 * passwords are hashed by better-auth. Accounts are made by admins (`symtrace user add`) or by
 * the demo seed; there is no public sign-up.
 */
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { getDb, providerOfDb } from "./db";

const DEMO_SECRET = "symtrace-embedded-demo-secret-set-BETTER_AUTH_SECRET-in-production";

function makeAuth() {
  const db = getDb();
  return betterAuth({
    database: prismaAdapter(db, { provider: providerOfDb(db) === "postgresql" ? "postgresql" : "sqlite" }),
    secret: process.env.BETTER_AUTH_SECRET || DEMO_SECRET,
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    user: { additionalFields: { roles: { type: "string", required: false, defaultValue: "researcher", input: false } } },
    session: { expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24 },
    telemetry: { enabled: false },
    plugins: [nextCookies()],
  });
}

const globalForAuth = globalThis as unknown as { __symtraceAuth?: ReturnType<typeof makeAuth> };

/** The process-wide better-auth instance. */
export function getAuth() {
  if (!globalForAuth.__symtraceAuth) globalForAuth.__symtraceAuth = makeAuth();
  return globalForAuth.__symtraceAuth;
}
