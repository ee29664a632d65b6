/**
 * Starting repair searches as jobs (issue 15 item 3), for the API and the CLI: the frozen settings
 * of a search from the server's environment plus the request's search parameters (never a command
 * or an endpoint from a request), and create + enqueue.
 *
 * Environment: SYMTRACE_REPLAY_UPSTREAM (required: the MAS's live endpoint), SYMTRACE_REPLAY_TOOL_UPSTREAM,
 * SYMTRACE_REPLAY_MODEL, SYMTRACE_REPLAY_EVALUATOR (ground truth, run once on the best trajectory);
 * the action selector at SYMTRACE_SEARCH_UPSTREAM (default SYMTRACE_REPLAY_UPSTREAM) with model
 * SYMTRACE_SEARCH_MODEL (default gpt-4o-mini); the judge: SYMTRACE_SEARCH_JUDGE_CMD (a command with
 * the evaluator's environment contract printing {score, failureMode, feedback}), else an LLM at
 * SYMTRACE_JUDGE_UPSTREAM (default the selector's) with SYMTRACE_JUDGE_MODEL (default the selector's model).
 */
import type { Db } from "../../db/client";
import { createRepairSearch, type RepairSearchSettings, type RepairSearchView } from "../../db/repair-searches";
import { enqueueJobs } from "../../jobs/backends";
import { resolveSettings, type SearchSettings } from "../../repair-search";

/** The search parameters a request may set (the rest comes from the server). */
export interface RepairSearchParams {
  iterations?: number;
  k?: number;
  l?: number;
  c?: number;
  maxDepth?: number;
  seed?: number | string | null;
  maxCalls?: number | null;
  maxTokens?: number | null;
}

/**
 * Frozen settings from `env` + `p` (lib/repair-search defaults for what `p` leaves out: C = 1.41,
 * K = 3, L = 4, D_max = 8, N_iter = 75).
 * @returns the settings, or `{ error }` naming the missing variable
 */
export function repairSearchSettingsFromEnv(p: RepairSearchParams, env: Record<string, string | undefined> = process.env, o: { command?: string[] | null } = {}): RepairSearchSettings | { error: string } {
  const upstream = env.SYMTRACE_REPLAY_UPSTREAM?.trim();
  if (!upstream) return { error: "repair searches need a live endpoint: set SYMTRACE_REPLAY_UPSTREAM" };
  const selectorUpstream = env.SYMTRACE_SEARCH_UPSTREAM?.trim() || upstream;
  const model = env.SYMTRACE_SEARCH_MODEL?.trim() || "gpt-4o-mini";
  const judgeCmd = env.SYMTRACE_SEARCH_JUDGE_CMD?.trim();
  const search: SearchSettings = resolveSettings({
    ...(p.iterations !== undefined ? { iterations: p.iterations } : {}),
    ...(p.k !== undefined ? { k: p.k } : {}),
    ...(p.l !== undefined ? { l: p.l } : {}),
    ...(p.c !== undefined ? { c: p.c } : {}),
    ...(p.maxDepth !== undefined ? { maxDepth: p.maxDepth } : {}),
    budget: { maxCalls: p.maxCalls ?? null, maxTokens: p.maxTokens ?? null },
  });
  return {
    upstream,
    toolUpstream: env.SYMTRACE_REPLAY_TOOL_UPSTREAM?.trim() || null,
    model: env.SYMTRACE_REPLAY_MODEL?.trim() || null,
    selector: { upstream: selectorUpstream, model },
    judge: judgeCmd ? { kind: "command", cmd: judgeCmd } : { kind: "llm", upstream: env.SYMTRACE_JUDGE_UPSTREAM?.trim() || selectorUpstream, model: env.SYMTRACE_JUDGE_MODEL?.trim() || model },
    evaluator: env.SYMTRACE_REPLAY_EVALUATOR?.trim() || null,
    search,
    seed: p.seed ?? Math.floor(Math.random() * 2 ** 31),
    maxCalls: p.maxCalls ?? null,
    maxTokens: p.maxTokens ?? null,
    command: o.command?.length ? o.command : null,
  };
}

/**
 * Queue a search (createRepairSearch) and hand it to the workers (enqueueJobs; if the
 * enqueue fails on PostgreSQL the search stays queued and a worker's maintenance re-sends it).
 * @throws RepairSearchDbError not-found | invalid
 */
export async function startRepairSearch(
  db: Db,
  input: { sourceCaseId: string; settings: RepairSearchSettings; createdById?: string | null },
  o: { url?: string } = {},
): Promise<RepairSearchView> {
  const v = await createRepairSearch(db, input);
  await enqueueJobs(db, "repair-search", [v.id], o).catch((e) => process.stderr.write(`enqueue failed (the search stays queued): ${(e as Error).message}\n`));
  return v;
}
