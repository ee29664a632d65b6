/**
 * Machine API keys (OTLP/HTTP ingest). A key is `stk_` + 32 random bytes (base64url, 43
 * characters); only its sha256 (hex) is stored, with its first 10 characters to recognise it.
 * A plain, unsalted hash is enough for a 256-bit random secret (no dictionary to try); the
 * lookup is one indexed equality on the hash. The only scope is `traces:write`.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "./client";

export const API_KEY_PREFIX = "stk_";
export const TRACES_WRITE = "traces:write";

/** sha256 hex of a key string (what is stored). */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

type Row = { id: string; name: string; prefix: string; scopes: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };
const view = (r: Row): ApiKeyView => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scopes: r.scopes.split(",").filter(Boolean),
  createdAt: r.createdAt.toISOString(),
  lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  revokedAt: r.revokedAt?.toISOString() ?? null,
});

/**
 * Create a key. The returned `key` is the only copy: it is never stored nor shown again.
 * @param o.name a label (1–100 characters)
 * @throws Error when the name is empty or too long
 */
export async function createApiKey(db: Db, o: { name: string; createdById?: string | null }): Promise<{ key: string; apiKey: ApiKeyView }> {
  const name = o.name.trim();
  if (!name || name.length > 100) throw new Error("name: 1 to 100 characters");
  const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const row = await db.apiKey.create({
    data: { name, keyHash: hashApiKey(key), prefix: key.slice(0, 10), scopes: TRACES_WRITE, createdById: o.createdById ?? null },
  });
  await db.auditEvent.create({ data: { actorId: o.createdById ?? null, action: "apikey.create", entityType: "apiKey", entityId: row.id, dataJson: JSON.stringify({ name, prefix: row.prefix }) } });
  return { key, apiKey: view(row) };
}

/** All keys, newest first (never the key itself). */
export async function listApiKeys(db: Db): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ orderBy: { createdAt: "desc" } });
  return rows.map(view);
}

/**
 * Revoke a key by id or by its prefix (as listed). Revoking twice is a no-op.
 * @returns the key, or null when none matches
 */
export async function revokeApiKey(db: Db, o: { idOrPrefix: string; actorId?: string | null }): Promise<ApiKeyView | null> {
  const row = await db.apiKey.findFirst({ where: { OR: [{ id: o.idOrPrefix }, { prefix: o.idOrPrefix }] } });
  if (!row) return null;
  if (row.revokedAt) return view(row);
  const r = await db.apiKey.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
  verified.delete(row.keyHash);
  await db.auditEvent.create({ data: { actorId: o.actorId ?? null, action: "apikey.revoke", entityType: "apiKey", entityId: row.id, dataJson: JSON.stringify({ name: row.name, prefix: row.prefix }) } });
  return view(r);
}

const lastTouched = new Map<string, number>();

/** How long a verified key is trusted without asking the database again (ms). */
export const API_KEY_CACHE_MS = 5_000;
const verified = new Map<string, { id: string; name: string; at: number }>();

/**
 * The key with this secret if it exists, is not revoked and has `scope`; else null. Reads only.
 * A verified key is remembered for {@link API_KEY_CACHE_MS} per process (one database query per
 * export would cost the receiver ~10% of its time), so a revocation made by another process takes
 * effect within 5 s; one made in this process at once. Unknown keys are never cached.
 * `touch` says whether its lastUsedAt is due (at most once a minute per key and process): the
 * caller writes it ({@link touchApiKey}) only after the request's data is stored, so a refused
 * request writes nothing.
 */
export async function verifyApiKey(db: Db, key: string, scope: string = TRACES_WRITE): Promise<{ id: string; name: string; touch: boolean } | null> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return null;
  const hash = hashApiKey(key);
  const now = Date.now();
  const touch = (id: string) => (lastTouched.get(id) ?? 0) < now - 60_000;
  const hit = scope === TRACES_WRITE ? verified.get(hash) : undefined;
  if (hit && now - hit.at < API_KEY_CACHE_MS) return { id: hit.id, name: hit.name, touch: touch(hit.id) };
  const row = await db.apiKey.findUnique({ where: { keyHash: hash }, select: { id: true, name: true, scopes: true, revokedAt: true } });
  if (!row || row.revokedAt || !row.scopes.split(",").includes(scope)) {
    verified.delete(hash);
    return null;
  }
  if (scope === TRACES_WRITE) verified.set(hash, { id: row.id, name: row.name, at: now });
  return { id: row.id, name: row.name, touch: touch(row.id) };
}

/** Set a key's lastUsedAt to now. */
export async function touchApiKey(tx: Pick<Db, "apiKey">, id: string): Promise<void> {
  const now = Date.now();
  lastTouched.set(id, now);
  await tx.apiKey.update({ where: { id }, data: { lastUsedAt: new Date(now) } });
}

/**
 * The key sent with a request: `Authorization: Bearer <key>`, or Basic with the key as the
 * password (any user name) or as the user name (empty password); null when there is none.
 */
export function apiKeyFromHeaders(headers: Headers): string | null {
  const auth = headers.get("authorization")?.trim();
  if (!auth) return null;
  const [scheme, ...rest] = auth.split(/\s+/);
  const value = rest.join(" ");
  if (/^bearer$/i.test(scheme)) return value || null;
  if (/^basic$/i.test(scheme)) {
    let decoded: string;
    try {
      decoded = Buffer.from(value, "base64").toString("utf8");
    } catch {
      return null;
    }
    const i = decoded.indexOf(":");
    const user = i < 0 ? decoded : decoded.slice(0, i);
    const pass = i < 0 ? "" : decoded.slice(i + 1);
    if (pass.startsWith(API_KEY_PREFIX)) return pass;
    if (user.startsWith(API_KEY_PREFIX)) return user;
    return pass || null;
  }
  return null;
}
