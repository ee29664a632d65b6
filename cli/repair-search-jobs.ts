/**
 * `symtrace repair-search start | show`: search-based repairs (MARS) as jobs in the database
 * (issue 15 item 3). The in-process form `symtrace repair-search <bundle> … --out <dir>` is
 * cli/repair-search.ts.
 *
 *   symtrace repair-search start --case <case id | bundle id> [--upstream <url>] [--tool-upstream <url>]
 *     [--judge-upstream <url> [--judge-model M] | --judge-cmd <cmd>] [--selector-upstream <url>] [--selector-model M]
 *     [--evaluator <cmd>] [--iterations N] [--k K] [--l L] [--seed S] [--max-calls N] [--max-tokens N] [-- <command...>]
 *   → {"id", "status": "queued", "sourceCaseId", "sourceBundleId"}; a worker (`npm run worker`,
 *     SYMTRACE_WORKER_KIND all | repair-search) runs it. Flags not given come from the server's
 *     environment (SYMTRACE_REPLAY_UPSTREAM, SYMTRACE_SEARCH_*, SYMTRACE_JUDGE_*, SYMTRACE_REPLAY_EVALUATOR;
 *     lib/services/repair-search/jobs.ts). The MAS is the command after `--`, else the case's registered runner.
 *   symtrace repair-search show <id>
 *   → {"id", "status", "stopped", "best": {"node", "bundle", "caseId", "cut", "score", "passed"},
 *      "iterations", "nodes", "calls": {"selector", "judge", "mas"}, "tokens": {"selector", "judge", "mas", "total"}, "error"}
 * Exit 0 ok; 1 not found / invalid input; 2 bad usage. DATABASE_URL selects the database.
 */
import type { RepairSearchView } from "../lib/db/repair-searches";
import { BadInput, Usage } from "./common";

type Result = { code: number; output: unknown };

export const REPAIR_SEARCH_START_USAGE =
  "symtrace repair-search start --case <case id|bundle id> [--upstream <url>] [--tool-upstream <url>] [--judge-upstream <url> [--judge-model M] | --judge-cmd <cmd>] [--selector-upstream <url>] [--selector-model M] [--evaluator <cmd>] [--iterations N] [--k K] [--l L] [--seed S] [--max-calls N] [--max-tokens N] [-- <command...>]";
export const REPAIR_SEARCH_SHOW_USAGE = "symtrace repair-search show <id>";

const START_FLAGS = ["--case", "--upstream", "--tool-upstream", "--judge-upstream", "--judge-model", "--judge-cmd", "--selector-upstream", "--selector-model", "--evaluator", "--iterations", "--k", "--l", "--seed", "--max-calls", "--max-tokens"];

function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Usage(`${name} must be a positive integer (got ${JSON.stringify(v)})`, name);
  return n;
}

function httpUrl(v: string | undefined, name: string): string | undefined {
  if (v === undefined) return undefined;
  try {
    const u = new URL(v);
    if (u.protocol === "http:" || u.protocol === "https:") return v;
  } catch {
    /* below */
  }
  throw new Usage(`${name} must be an http(s) URL (got ${JSON.stringify(v)})`, name);
}

async function openMigrated(url?: string) {
  const { openDb } = await import("../lib/db/client");
  const { migrate } = await import("../lib/db/migrate");
  const h = openDb(url);
  await migrate(h.url);
  return h;
}

/** The JSON object for a stored search (module doc). */
export async function showObject(db: import("../lib/db/client").Db, v: RepairSearchView): Promise<Record<string, unknown>> {
  const s = v.state;
  const u = v.usage;
  let best: Record<string, unknown> | null = null;
  if (v.best) {
    const ref = s?.nodes[v.best.nodeId]?.state?.stateRef ?? null;
    const cut = ref && ref.includes("#") ? ref.slice(ref.indexOf("#") + 1) : null;
    const c = v.best.caseId ? await db.case.findUnique({ where: { id: v.best.caseId }, select: { bundleId: true } }) : null;
    best = { node: v.best.nodeId, bundle: c?.bundleId ?? null, caseId: v.best.caseId, cut, score: v.best.score, passed: v.best.passed };
  }
  return {
    id: v.id,
    status: v.status,
    stopped: v.stopped,
    sourceCaseId: v.sourceCaseId,
    sourceBundleId: v.sourceBundleId,
    best,
    iterations: s?.iteration ?? 0,
    nodes: s?.order.length ?? 0,
    calls: { selector: u.selector.calls, judge: u.judge.calls, mas: u.mas.calls },
    tokens: { selector: u.selector.tokens, judge: u.judge.tokens, mas: u.mas.tokens, total: u.selector.tokens + u.judge.tokens + u.mas.tokens },
    error: v.error,
  };
}

/**
 * `repair-search start …` / `repair-search show <id>` (module doc).
 * @param o.url database URL (default DATABASE_URL / the embedded SQLite file)
 */
export async function repairSearchJobCommand(args: string[], o: { url?: string; env?: Record<string, string | undefined> } = {}): Promise<Result> {
  const [sub, ...rest] = args;
  try {
    if (sub === "show") {
      if (rest.length !== 1 || rest[0].startsWith("--")) throw new Usage(`usage: ${REPAIR_SEARCH_SHOW_USAGE}`);
      const h = await openMigrated(o.url);
      try {
        const { getRepairSearch } = await import("../lib/db/repair-searches");
        const v = await getRepairSearch(h.db, rest[0]);
        if (!v) throw new BadInput(`no repair search ${rest[0]}`, "$.id");
        return { code: 0, output: await showObject(h.db, v) };
      } finally {
        await h.db.$disconnect();
      }
    }
    // start
    const dd = rest.indexOf("--");
    const head = dd >= 0 ? rest.slice(0, dd) : rest;
    const command = dd >= 0 ? rest.slice(dd + 1) : [];
    const opts: Record<string, string> = {};
    for (let i = 0; i < head.length; i++) {
      const a = head[i];
      if (!START_FLAGS.includes(a)) throw new Usage(`unknown argument ${a}; usage: ${REPAIR_SEARCH_START_USAGE}`, a);
      const val = head[i + 1];
      if (val === undefined || val.startsWith("--")) throw new Usage(`${a} needs a value`, a);
      opts[a] = val;
      i++;
    }
    if (!opts["--case"]) throw new Usage(`--case is required; usage: ${REPAIR_SEARCH_START_USAGE}`, "--case");
    if (opts["--judge-upstream"] && opts["--judge-cmd"]) throw new Usage("give --judge-upstream or --judge-cmd, not both", "--judge-cmd");
    const base = o.env ?? process.env;
    const env: Record<string, string | undefined> = { ...base };
    const set = (k: string, v: string | undefined) => {
      if (v !== undefined) env[k] = v;
    };
    set("SYMTRACE_REPLAY_UPSTREAM", httpUrl(opts["--upstream"], "--upstream"));
    set("SYMTRACE_REPLAY_TOOL_UPSTREAM", httpUrl(opts["--tool-upstream"], "--tool-upstream"));
    set("SYMTRACE_SEARCH_UPSTREAM", httpUrl(opts["--selector-upstream"], "--selector-upstream"));
    set("SYMTRACE_SEARCH_MODEL", opts["--selector-model"]);
    set("SYMTRACE_JUDGE_UPSTREAM", httpUrl(opts["--judge-upstream"], "--judge-upstream"));
    set("SYMTRACE_JUDGE_MODEL", opts["--judge-model"]);
    set("SYMTRACE_REPLAY_EVALUATOR", opts["--evaluator"]);
    if (opts["--judge-cmd"] !== undefined) env.SYMTRACE_SEARCH_JUDGE_CMD = opts["--judge-cmd"];
    else if (opts["--judge-upstream"] !== undefined) delete env.SYMTRACE_SEARCH_JUDGE_CMD;
    const { repairSearchSettingsFromEnv, startRepairSearch } = await import("../lib/services/repair-search/jobs");
    let settings;
    try {
      settings = repairSearchSettingsFromEnv(
        {
          iterations: positiveInt(opts["--iterations"], "--iterations"),
          k: positiveInt(opts["--k"], "--k"),
          l: positiveInt(opts["--l"], "--l"),
          seed: opts["--seed"] === undefined ? undefined : Number.isSafeInteger(Number(opts["--seed"])) ? Number(opts["--seed"]) : opts["--seed"],
          maxCalls: positiveInt(opts["--max-calls"], "--max-calls") ?? null,
          maxTokens: positiveInt(opts["--max-tokens"], "--max-tokens") ?? null,
        },
        env,
        { command },
      );
    } catch (e) {
      if (e instanceof Usage) throw e;
      throw new Usage((e as Error).message);
    }
    if ("error" in settings) throw new Usage(`${settings.error} (or give --upstream)`, "--upstream");
    const h = await openMigrated(o.url);
    try {
      const { findCaseId } = await import("../lib/db/cases");
      const { RepairSearchDbError } = await import("../lib/db/repair-searches");
      const key = opts["--case"];
      const byId = await h.db.case.findUnique({ where: { id: key }, select: { id: true } });
      const caseId = byId?.id ?? (await findCaseId(h.db, { bundleId: key }));
      if (!caseId) throw new BadInput(`no case with id or bundle id ${JSON.stringify(key)}`, "--case");
      try {
        const v = await startRepairSearch(h.db, { sourceCaseId: caseId, settings }, { url: h.url });
        return { code: 0, output: { id: v.id, status: v.status, sourceCaseId: v.sourceCaseId, sourceBundleId: v.sourceBundleId } };
      } catch (e) {
        if (e instanceof RepairSearchDbError) throw new BadInput(e.message, e.at);
        throw e;
      }
    } finally {
      if (h.provider === "postgresql") await (await import("../lib/jobs/backends")).closeBoss(h.url).catch(() => {});
      await h.db.$disconnect();
    }
  } catch (e) {
    if (e instanceof Usage) return { code: e instanceof BadInput ? 1 : 2, output: { ok: false, errors: [{ path: e.at, message: e.message }] } };
    return { code: 1, output: { ok: false, errors: [{ path: "$", message: (e as Error).message.split("\n")[0] }] } };
  }
}
