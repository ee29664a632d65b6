/**
 * Job kind "repair-search" (issue 15 item 3): one RepairSearch row (lib/db/repair-searches.ts) =
 * one search-based repair (MARS, seeds/002 Algorithm 1) = one job, resumable. An expiry lease; a
 * worker that dies (SIGKILL) stops renewing, and after the lease expires another worker takes the
 * search over from its last saved iteration (claims + 1; after MAX_REPAIR_SEARCH_CLAIMS the sweep
 * marks it interrupted).
 *
 * Handler: frozen settings, source bundle exported from the database, MAS = the frozen command or
 * the bundle's registered runner → a scratch directory holding the node bundles → **resume**: when
 * the row has a saved SearchState, every bundle its nodes refer to is exported from its Case
 * (nodeCases) into the scratch directory and the search continues from that state (a finished
 * iteration is never redone); else a new search from the root (the source) → one `iterate` at a
 * time; after EVERY iteration each new node's bundle is imported as a Case
 * (`<source bundle id>~mars-<search id>/<node id>`, its `parent` = the bundle it was replayed from)
 * and the state + nodeCases are saved (lease-checked) → at the end the ground-truth evaluator runs
 * once, on the best trajectory only → finish (completed | cancelled | failed).
 *
 * Cancel (`ctx.cancelled`, seen at each lease renewal) stops the search before its next iteration
 * (the current one completes and is saved). Shutdown aborts the running iteration after the grace,
 * does not save it, and releases the search (queued, state kept).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ReplayBundle } from "../../bundle";
import type { Db } from "../../db/client";
import { exportBundle, importCase } from "../../db/cases";
import { listHeld } from "../../db/leases";
import {
  claimNextRepairSearch,
  claimRepairSearch,
  finishRepairSearch,
  listClaimableRepairSearchIds,
  releaseRepairSearch,
  renewRepairSearchLease,
  REPAIR_SEARCH_LEASE,
  saveRepairSearchState,
  sweepRepairSearches,
  type RepairSearchView,
} from "../../db/repair-searches";
import { createSearch, iterate, searchFailure, totalUsage, type SearchState } from "../../repair-search";
import type { RegisteredRunner } from "../../services/runners";
import { JOB_QUEUES } from "../backends";
import { errorText, type JobContext, type JobKind } from "../job-worker";

/** The environment module (lib/services/repair-search/environment.ts), loaded on first use. */
type EnvModule = typeof import("../../services/repair-search/environment");
let envModule: Promise<EnvModule> | null = null;
const environment = () => (envModule ??= import("../../services/repair-search/environment"));

export const REPAIR_SEARCH_QUEUE = JOB_QUEUES["repair-search"].name;
export const DEFAULT_REPAIR_SEARCH_LEASE_MS = 30_000;

export interface RepairSearchKindOptions {
  /** Registered runners (default: this server's registry). */
  runners?: readonly RegisteredRunner[];
  /** Per replay / chat call limit of the environment (ms; default its own). */
  timeoutMs?: number;
}

/** Bundle id of a search's tree node: `<source bundle id>~mars-<search id>/<node id>`. */
export function searchNodeBundleId(sourceBundleId: string, searchId: string, nodeId: string): string {
  return `${searchScope(sourceBundleId, searchId)}/${nodeId}`;
}
function searchScope(sourceBundleId: string, searchId: string): string {
  return `${sourceBundleId}~mars-${searchId}`;
}

/** The repair-search job kind. */
export function repairSearchKind(o: RepairSearchKindOptions = {}): JobKind<RepairSearchView> {
  return {
    name: "repair-search",
    label: "repair-search",
    released: "released",
    queue: JOB_QUEUES["repair-search"],
    leaseMs: DEFAULT_REPAIR_SEARCH_LEASE_MS,
    cancel: "soft",
    claim: (db, id, owner, leaseMs) => claimRepairSearch(db, id, owner, leaseMs),
    claimNext: (db, owner, leaseMs) => claimNextRepairSearch(db, owner, leaseMs),
    claimable: (db, c) => listClaimableRepairSearchIds(db, { olderThanMs: c.olderThanMs }),
    renew: async (db, id, owner, leaseMs) => {
      const r = await renewRepairSearchLease(db, id, owner, leaseMs);
      return { owned: r.owned, cancel: r.cancel };
    },
    release: (db, id, owner) => releaseRepairSearch(db, id, owner),
    sweep: (db) => sweepRepairSearches(db),
    held: (db, owner) => listHeld(db, REPAIR_SEARCH_LEASE, owner),
    run: (v, ctx) => runSearch(v, ctx, o),
  };
}

async function runSearch(v: RepairSearchView, ctx: JobContext, o: RepairSearchKindOptions): Promise<void> {
  const t0 = Date.now();
  const label = `repair-search ${v.id}`;
  const { db, signal: hard, leaseMs } = ctx;
  const soft = new AbortController(); // cancel: stop before the next iteration
  const cancel = () => {
    if (!soft.signal.aborted) soft.abort("cancel");
  };
  ctx.cancelled.addEventListener("abort", cancel);
  let lost = false;
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-mars-job-"));
  let state: SearchState | null = v.state;
  const nodeCases: Record<string, string> = { ...v.nodeCases, n0: v.sourceCaseId };
  try {
    const s = v.settings;
    const source = await exportBundle(db, { caseId: v.sourceCaseId });
    if (!source) throw new Error(`source case ${v.sourceCaseId} no longer exists`);
    let runner: RegisteredRunner | null = null;
    if (!s.command?.length) {
      const { loadRunnerRegistry, planReplay } = await import("../../services/runners");
      const plan = planReplay(source, o.runners ?? loadRunnerRegistry());
      if (!plan.runner) throw new Error(`no MAS to run the search with: ${plan.reason}`);
      runner = plan.runner;
    }
    const mod = await environment();
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
      timeoutMs: o.timeoutMs,
      signal: hard,
    });
    const root = env.rootState(source);
    if (state) {
      // Resume: put every bundle the saved nodes refer to back into the scratch directory.
      await restoreBundles(db, state, nodeCases, dir, mod.parseStateRef);
      // Cases a dead worker imported for an iteration it never saved: not part of the tree (never annotated or replayed).
      const orphans = await db.case.deleteMany({
        where: { bundleId: { startsWith: `${scope}/` }, id: { notIn: Object.values(nodeCases) }, annotations: { none: {} }, replayRuns: { none: {} }, assignments: { none: {} } },
      });
      if (orphans.count) ctx.log(`${label}: removed ${orphans.count} case(s) of an unsaved iteration [${ctx.workerId}]`);
      ctx.log(`${label} resumed at iteration ${state.iteration} (${state.order.length} nodes) [${ctx.workerId}]`);
    } else {
      state = createSearch(root, s.search);
      if (!(await saveRepairSearchState(db, v.id, ctx.workerId, { state, nodeCases }, leaseMs))) lost = true;
      ctx.log(`${label} started (${state.settings.iterations} iterations) [${ctx.workerId}]`);
    }

    while (!state.stopped && !lost && !ctx.lost() && !hard.aborted) {
      const before = state.order.length;
      await iterate(state, env, { signal: soft.signal });
      if (hard.aborted || ctx.lost()) break; // the iteration was cut short: not saved
      // Still the holder? (A worker that lost the search imports nothing: no stray cases.)
      const held = await renewRepairSearchLease(db, v.id, ctx.workerId, leaseMs);
      if (!held.owned) {
        lost = true;
        break;
      }
      if (held.cancel) cancel();
      for (const id of state.order.slice(before)) {
        const n = state.nodes[id];
        if (!n.state) continue;
        const ref = mod.parseStateRef(n.state.stateRef);
        if (ref.cut === null) {
          const b = env.bundleOf(n.state.stateRef);
          const imported = await importCase(db, { bundle: b, source: { dataset: "replay" as never, file: scope, recordKey: id } });
          nodeCases[id] = imported.caseId;
        } else {
          const owner = ref.file.replace(/\.bundle\.json$/, "");
          if (nodeCases[owner]) nodeCases[id] = nodeCases[owner];
        }
      }
      if (!(await saveRepairSearchState(db, v.id, ctx.workerId, { state, nodeCases }, leaseMs))) {
        lost = true;
        break;
      }
      const last = state.nodes[state.order[state.order.length - 1]];
      if (state.order.length > before) {
        ctx.count("iterations");
        ctx.log(
          `${label} iteration ${state.iteration} node ${last.id} ${last.action?.kind ?? "-"} score=${last.verdict?.score ?? 0}${last.error ? " error" : ""} [${ctx.workerId}]`,
        );
      }
    }

    if (lost || ctx.lost()) {
      ctx.log(`${label} lost its lease; stopped without writing [${ctx.workerId}]`);
      return;
    }
    if (hard.aborted) {
      await releaseRepairSearch(db, v.id, ctx.workerId).catch(() => false);
      ctx.log(`${label} released at iteration ${state.iteration} (worker shut down) [${ctx.workerId}]`);
      return;
    }

    // Every node failed: the search failed (with the first error), it did not complete.
    const failure = state.stopped === "cancelled" ? null : searchFailure(state);
    // The ground-truth evaluator: once, on the best trajectory only (none when every node failed).
    const best = state.nodes[state.bestId];
    let passed: boolean | null = null;
    let evaluation: unknown = null;
    if (s.evaluator && state.stopped !== "cancelled" && !failure && best.state) {
      const { evaluateReplay } = await import("../../services/replay-evaluate");
      const ref = mod.parseStateRef(best.state.stateRef);
      const view = mod.trajectoryView(env.bundleOf(best.state.stateRef), ref.cut);
      const out = await evaluateReplay({ ...view, task: { ...view.task, prompt: source.task.prompt } } as ReplayBundle, s.evaluator, { timeoutMs: o.timeoutMs });
      passed = out?.passed ?? null;
      evaluation = { node: best.id, caseId: nodeCases[best.id] ?? null, cut: ref.cut, passed, details: out?.details ?? null };
    }
    const status = state.stopped === "cancelled" ? "cancelled" : failure ? "failed" : "completed";
    const ok = await finishRepairSearch(db, v.id, ctx.workerId, { status, state, nodeCases, bestNodeId: best.id, passed, evaluation, ...(failure ? { error: failure } : {}) });
    const t = totalUsage(state);
    ctx.log(
      `${label} ${ok ? status : `${status} (not recorded: lease lost)`} stopped=${state.stopped} iterations=${state.iteration} nodes=${state.order.length} best=${best.id} score=${best.verdict?.score ?? 0} passed=${passed} calls=${t.calls} tokens=${t.tokens} ${((Date.now() - t0) / 1000).toFixed(1)}s [${ctx.workerId}]`,
    );
  } catch (e) {
    if (hard.aborted && hard.reason === "shutdown") {
      await releaseRepairSearch(db, v.id, ctx.workerId).catch(() => false);
      ctx.log(`${label} released (worker shut down) [${ctx.workerId}]`);
      return;
    }
    if (lost || ctx.lost()) return;
    const ok = await finishRepairSearch(db, v.id, ctx.workerId, { status: "failed", error: errorText(e), ...(state ? { state, nodeCases } : {}) }).catch(() => false);
    ctx.log(`${label} failed${ok ? "" : " (not recorded)"}: ${errorText(e)} [${ctx.workerId}]`);
  } finally {
    await ctx.settle();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Export the bundle of every saved node whose state is its own file (`<node id>.bundle.json`) from its Case. */
async function restoreBundles(db: Db, state: SearchState, nodeCases: Record<string, string>, dir: string, parseStateRef: EnvModule["parseStateRef"]): Promise<void> {
  const files = new Set<string>();
  for (const id of state.order) {
    const ref = state.nodes[id].state?.stateRef;
    if (ref) files.add(parseStateRef(ref).file);
  }
  files.delete("n0.bundle.json"); // written by rootState
  for (const file of files) {
    const nodeId = file.replace(/\.bundle\.json$/, "");
    const caseId = nodeCases[nodeId];
    const b = caseId ? await exportBundle(db, { caseId }) : null;
    if (!b) throw new Error(`cannot resume: the bundle of tree node ${nodeId} (${file}) is not stored (nodeCases has ${caseId ?? "no case"})`);
    writeFileSync(path.join(dir, file), JSON.stringify(b));
  }
}
