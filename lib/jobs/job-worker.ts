/**
 * JobWorker: the one worker of lib/jobs (issue 23 item 1). It runs the jobs of ONE kind
 * (./kinds.ts: replay, experiment-attempt, repair-search, attribution) in this process; the backends
 * (./backends.ts) decide how it learns about jobs: a polling loop (`start()`, SQLite) or queue
 * deliveries (`process(id)`, pg-boss on PostgreSQL).
 *
 * The row is the truth (lib/db/leases.ts): a conditional claim with a lease decides who runs a job;
 * while the handler runs, the lease is renewed every `renewMs` (with the handler's latest progress)
 * and, between renewals, the cancel flag is polled every `controlPollMs` when the kind has a cheap
 * control read. A lost lease aborts the handler (reason "lost-lease": it writes nothing); a cancel
 * aborts it (reason "cancel") or, for kinds that stop at a boundary, fires `ctx.cancelled` only.
 * Every `leaseMs / 2` the kind's sweep closes what dead workers left. On stop(): no new claims; the
 * running jobs get `graceMs`, then are aborted (reason "shutdown") and released (kind.release:
 * queued again or interrupted) — a stopping worker never leaves a job of its own running.
 * A handler may give its slot back before it ends (`ctx.handOff()`, e.g. an experiment attempt
 * whose MAS exited, while it is evaluated and recorded): the polling loop then claims the next job;
 * at most `concurrency` handed-off jobs run besides the `concurrency` others.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Db } from "../db/client";

/** The job kinds (one pg-boss queue each). */
export const JOB_KIND_NAMES = ["replay", "experiment-attempt", "repair-search", "attribution"] as const;
export type JobKindName = (typeof JOB_KIND_NAMES)[number];

/** What a handler gets besides its claimed row. */
export interface JobContext {
  db: Db;
  workerId: string;
  /** The worker's lease length (a handler saving state renews with it). */
  leaseMs: number;
  log: (line: string) => void;
  /** Aborted on shutdown, a lost lease and (kinds with `cancel: "abort"`) a cancel; `signal.reason` says which. */
  signal: AbortSignal;
  /** Fires on a cancel request (every kind): stop at the next boundary. */
  cancelled: AbortSignal;
  /** The latest progress, written with the next lease renewal. */
  progress(p: unknown): void;
  /** The work is done: stop renewing the lease (before recording the result). */
  settle(): Promise<void>;
  /** Write the latest progress now (before a final write that merges it). */
  flush(): Promise<void>;
  /** True once the lease is lost: write nothing more. */
  lost(): boolean;
  /** Count something this worker did (`worker.counts`: tests, the CLI). */
  count(what: string, n?: number): void;
  /** Hand new jobs of this kind to the workers (a task-level chain's next attempt). */
  enqueue(ids: string[]): Promise<void>;
  /**
   * The part of this job that needs a slot is over (an experiment attempt: its MAS exited); what
   * is left (evaluation, storing, recording) runs on while the polling loop claims the next job.
   * At most `concurrency` handed-off jobs run besides the `concurrency` others. Idempotent.
   */
  handOff(): void;
}

/** One kind of background job: its rows' lease operations (lib/db) and its handler. */
export interface JobKind<J extends { id: string } = { id: string }> {
  name: JobKindName;
  /** Log prefix, e.g. "replay", "attempt", "repair-search". */
  label: string;
  /** What a released job becomes, for the log ("interrupted", "released"). */
  released: string;
  /** pg-boss queue: name, policy, job expiry. */
  queue: { name: string; policy: "short" | "stately"; expireInSeconds: number };
  /** Default lease length (a job without renewal for this long is its dead worker's). */
  leaseMs: number;
  /** Default renewal and cancel-poll intervals (else leaseMs / 3). */
  renewMs?: number;
  controlPollMs?: number;
  /** A cancel aborts the handler ("abort") or only fires ctx.cancelled ("soft"). */
  cancel: "abort" | "soft";
  claim(db: Db, id: string, owner: string, leaseMs: number): Promise<J | null>;
  claimNext(db: Db, owner: string, leaseMs: number): Promise<J | null>;
  /** Ids to (re)send to the queue: queued ones older than `olderThanMs`, expired ones to take over. */
  claimable(db: Db, o: { olderThanMs: number }): Promise<string[]>;
  /** Extend the lease (saving `progress` when given): owned, and whether a cancel (or stop) was requested. */
  renew(db: Db, id: string, owner: string, leaseMs: number, progress: unknown): Promise<{ owned: boolean; cancel: boolean }>;
  /** A cheap read of the cancel flag between renewals (kinds without one wait for the renewal). */
  control?(db: Db, id: string): Promise<{ cancel: boolean }>;
  /** Give a held job back (shutdown): queued again, or interrupted for kinds without takeover. */
  release(db: Db, id: string, owner: string, reason: string): Promise<boolean>;
  /** Close what dead workers left; ids changed. */
  sweep(db: Db, leaseMs: number): Promise<string[]>;
  /** Ids of running jobs `owner` holds. */
  held(db: Db, owner: string): Promise<string[]>;
  /** Loaded before the first claim (e.g. the method registry); a failure keeps the worker idle. */
  prepare?(): Promise<void>;
  /** Run one claimed job to the end and record it (only while the lease is held). */
  run(job: J, ctx: JobContext): Promise<void>;
}

export interface JobWorkerOptions {
  db: Db;
  /** Stable name of this worker in the rows (default host:pid:random). */
  workerId?: string;
  /** Jobs run at once (default 1). */
  concurrency?: number;
  /** Lease length (default the kind's). */
  leaseMs?: number;
  /** Lease renewal + progress save interval (default leaseMs / 3). */
  renewMs?: number;
  /** Cancel poll between renewals (kinds with `control`; default renewMs). */
  controlPollMs?: number;
  /** Polling loop: wait between empty polls (default 1000 ms). */
  idlePollMs?: number;
  /** One line per job event (default stderr). */
  log?: (line: string) => void;
  /** New jobs of this kind created by a handler (default: wake this worker). */
  enqueue?: (ids: string[]) => Promise<void>;
}

/** Default worker id: host:pid:random (unique across machines and restarts). */
export function newWorkerId(prefix = ""): string {
  return `${prefix}${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** First line of an error's message. */
export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0];

interface Execution {
  controller: AbortController;
  done: Promise<void>;
}

export class JobWorker<J extends { id: string } = { id: string }> {
  readonly id: string;
  readonly db: Db;
  readonly kind: JobKind<J>;
  /** What the handlers counted (`ctx.count`), e.g. recorded attempts, saved iterations. */
  readonly counts: Record<string, number> = {};
  private readonly o: Required<Omit<JobWorkerOptions, "db" | "workerId" | "enqueue">> & { enqueue?: (ids: string[]) => Promise<void> };
  private readonly active = new Map<string, Execution>();
  /** Ids of active jobs that gave their slot back (ctx.handOff). */
  private readonly handedOff = new Set<string>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private lastSweep = 0;

  constructor(kind: JobKind<J>, o: JobWorkerOptions) {
    this.kind = kind;
    this.db = o.db;
    this.id = o.workerId ?? newWorkerId();
    const leaseMs = o.leaseMs ?? kind.leaseMs;
    const renewMs = o.renewMs ?? kind.renewMs ?? Math.max(50, Math.floor(leaseMs / 3));
    this.o = {
      concurrency: Math.max(1, o.concurrency ?? 1),
      leaseMs,
      renewMs,
      controlPollMs: o.controlPollMs ?? kind.controlPollMs ?? renewMs,
      idlePollMs: o.idlePollMs ?? 1000,
      log: o.log ?? ((line) => process.stderr.write(line + "\n")),
      enqueue: o.enqueue,
    };
  }

  get stopped(): boolean {
    return this.stopping;
  }

  get leaseMs(): number {
    return this.o.leaseMs;
  }

  /** Ids of the jobs this worker runs now. */
  get activeIds(): string[] {
    return [...this.active.keys()];
  }

  /** Close what dead workers left (the kind's sweep). @returns ids changed */
  async sweep(): Promise<string[]> {
    this.lastSweep = Date.now();
    const ids = await this.kind.sweep(this.db, this.o.leaseMs);
    for (const id of ids) this.o.log(`${this.kind.label} ${id} closed by sweep (its worker stopped reporting) [${this.id}]`);
    return ids;
  }

  /** Sweep when the last sweep is older than half the lease. */
  async maybeSweep(): Promise<void> {
    if (Date.now() - this.lastSweep >= Math.max(1000, this.o.leaseMs / 2)) await this.sweep();
  }

  /** Claim the oldest claimable job and run it to the end. @returns its id, or null when none */
  async runNext(): Promise<string | null> {
    if (this.stopping) return null;
    await this.kind.prepare?.();
    const job = await this.kind.claimNext(this.db, this.id, this.o.leaseMs);
    if (!job) return null;
    await this.track(job);
    return job.id;
  }

  /**
   * Run one given job if it can still be claimed (a queue delivery; a duplicate delivery or a
   * final job is a no-op).
   * @returns true when this call ran it
   */
  async process(id: string): Promise<boolean> {
    if (this.stopping) return false;
    await this.kind.prepare?.();
    const job = await this.kind.claim(this.db, id, this.id, this.o.leaseMs);
    if (!job) return false;
    if (this.stopping) {
      // Stop began while the claim was in flight: give the job back at once.
      const ok = await this.kind.release(this.db, job.id, this.id, `worker ${this.id} shut down before starting it`).catch(() => false);
      if (ok) this.o.log(`${this.kind.label} ${job.id} ${this.kind.released} (worker shut down before starting it) [${this.id}]`);
      return false;
    }
    await this.track(job);
    return true;
  }

  /** Start the polling loop (idempotent): prepare, sweep, then claim while there is room, else wait. */
  start(): void {
    if (this.loop || this.stopping) return;
    this.loop = (async () => {
      try {
        await this.kind.prepare?.();
      } catch (e) {
        this.o.log(`${this.kind.name} worker ${this.id}: not taking jobs: ${errorText(e)}`);
        return;
      }
      while (!this.stopping) {
        try {
          await this.maybeSweep();
          if (this.hasRoom()) {
            const job = await this.kind.claimNext(this.db, this.id, this.o.leaseMs);
            if (job) {
              void this.track(job);
              continue;
            }
          }
        } catch (e) {
          this.o.log(`${this.kind.name} worker ${this.id}: ${errorText(e)}`);
        }
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, this.o.idlePollMs);
          this.wakeUp = done;
          function done() {
            clearTimeout(t);
            resolve();
          }
        });
        this.wakeUp = null;
      }
    })();
  }

  /** A slot is free: fewer than `concurrency` jobs hold one, and fewer than twice that run in all. */
  private hasRoom(): boolean {
    return this.active.size - this.handedOff.size < this.o.concurrency && this.active.size < 2 * this.o.concurrency;
  }

  /** Poll now instead of after idlePollMs (jobs were just queued in this process). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Stop: no new claims; running jobs get `graceMs` (default 5 s), then are aborted ("shutdown")
   * and released (kind.release). Resolves when this worker holds no job.
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.stopping = true;
    this.wake();
    const grace = o.graceMs ?? 5000;
    const all = () => Promise.all([...this.active.values()].map((x) => x.done));
    const finished = await Promise.race([all().then(() => true), sleep(grace).then(() => false)]);
    if (!finished) {
      for (const x of this.active.values()) if (!x.controller.signal.aborted) x.controller.abort("shutdown");
      // The handler gets a moment to wind down; the job is released either way.
      await Promise.race([all(), sleep(Math.min(2000, Math.max(200, grace / 2)))]);
    }
    await this.loop?.catch(() => {});
    // Whatever raced with the stop (a claim in flight, a late delivery, a handler still running).
    for (const id of await this.kind.held(this.db, this.id).catch(() => [] as string[])) {
      const ok = await this.kind.release(this.db, id, this.id, `worker ${this.id} shut down mid-run`).catch(() => false);
      if (ok) this.o.log(`${this.kind.label} ${id} ${this.kind.released} (worker shut down) [${this.id}]`);
    }
    // A handler that released its own job first is still finishing (its outcome line in the log):
    // let it, briefly, so a process that exits after stop() does not cut it off.
    await Promise.race([all(), sleep(2000)]);
  }

  private track(job: J): Promise<void> {
    const x: Execution = { controller: new AbortController(), done: Promise.resolve() };
    x.done = this.execute(job, x.controller)
      .catch((e) => this.o.log(`${this.kind.label} ${job.id}: ${errorText(e)} [${this.id}]`))
      .finally(() => {
        this.active.delete(job.id);
        this.handedOff.delete(job.id);
        this.wake();
      });
    this.active.set(job.id, x);
    return x.done;
  }

  /** Run the handler with the lease kept alive: renewal + progress, cancel, lost lease. */
  private async execute(job: J, controller: AbortController): Promise<void> {
    const { kind, db } = this;
    const cancelled = new AbortController();
    let progress: unknown = null;
    let dirty = false;
    let lost = false;
    let lastRenew = Date.now();
    const onCancel = () => {
      if (!cancelled.signal.aborted) cancelled.abort("cancel");
      if (kind.cancel === "abort" && !controller.signal.aborted) controller.abort("cancel");
    };
    const renew = async () => {
      lastRenew = Date.now();
      const p = dirty ? progress : null;
      dirty = false;
      const r = await kind.renew(db, job.id, this.id, this.o.leaseMs, p);
      if (!r.owned) {
        lost = true;
        if (!controller.signal.aborted) controller.abort("lost-lease");
      } else if (r.cancel) onCancel();
    };
    const tick = async () => {
      try {
        if (Date.now() - lastRenew >= this.o.renewMs || !kind.control) await renew();
        else if ((await kind.control(db, job.id)).cancel) onCancel();
      } catch (e) {
        this.o.log(`${kind.label} ${job.id}: lease renewal failed: ${errorText(e)}`);
      }
    };
    let busy: Promise<void> | null = null;
    const timer = setInterval(
      () => {
        if (!busy) busy = tick().finally(() => (busy = null));
      },
      kind.control ? Math.min(this.o.controlPollMs, this.o.renewMs) : this.o.renewMs,
    );
    const settle = async () => {
      clearInterval(timer);
      await busy;
    };
    const ctx: JobContext = {
      db,
      workerId: this.id,
      leaseMs: this.o.leaseMs,
      log: this.o.log,
      signal: controller.signal,
      cancelled: cancelled.signal,
      progress: (p) => {
        progress = p;
        dirty = true;
      },
      settle,
      flush: async () => {
        await busy;
        if (dirty) await renew().catch(() => {});
      },
      lost: () => lost,
      count: (what, n = 1) => {
        this.counts[what] = (this.counts[what] ?? 0) + n;
      },
      enqueue: async (ids) => {
        if (this.o.enqueue) await this.o.enqueue(ids);
        else this.wake();
      },
      handOff: () => {
        if (!this.active.has(job.id) || this.handedOff.has(job.id)) return;
        this.handedOff.add(job.id);
        this.wake();
      },
    };
    try {
      await kind.run(job, ctx);
    } finally {
      await settle();
    }
  }
}
