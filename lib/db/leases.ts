/**
 * The one place of lease SQL (issue 23 item 1): every background job is a row with a status, a
 * holder and a lease, and the job tables (ReplayRun, ExperimentAttempt, RepairSearch, AttributionJob) are
 * claimed, renewed, released and swept by these functions, described by a `LeaseTable`.
 *
 * - claim: one conditional UPDATE from `queued` (or from `running` with an expired lease while
 *   claims < maxClaims: takeover after a crash) → exactly one of any number of concurrent callers
 *   wins, on SQLite or PostgreSQL.
 * - renew: only the holder of a running row extends its lease (and saves what it passes).
 * - release / finish: only the holder of a running row changes it.
 * - expired: running rows whose lease ran out (the sweep decides what becomes of them), closed by a
 *   conditional update on the lease value read, so a renewal arriving at the same moment wins.
 *
 * A lease is either an expiry time (`expires`: leaseExpiresAt / leaseUntil) or the last sign of
 * life (`heartbeat`: heartbeatAt, expired `leaseMs` after it) — ReplayRun predates leases.
 */
import type { Db } from "./client";

type Where = Record<string, unknown>;
/** The part of a Prisma delegate the lease functions use (the job models share it). */
interface LeaseDelegate {
  updateMany(a: { where: Where; data: Where }): Promise<{ count: number }>;
  findMany(a: { where: Where; orderBy?: unknown; take?: number; select: Record<string, true> }): Promise<Array<Record<string, unknown>>>;
}
/** A database handle or a transaction client. */
type DbLike = Pick<Db, "replayRun" | "experimentAttempt" | "repairSearch" | "attributionJob">;

export interface LeaseTable {
  /** The Prisma model of the job rows. */
  model: "replayRun" | "experimentAttempt" | "repairSearch" | "attributionJob";
  /** Column naming the holder. */
  owner: "workerId" | "leaseOwner";
  /** The lease column and what it holds. */
  lease: { column: "leaseExpiresAt" | "leaseUntil"; kind: "expires" } | { column: "heartbeatAt"; kind: "heartbeat" };
  /**
   * Takeover: a running row whose lease expired may be claimed again while `claims` < maxClaims.
   * null: never taken over (the sweep closes it instead).
   */
  takeover: { maxClaims: number } | null;
  /** What else must hold for a row to be claimable (not cancelled, experiment not stopping, …). */
  claimable?: () => Where;
  /** Columns set on claim besides status, holder, lease and claims. */
  onClaim?: (now: Date) => Where;
}

const delegate = (db: DbLike, t: LeaseTable) => db[t.model] as unknown as LeaseDelegate;

/** The lease column's value for a lease of `leaseMs` taken or renewed at `now`. */
function leaseValue(t: LeaseTable, now: Date, leaseMs: number): Date {
  return t.lease.kind === "expires" ? new Date(now.getTime() + leaseMs) : now;
}

/** Rows whose lease has run out at `now` (a missing lease counts as run out). */
function expiredWhere(t: LeaseTable, now: Date, leaseMs: number): Where {
  const before = t.lease.kind === "expires" ? now : new Date(now.getTime() - leaseMs);
  return { OR: [{ [t.lease.column]: { lt: before } }, { [t.lease.column]: null }] };
}

/** Where a row can be claimed: queued, or (takeover) running with an expired lease and claims left. */
function claimableWhere(t: LeaseTable, now: Date, leaseMs: number, o: { queuedBefore?: Date; scope?: Where } = {}): Where {
  const queued = { status: "queued", ...(o.queuedBefore ? { createdAt: { lt: o.queuedBefore } } : {}) };
  const states: Where[] = [queued];
  if (t.takeover) states.push({ status: "running", claims: { lt: t.takeover.maxClaims }, AND: [expiredWhere(t, now, leaseMs)] });
  return { AND: [{ OR: states }, ...(t.claimable ? [t.claimable()] : []), ...(o.scope ? [o.scope] : [])] };
}

/**
 * Claim row `id` for `owner` with a lease of `leaseMs` (see the module comment).
 * @param o.scope an extra condition the row must meet (e.g. the experiment's runner)
 * @returns true when this call won the row
 */
export async function claimLease(db: DbLike, t: LeaseTable, id: string, owner: string, leaseMs: number, o: { scope?: Where } = {}): Promise<boolean> {
  const now = new Date();
  const r = await delegate(db, t).updateMany({
    where: { id, ...claimableWhere(t, now, leaseMs, { scope: o.scope }) },
    data: { status: "running", [t.owner]: owner, [t.lease.column]: leaseValue(t, now, leaseMs), ...(t.takeover ? { claims: { increment: 1 } } : {}), ...t.onClaim?.(now) },
  });
  return r.count === 1;
}

/**
 * Ids of claimable rows, oldest first (FIFO by createdAt, id).
 * @param o.olderThanMs only queued rows created at least this long ago (re-sending lost queue jobs)
 * @param o.scope an extra condition (e.g. one experiment)
 */
export async function listClaimable(db: DbLike, t: LeaseTable, o: { leaseMs: number; take?: number; olderThanMs?: number; scope?: Where }): Promise<string[]> {
  return (await listClaimableRows(db, t, { ...o, select: { id: true } })).map((r) => r.id as string);
}

/**
 * Claimable rows with the columns of `o.select`, oldest first (as listClaimable): a worker that
 * claims from a batch of candidates (claimLease each) reads them once instead of once per claim.
 */
export async function listClaimableRows(db: DbLike, t: LeaseTable, o: { leaseMs: number; take?: number; olderThanMs?: number; scope?: Where; select: Record<string, true> }): Promise<Array<Record<string, unknown>>> {
  const now = new Date();
  return delegate(db, t).findMany({
    where: claimableWhere(t, now, o.leaseMs, { scope: o.scope, ...(o.olderThanMs ? { queuedBefore: new Date(now.getTime() - o.olderThanMs) } : {}) }),
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: o.take ?? 1000,
    select: { id: true, ...o.select },
  });
}

/**
 * Claim the oldest claimable row: candidates in FIFO order, the next one when another worker wins.
 * @returns the id claimed, or null when nothing is claimable
 */
export async function claimNextLease(db: DbLike, t: LeaseTable, owner: string, leaseMs: number, o: { scope?: Where } = {}): Promise<string | null> {
  for (let round = 0; round < 10; round++) {
    const ids = await listClaimable(db, t, { leaseMs, take: 8, scope: o.scope });
    if (ids.length === 0) return null;
    for (const id of ids) if (await claimLease(db, t, id, owner, leaseMs, { scope: o.scope })) return id;
  }
  return null;
}

/**
 * Extend the lease of a running row held by `owner` and write `data` with it.
 * @returns false when the row is no longer running under `owner` (the lease was lost)
 */
export async function renewLease(db: DbLike, t: LeaseTable, id: string, owner: string, leaseMs: number, data: Where = {}): Promise<boolean> {
  const r = await delegate(db, t).updateMany({ where: { id, [t.owner]: owner, status: "running" }, data: { [t.lease.column]: leaseValue(t, new Date(), leaseMs), ...data } });
  return r.count === 1;
}

/**
 * Change a running row only if `owner` still holds it (release at shutdown, finish, save).
 * @param o.statuses the states the row may be in (default running only)
 * @returns true when the row was changed
 */
export async function updateHeld(db: DbLike, t: LeaseTable, id: string, owner: string, data: Where, o: { statuses?: readonly string[] } = {}): Promise<boolean> {
  const statuses = o.statuses ?? ["running"];
  const r = await delegate(db, t).updateMany({ where: { id, [t.owner]: owner, status: statuses.length === 1 ? statuses[0] : { in: [...statuses] } }, data });
  return r.count === 1;
}

/** Ids of the running rows `owner` holds (a stopping worker releases them). */
export async function listHeld(db: DbLike, t: LeaseTable, owner: string): Promise<string[]> {
  const rows = await delegate(db, t).findMany({ where: { status: "running", [t.owner]: owner }, select: { id: true } });
  return rows.map((r) => r.id as string);
}

/** A running row whose lease ran out, as the sweep reads it. */
export interface ExpiredLease {
  id: string;
  owner: string | null;
  lease: Date | null;
  claims: number;
  row: Record<string, unknown>;
}

/**
 * Running rows whose lease ran out at `now` and that match `where` (what the sweep closes).
 * @param o.select further columns to read (in `row`)
 */
export async function listExpired(db: DbLike, t: LeaseTable, o: { leaseMs: number; now?: Date; where?: Where; select?: Record<string, true> }): Promise<ExpiredLease[]> {
  const now = o.now ?? new Date();
  const rows = await delegate(db, t).findMany({
    where: { status: "running", AND: [expiredWhere(t, now, o.leaseMs), ...(o.where ? [o.where] : [])] },
    select: { id: true, [t.owner]: true, [t.lease.column]: true, ...(t.takeover ? { claims: true } : {}), ...o.select } as Record<string, true>,
  });
  return rows.map((r) => ({ id: r.id as string, owner: (r[t.owner] as string | null) ?? null, lease: (r[t.lease.column] as Date | null) ?? null, claims: (r.claims as number | undefined) ?? 1, row: r }));
}

/**
 * Close an expired row as read by listExpired: conditional on its holder and lease value, so a
 * renewal (or a takeover) that happened since wins.
 * @returns true when this call changed it
 */
export async function closeExpired(db: DbLike, t: LeaseTable, e: ExpiredLease, data: Where): Promise<boolean> {
  const r = await delegate(db, t).updateMany({ where: { id: e.id, status: "running", [t.owner]: e.owner, [t.lease.column]: e.lease }, data });
  return r.count === 1;
}
