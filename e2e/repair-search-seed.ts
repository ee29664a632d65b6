/**
 * Seeding for e2e/repair-search.spec.ts through lib/db/repair-searches.ts, the worker's own path:
 * createRepairSearch → claimRepairSearch (the test is the worker, with a long lease) →
 * saveRepairSearchState after an iteration → finishRepairSearch. No MAS, selector or judge runs:
 * the test stores the hand-built states of lib/testing/repair-tree.ts.
 */
import { claimRepairSearch, createRepairSearch, finishRepairSearch, saveRepairSearchState, type Db, type RepairSearchSettings } from "../lib/db";
import type { SearchState } from "../lib/repair-search";

export const E2E_WORKER = "e2e-repair-search";
const LEASE_MS = 10 * 60_000;

/** A queued search of the source case, claimed by the test and holding `state` after its 4th iteration. */
export async function seedRunningSearch(db: Db, o: { sourceCaseId: string; state: SearchState; nodeCases: Record<string, string> }): Promise<string> {
  const settings: RepairSearchSettings = {
    upstream: "http://127.0.0.1:9/v1",
    toolUpstream: null,
    model: null,
    selector: { upstream: "http://127.0.0.1:9/v1", model: "scripted" },
    judge: { kind: "llm", upstream: "http://127.0.0.1:9/v1", model: "scripted" },
    evaluator: null,
    search: o.state.settings,
    seed: 7,
    maxCalls: null,
    maxTokens: null,
    command: null,
  };
  // Reserved for this test's runner: the app's embedded worker (running from boot) never claims it.
  const v = await createRepairSearch(db, { sourceCaseId: o.sourceCaseId, settings, runner: E2E_WORKER });
  const claimed = await claimRepairSearch(db, v.id, E2E_WORKER, LEASE_MS, { runner: E2E_WORKER });
  if (!claimed) throw new Error(`could not claim repair search ${v.id} (another worker took it?)`);
  if (!(await saveRepairSearchState(db, v.id, E2E_WORKER, { state: o.state, nodeCases: { n0: o.sourceCaseId, ...o.nodeCases } }))) throw new Error(`could not save the state of ${v.id}`);
  return v.id;
}

/** Store the next iteration's state; with `status` the search is finished too. */
export async function storeNextIteration(db: Db, id: string, o: { state: SearchState; nodeCases: Record<string, string>; status?: "completed" | "failed" | "cancelled" }): Promise<void> {
  const nodeCases = { n0: (await db.repairSearch.findUniqueOrThrow({ where: { id }, select: { sourceCaseId: true } })).sourceCaseId, ...o.nodeCases };
  if (!(await saveRepairSearchState(db, id, E2E_WORKER, { state: o.state, nodeCases }))) throw new Error(`could not save the state of ${id}`);
  if (o.status && !(await finishRepairSearch(db, id, E2E_WORKER, { status: o.status, state: o.state, nodeCases, bestNodeId: o.state.bestId, passed: null }))) throw new Error(`could not finish ${id}`);
}
