/**
 * Accounts: users with roles, and their email/password credential in better-auth's tables
 * (Account.providerId "credential", password hashed by better-auth's own hashPassword).
 */
import { hashPassword } from "better-auth/crypto";
import { parseRoles, ROLES, type Role } from "../annotation";
import type { Db } from "./client";

export class UserInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "UserInputError";
  }
}

/**
 * Create a user, or update the roles (and password, when given) of an existing email.
 * @throws UserInputError naming the field (email, role, password)
 */
export async function upsertUser(
  db: Db,
  o: { email: string; name?: string; roles: string[]; password?: string | null; actorId?: string | null },
): Promise<{ id: string; email: string; roles: Role[]; status: "created" | "updated" }> {
  const email = o.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UserInputError("email", `"${o.email}" is not an email address`);
  const bad = o.roles.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (bad.length || o.roles.length === 0) throw new UserInputError("role", `role must be one or more of ${ROLES.join(", ")}; got ${o.roles.join(",") || "none"}`);
  if (o.password != null && o.password.length < 8) throw new UserInputError("password", "password must have at least 8 characters");
  const roles = [...new Set(o.roles)] as Role[];
  const hash = o.password ? await hashPassword(o.password) : null;
  return db.$transaction(async (tx) => {
    const existing = await tx.user.findUnique({ where: { email } });
    const user = existing
      ? await tx.user.update({ where: { id: existing.id }, data: { roles: roles.join(","), ...(o.name ? { name: o.name } : {}) } })
      : await tx.user.create({ data: { email, name: o.name ?? email.split("@")[0], roles: roles.join(","), emailVerified: true } });
    if (hash) {
      const acct = await tx.account.findFirst({ where: { userId: user.id, providerId: "credential" } });
      if (acct) await tx.account.update({ where: { id: acct.id }, data: { password: hash } });
      else await tx.account.create({ data: { userId: user.id, accountId: user.id, providerId: "credential", password: hash } });
    }
    await tx.auditEvent.create({
      data: {
        actorId: o.actorId ?? null,
        action: existing ? "user.update" : "user.create",
        entityType: "user",
        entityId: user.id,
        dataJson: JSON.stringify({ email, roles, passwordSet: !!hash }),
      },
    });
    return { id: user.id, email, roles, status: existing ? ("updated" as const) : ("created" as const) };
  });
}

/** All users with their roles, sorted by email. */
export async function listUsers(db: Db) {
  const users = await db.user.findMany({ orderBy: { email: "asc" }, select: { id: true, email: true, name: true, roles: true, createdAt: true } });
  return users.map((u) => ({ ...u, roles: parseRoles(u.roles) }));
}

/**
 * The account for an imported annotator name (symtrace.annotations/v1 `annotator` field):
 * matched by email or name, else created with the given role and no password (an admin sets
 * one with `symtrace user add`).
 */
export async function ensureAnnotatorAccount(db: Db, o: { annotator: string; role: Role }): Promise<string> {
  const key = o.annotator.trim();
  const email = key.includes("@") ? key.toLowerCase() : `${key.toLowerCase().replace(/[^a-z0-9._-]+/g, "-")}@imported.symtrace.local`;
  const found = await db.user.findFirst({ where: { OR: [{ email }, { name: key }] } });
  if (found) {
    const roles = parseRoles(found.roles);
    if (!roles.includes(o.role)) await db.user.update({ where: { id: found.id }, data: { roles: [...roles, o.role].join(",") } });
    return found.id;
  }
  const u = await db.user.create({ data: { email, name: key, roles: o.role, emailVerified: false } });
  return u.id;
}
