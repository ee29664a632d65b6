/**
 * Test data for e2e specs: each test seeds what it needs (users, cases, assignments) with random
 * ids, into the same real database the app under test reads, through lib/db (the same code
 * paths as the CLI and the app).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page, APIRequestContext } from "@playwright/test";
import { request as pwRequest } from "@playwright/test";
import { buildBundle, parseJsonText, type ReplayBundle } from "../lib/bundle";
import { assignCases, exportBundle, importCase, openDb, upsertUser, type Db } from "../lib/db";
import type { Role } from "../lib/annotation";
import { E2E_DATABASE_URL } from "../playwright.config";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../shared");
export const PASSWORD = "e2e-password-1";

// One client for the whole test process: separate SQLite connections writing at once can wait on
// each other's locks until Prisma times out.
let shared: Db | null = null;
async function withDb<T>(f: (db: Db) => Promise<T>): Promise<T> {
  shared ??= openDb(E2E_DATABASE_URL).db;
  return f(shared);
}

/** Store a bundle through lib/db (the same path as the CLI) and return it. */
export async function seedBundle(make: (id: string) => ReplayBundle): Promise<ReplayBundle> {
  const b = make(`e2e/${randomUUID()}`);
  await withDb((db) => importCase(db, { bundle: b }));
  return b;
}

/** The bundle the app stored for a case (e.g. a replay's result), rebuilt from its rows; null when none. */
export async function storedBundle(bundleId: string): Promise<ReplayBundle | null> {
  return withDb((db) => exportBundle(db, { bundleId }));
}

/** A copy of a gold bundle under a fresh random id (so each test has its own case). */
export function goldCopy(name: "gold-c1" | "gold-c2" | "gold-c3" | "gold-c4") {
  return (id: string): ReplayBundle => {
    const b = parseJsonText(readFileSync(path.join(SHARED, `fixtures/bundles/${name}.bundle.json`), "utf8")) as ReplayBundle;
    return { ...b, id };
  };
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  name: string;
  roles: Role[];
}

/** A new account with the given roles and a random email. */
export async function createUser(roles: Role[], name = roles.join("+")): Promise<TestUser> {
  const email = `${roles[0]}-${randomUUID().slice(0, 8)}@e2e.test`;
  const u = await withDb((db) => upsertUser(db, { email, name: `${name} ${email.slice(0, 14)}`, roles, password: PASSWORD }));
  return { id: u.id, email, password: PASSWORD, name: `${name} ${email.slice(0, 14)}`, roles };
}

/** Assign a case (by bundle id) to these annotators and an adjudicator; `assisted`: the annotators see the detector layer before submitting. */
export async function assign(bundleId: string, annotators: TestUser[], adjudicator?: TestUser, opts: { assisted?: boolean } = {}) {
  await withDb(async (db) => {
    const c = await db.case.findUniqueOrThrow({ where: { bundleId } });
    const admin = await upsertUser(db, { email: "e2e-admin@e2e.test", roles: ["admin"], password: PASSWORD });
    await assignCases(db, { id: admin.id, roles: ["admin"] }, { caseIds: [c.id], perCase: annotators.length, annotatorIds: annotators.map((a) => a.id), adjudicatorId: adjudicator?.id ?? null, assisted: opts.assisted });
  });
}

/** The stored initial annotation of a user on a case (what the API does not show: assisted, the warnings shown). */
export async function storedAnnotation(bundleId: string, userId: string) {
  return withDb(async (db) => {
    const c = await db.case.findUniqueOrThrow({ where: { bundleId } });
    const a = await db.annotation.findFirst({ where: { caseId: c.id, userId, kind: "initial" }, select: { status: true, assisted: true, warningsShownJson: true } });
    return a ? { status: a.status, assisted: a.assisted, warningsShown: a.warningsShownJson ? (JSON.parse(a.warningsShownJson) as Array<{ kind: string; ruleId?: string; nodeId: string }>) : null } : null;
  });
}

/** Sign in through the real form. */
export async function signIn(page: Page, u: Pick<TestUser, "email" | "password">) {
  await page.context().clearCookies();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(u.email);
  await page.getByLabel("Password").fill(u.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
}

/** An API client signed in as the user (cookie from better-auth's sign-in endpoint). */
export async function apiAs(baseURL: string, u: Pick<TestUser, "email" | "password">): Promise<APIRequestContext> {
  const ctx = await pwRequest.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const r = await ctx.post("/api/auth/sign-in/email", { data: { email: u.email, password: u.password } });
  if (!r.ok()) throw new Error(`sign-in failed for ${u.email}: ${r.status()} ${await r.text()}`);
  return ctx;
}

export const HOSTILE_TEXT = `<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> <b>not bold</b>`;

/** A small bundle whose task, labels and content carry HTML/JS markup. */
export function hostileBundle(id: string): ReplayBundle {
  return buildBundle({
    id,
    task: { prompt: `Task ${HOSTILE_TEXT}`, benchmark: "e2e" },
    config: { mas: "e2e-mas" },
    nodes: [
      { id: "task_0000", type: "message", agent: "User", label: "task", content: { text: "start" } },
      { id: "tool_result_0000", type: "tool_result", agent: "WebSurfer", label: `label ${HOSTILE_TEXT}`, content: { observation: HOSTILE_TEXT }, status: "error", error: { type: "HTTPError", message: "onerror=alert(1)" } },
      { id: "final_result", type: "final_result", agent: "Planner", label: "final", content: { answer: "42" } },
    ],
    edges: [
      { from: "task_0000", to: "tool_result_0000", kind: "control" },
      { from: "tool_result_0000", to: "final_result", kind: "data" },
    ],
    outcome: { passed: false, evaluator: "e2e" },
  });
}
