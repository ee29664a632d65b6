/**
 * RepairSearchWorker: runs search-based repairs (MARS, seeds/002 Algorithm 1; issue 15 item 3) as
 * jobs — one RepairSearch row (lib/db/repair-searches.ts) = one search = one job. Like the other
 * workers the row is the truth: a conditional claim with a lease decides who runs a search, the
 * lease is renewed while it runs, and only the lease holder writes.
 *
 * Per search: claim → frozen settings, source bundle exported from the database, MAS = the frozen
 * command or the bundle's registered runner → a scratch directory holding the node bundles →
 * **resume**: when the row has a saved SearchState, every bundle its nodes refer to is exported
 * from its Case (nodeCases) into the scratch directory and the search continues from that state
 * (a finished iteration is never redone); else a new search from the root (the source) → one
 * `iterate` at a time; after EVERY iteration each new node's bundle is imported as a Case
 * (`<source bundle id>~mars-<search id>/<node id>`, its `parent` = the bundle it was replayed
 * from) and the state + nodeCases are saved (lease-checked) → at the end the ground-truth
 * evaluator runs once, on the best trajectory only → finish (completed | cancelled | failed).
 *
 * Cancel (cancelRequested, seen at each lease renewal) stops the search before its next iteration
 * (the current one completes and is saved). Budget: the frozen maxCalls / maxTokens are the core's
 * budget (stops as "budget"). Shutdown (SIGTERM) aborts the running iteration after `graceMs`, does
 * not save it, and releases the search (queued, state kept) for any worker to resume. A worker that
 * dies (SIGKILL) stops renewing; after the lease expires another worker takes the search over from
 * its last saved iteration (claims + 1; after MAX_REPAIR_SEARCH_CLAIMS it is marked interrupted).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ReplayBundle } from "../bundle";
import type { Db } from "../db/client";
import { exportBundle, importCase } from "../db/cases";
import {
  claimNextRepairSearch,
  claimRepairSearch,
  finishRepairSearch,
  releaseRepairSearch,
  renewRepairSearchLease,
  saveRepairSearchState,
  sweepRepairSearches,
  type RepairSearchView,
} from "../db/repair-searches";
import { createSearch, iterate, searchFailure, totalUsage, type SearchState } from "../repair-search";
import type { RegisteredRunner } from "../services/runners";
import { newWorkerId } from "./worker";

/** The environment module (lib/services/repair-search/environment.ts), loaded on first use. */
type EnvModule = typeof import("../services/repair-search/environment");

export interface RepairSearchWorkerOptions {
  db: Db;
  workerId?: string;
  /** Searches run at once (default 1). */
  concurrency?: number;
  /** Lease length (default 30 s); renewed every leaseMs / 3. */
  leaseMs?: number;
  /** Polling loop: wait between empty polls (default 1000 ms). */
  idlePollMs?: number;
  /** Registered runners (default: this server's registry). */
  runners?: readonly RegisteredRunner[];
  /** Per replay / chat call limit of the environment (ms; default its own). */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export const DEFAULT_REPAIR_SEARCH_LEASE_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0];

/** Bundle id of a search's tree node: `<source bundle id>~mars-<search id>/<node id>`. */
export function searchNodeBundleId(sourceBundleId: string, searchId: string, nodeId: string): string {
  return `${searchScope(sourceBundleId, searchId)}/${nodeId}`;
}
function searchScope(sourceBundleId: string, searchId: string): string {
  return `${sourceBundleId}~mars-${searchId}`;
}

interface Execution {
  searchId: string;
  /** Aborts the running replay / chat call (shutdown, lost lease): that iteration is not saved. */
  hard: AbortController;
  done: Promise<void>;
}

export class RepairSearchWorker {
  readonly id: string;
  readonly db: Db;
  private readonly o: RepairSearchWorkerOptions & { concurrency: number; leaseMs: number; idlePollMs: number; log: (l: string) => void };
  private readonly active = new Map<string, Execution>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private lastSweep = 0;
  private envModule: Promise<EnvModule> | null = null;
  /** Iterations this worker ran and saved (tests). */
  iterations = 0;

  constructor(o: RepairSearchWorkerOptions) {
    this.db = o.db;
    this.id = o.workerId ?? newWorkerId("mars:");
    this.o = {
      ...o,
      concurrency: Math.max(1, o.concurrency ?? 1),
      leaseMs: o.leaseMs ?? DEFAULT_REPAIR_SEARCH_LEASE_MS,
      idlePollMs: o.idlePollMs ?? 1000,
      log: o.log ?? ((line) => process.stderr.write(line + "\n")),
    };
  }

  get stopped(): boolean {
    return this.stopping;
  }

  get activeSearchIds(): string[] {
    return [...this.active.keys()];
  }

  /** sweepRepairSearches: searches whose worker died too often → interrupted; cancelled ones whose worker died → cancelled. */
  async sweep(): Promise<string[]> {
    this.lastSweep = Date.now();
    const ids = await sweepRepairSearches(this.db);
    for (const id of ids) this.o.log(`repair-search ${id} closed by sweep [${this.id}]`);
    return ids;
  }

  /**
   * Run one given search if it can be claimed (a pg-boss delivery; a duplicate or a final search is a no-op).
   * @returns true when this call ran it
   */
  async processSearch(searchId: string): Promise<boolean> {
    if (this.stopping) return false;
    const v = await claimRepairSearch(this.db, searchId, this.id, this.o.leaseMs);
    if (!v) return false;
    await this.track(v);
    return true;
  }

  /** Claim the oldest claimable search and run it to the end. @returns its id, or null */
  async runNext(): Promise<string | null> {
    if (this.stopping) return null;
    const v = await claimNextRepairSearch(this.db, this.id, this.o.leaseMs);
    if (!v) return null;
    await this.track(v);
    return v.id;
  }

  /** Polling loop (idempotent): sweep, then claim while there is room, else wait idlePollMs. */
  start(): void {
    if (this.loop || this.stopping) return;
    this.loop = (async () => {
      while (!this.stopping) {
        try {
          if (Date.now() - this.lastSweep >= Math.max(1000, this.o.leaseMs / 2)) await this.sweep();
          if (this.active.size < this.o.concurrency) {
            const v = await claimNextRepairSearch(this.db, this.id, this.o.leaseMs);
            if (v) {
              void this.track(v);
              continue;
            }
          }
        } catch (e) {
          this.o.log(`repair-search worker ${this.id}: ${errorText(e)}`);
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

  /** Poll now (a search was just queued in this process). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Stop: no new claims; running searches get `graceMs` (default 5 s) to finish, then their
   * iteration is aborted (not saved) and they are released (queued, state kept).
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.stopping = true;
    this.wake();
    const grace = o.graceMs ?? 5000;
    const all = () => Promise.all([...this.active.values()].map((x) => x.done));
    const finished = await Promise.race([all().then(() => true), sleep(grace).then(() => false)]);
    if (!finished) {
      for (const x of this.active.values()) if (!x.hard.signal.aborted) x.hard.abort("shutdown");
      await Promise.race([all(), sleep(Math.min(2000, Math.max(200, grace / 2)))]);
    }
    await this.loop?.catch(() => {});
    const mine = await this.db.repairSearch.findMany({ where: { status: "running", workerId: this.id }, select: { id: true } }).catch(() => []);
    for (const r of mine) await releaseRepairSearch(this.db, r.id, this.id).catch(() => false);
  }

  private environment(): Promise<EnvModule> {
    this.envModule ??= import("../services/repair-search/environment");
    return this.envModule;
  }

  private track(v: RepairSearchView): Promise<void> {
    const x: Execution = { searchId: v.id, hard: new AbortController(), done: Promise.resolve() };
    x.done = this.execute(v, x.hard)
      .catch((e) => this.o.log(`repair-search ${v.id}: ${errorText(e)} [${this.id}]`))
      .finally(() => {
        this.active.delete(v.id);
        this.wake();
      });
    this.active.set(v.id, x);
    return x.done;
  }

  private async execute(v: RepairSearchView, hard: AbortController): Promise<void> {
    const t0 = Date.now();
    const label = `repair-search ${v.id}`;
    const soft = new AbortController(); // cancel: stop before the next iteration
    let lost = false;
    let busy: Promise<void> | null = null;
    const renew = async () => {
      try {
        const r = await renewRepairSearchLease(this.db, v.id, this.id, this.o.leaseMs);
        if (!r.owned) {
          lost = true;
          if (!hard.signal.aborted) hard.abort("lost-lease");
        } else if (r.cancel && !soft.signal.aborted) soft.abort("cancel");
      } catch (e) {
        this.o.log(`${label}: lease renewal failed: ${errorText(e)}`);
      }
    };
    const timer = setInterval(() => {
      if (!busy) busy = renew().finally(() => (busy = null));
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)));
    if (v.cancelRequested) soft.abort("cancel");

    const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-mars-job-"));
    let state: SearchState | null = v.state;
    const nodeCases: Record<string, string> = { ...v.nodeCases, n0: v.sourceCaseId };
    try {
      const s = v.settings;
      const source = await exportBundle(this.db, { caseId: v.sourceCaseId });
      if (!source) throw new Error(`source case ${v.sourceCaseId} no longer exists`);
      let runner: RegisteredRunner | null = null;
      if (!s.command?.length) {
        const { loadRunnerRegistry, planReplay } = await import("../services/runners");
        const plan = planReplay(source, this.o.runners ?? loadRunnerRegistry());
        if (!plan.runner) throw new Error(`no MAS to run the search with: ${plan.reason}`);
        runner = plan.runner;
      }
      const mod = await this.environment();
      const scope = searchScope(source.id, v.id);
      const env = mod.createReplaySearchEnvironment({
        outDir: dir,
        searchId: scope,
        task: source.task.prompt,
        upstream: s.upstream,
        toolUpstream: s.toolUpstream,
        model: s.model,
        command: s.command?.length ? s.command : null,
        runner,
        attemptSeed: s.seed,
        selector: { upstream: s.selector.upstream, model: s.selector.model, seed: s.seed },
        judge: s.judge.kind === "command" ? { kind: "command", command: s.judge.cmd } : { kind: "llm", upstream: s.judge.upstream, model: s.judge.model, seed: s.seed },
        timeoutMs: this.o.timeoutMs,
        signal: hard.signal,
      });
      const root = env.rootState(source);
      if (state) {
        // Resume: put every bundle the saved nodes refer to back into the scratch directory.
        await this.restoreBundles(state, nodeCases, dir, mod.parseStateRef);
        // Cases a dead worker imported for an iteration it never saved: not part of the tree (never annotated or replayed).
        const orphans = await this.db.case.deleteMany({
          where: { bundleId: { startsWith: `${scope}/` }, id: { notIn: Object.values(nodeCases) }, annotations: { none: {} }, replayRuns: { none: {} }, assignments: { none: {} } },
        });
        if (orphans.count) this.o.log(`${label}: removed ${orphans.count} case(s) of an unsaved iteration [${this.id}]`);
        this.o.log(`${label} resumed at iteration ${state.iteration} (${state.order.length} nodes) [${this.id}]`);
      } else {
        state = createSearch(root, s.search);
        if (!(await saveRepairSearchState(this.db, v.id, this.id, { state, nodeCases }, this.o.leaseMs))) lost = true;
        this.o.log(`${label} started (${state.settings.iterations} iterations) [${this.id}]`);
      }

      while (!state.stopped && !lost && !hard.signal.aborted) {
        const before = state.order.length;
        await iterate(state, env, { signal: soft.signal });
        if (hard.signal.aborted || lost) break; // the iteration was cut short: not saved
        // Still the holder? (A worker that lost the search imports nothing: no stray cases.)
        const held = await renewRepairSearchLease(this.db, v.id, this.id, this.o.leaseMs);
        if (!held.owned) {
          lost = true;
          break;
        }
        if (held.cancel && !soft.signal.aborted) soft.abort("cancel");
        for (const id of state.order.slice(before)) {
          const n = state.nodes[id];
          if (!n.state) continue;
          const ref = mod.parseStateRef(n.state.stateRef);
          if (ref.cut === null) {
            const b = env.bundleOf(n.state.stateRef);
            const imported = await importCase(this.db, { bundle: b, source: { dataset: "replay" as never, file: scope, recordKey: id } });
            nodeCases[id] = imported.caseId;
          } else {
            const owner = ref.file.replace(/\.bundle\.json$/, "");
            if (nodeCases[owner]) nodeCases[id] = nodeCases[owner];
          }
        }
        if (!(await saveRepairSearchState(this.db, v.id, this.id, { state, nodeCases }, this.o.leaseMs))) {
          lost = true;
          break;
        }
        const last = state.nodes[state.order[state.order.length - 1]];
        if (state.order.length > before) {
          this.iterations++;
          this.o.log(
            `${label} iteration ${state.iteration} node ${last.id} ${last.action?.kind ?? "-"} score=${last.verdict?.score ?? 0}${last.error ? " error" : ""} [${this.id}]`,
          );
        }
      }

      if (lost) {
        this.o.log(`${label} lost its lease; stopped without writing [${this.id}]`);
        return;
      }
      if (hard.signal.aborted) {
        await releaseRepairSearch(this.db, v.id, this.id).catch(() => false);
        this.o.log(`${label} released at iteration ${state.iteration} (worker shut down) [${this.id}]`);
        return;
      }

      // Every node failed: the search failed (with the first error), it did not complete.
      const failure = state.stopped === "cancelled" ? null : searchFailure(state);
      // The ground-truth evaluator: once, on the best trajectory only (none when every node failed).
      const best = state.nodes[state.bestId];
      let passed: boolean | null = null;
      let evaluation: unknown = null;
      if (s.evaluator && state.stopped !== "cancelled" && !failure && best.state) {
        const { evaluateReplay } = await import("../services/replay-evaluate");
        const ref = mod.parseStateRef(best.state.stateRef);
        const view = mod.trajectoryView(env.bundleOf(best.state.stateRef), ref.cut);
        const out = await evaluateReplay({ ...view, task: { ...view.task, prompt: source.task.prompt } } as ReplayBundle, s.evaluator, { timeoutMs: this.o.timeoutMs });
        passed = out?.passed ?? null;
        evaluation = { node: best.id, caseId: nodeCases[best.id] ?? null, cut: ref.cut, passed, details: out?.details ?? null };
      }
      const status = state.stopped === "cancelled" ? "cancelled" : failure ? "failed" : "completed";
      const ok = await finishRepairSearch(this.db, v.id, this.id, { status, state, nodeCases, bestNodeId: best.id, passed, evaluation, ...(failure ? { error: failure } : {}) });
      const t = totalUsage(state);
      this.o.log(
        `${label} ${ok ? status : `${status} (not recorded: lease lost)`} stopped=${state.stopped} iterations=${state.iteration} nodes=${state.order.length} best=${best.id} score=${best.verdict?.score ?? 0} passed=${passed} calls=${t.calls} tokens=${t.tokens} ${((Date.now() - t0) / 1000).toFixed(1)}s [${this.id}]`,
      );
    } catch (e) {
      if (hard.signal.aborted && hard.signal.reason === "shutdown") {
        await releaseRepairSearch(this.db, v.id, this.id).catch(() => false);
        this.o.log(`${label} released (worker shut down) [${this.id}]`);
        return;
      }
      if (lost) return;
      const ok = await finishRepairSearch(this.db, v.id, this.id, { status: "failed", error: errorText(e), ...(state ? { state, nodeCases } : {}) }).catch(() => false);
      this.o.log(`${label} failed${ok ? "" : " (not recorded)"}: ${errorText(e)} [${this.id}]`);
    } finally {
      clearInterval(timer);
      await busy;
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Export the bundle of every saved node whose state is its own file (`<node id>.bundle.json`) from its Case. */
  private async restoreBundles(state: SearchState, nodeCases: Record<string, string>, dir: string, parseStateRef: EnvModule["parseStateRef"]): Promise<void> {
    const files = new Set<string>();
    for (const id of state.order) {
      const ref = state.nodes[id].state?.stateRef;
      if (ref) files.add(parseStateRef(ref).file);
    }
    files.delete("n0.bundle.json"); // written by rootState
    for (const file of files) {
      const nodeId = file.replace(/\.bundle\.json$/, "");
      const caseId = nodeCases[nodeId];
      const b = caseId ? await exportBundle(this.db, { caseId }) : null;
      if (!b) throw new Error(`cannot resume: the bundle of tree node ${nodeId} (${file}) is not stored (nodeCases has ${caseId ?? "no case"})`);
      writeFileSync(path.join(dir, file), JSON.stringify(b));
    }
  }
}
