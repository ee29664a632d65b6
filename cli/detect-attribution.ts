/**
 * `symtrace detect --eval --attribution --dir <file-or-dir>... [options]`: the failure-attribution
 * benchmark on Who&When (issue 24; lib/attribution, lib/services/attribution). Thin.
 *
 * The study is a run in the database (DATABASE_URL or data/symtrace.db; lib/db/attribution-runs.ts)
 * found by its name: created, or resumed (done jobs are kept, failed ones retried, missing ones
 * added). In the foreground an in-process worker of the job layer (lib/jobs kind "attribution")
 * runs its jobs; `--background` only queues them for the workers (the app's, `npm run worker`).
 *
 * Options: --methods a,b,… (random, last, rules, rules+judge, all-at-once, step-by-step,
 * binary-search; default all, or only the non-LLM ones when no endpoint is configured),
 * --ground-truth with|without|both (default both), --run NAME (default the model id, or
 * "baselines"), --max-calls N, --max-tokens N (budget of the whole run: HTTP calls/tokens, cached
 * calls not counted; each start sets it, absent = none), --concurrency N (default 4), --seed S
 * (default 20260512), --csv <file>, --background, --upstream <url> / --model M / --protocol
 * chat|responses|anthropic (else SYMTRACE_ATTRIBUTION_UPSTREAM / _MODEL / _PROTOCOL, falling back
 * to SYMTRACE_JUDGE_*; protocol default chat).
 *
 * `symtrace detect --eval --attribution --cancel --run NAME` cancels a run (lib/db
 * cancelAttributionRun: no job is claimed any more, running ones finish, queued ones wait for the
 * next start of the run); prints {source:"attribution", run, cancelled, status, progress}; exit 0
 * when it cancelled it or it was already stopped, 1 when there is no such run.
 *
 * Prints one JSON object {source:"attribution", run, endpoint, cases, rows, text, jobs, spent, …};
 * exit 0, 1 on bad input, no endpoint for an LLM method or a run of that name made with another
 * model/protocol/seed, or when a user cancelled the run while it ran here (rerun to resume), 2 on
 * bad usage, 3 when the budget stopped the run (rerun with a larger budget to resume).
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ATTRIBUTOR_NAMES, ATTRIBUTORS, tableCsv, type AttributorName } from "../lib/attribution";
import type { Result } from "./detect";

export const ATTRIBUTION_USAGE =
  "symtrace detect --eval --attribution --cancel --run NAME | symtrace detect --eval --attribution --dir <file-or-dir>... [--methods random,last,rules,rules+judge,all-at-once,step-by-step,binary-search] [--ground-truth with|without|both] [--run NAME] [--max-calls N] [--max-tokens N] [--concurrency N] [--seed S] [--csv <file>] [--background] [--upstream <url>] [--model M] [--protocol chat|responses|anthropic]";

const fail = (code: number, message: string, p = "$"): Result => ({ code, output: { ok: false, errors: [{ path: p, message }] } });
const VALUED = new Set(["--dir", "--methods", "--ground-truth", "--run", "--max-calls", "--max-tokens", "--concurrency", "--seed", "--csv", "--upstream", "--model", "--protocol"]);

/** Arguments after `detect --eval --attribution`. */
export async function attributionCommand(argv: string[]): Promise<Result> {
  const background = argv.includes("--background");
  if (background) argv = argv.filter((a) => a !== "--background");
  if (argv.includes("--cancel")) return cancelCommand(argv.filter((a) => a !== "--cancel"), background);
  const dirs: string[] = [];
  const v: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!VALUED.has(a)) return fail(2, `unexpected ${a}; usage: ${ATTRIBUTION_USAGE}`);
    const x = argv[i + 1];
    if (x === undefined || x.startsWith("--")) return fail(2, `${a} needs a value; usage: ${ATTRIBUTION_USAGE}`);
    if (a === "--dir") dirs.push(x);
    else v[a] = x;
    i++;
  }
  if (!dirs.length) return fail(2, `--dir is required; usage: ${ATTRIBUTION_USAGE}`);
  const missing = dirs.find((d) => !existsSync(d));
  if (missing) return fail(1, `no such file or directory: ${missing}`, "--dir");
  const int = (k: string): number | null | Result => {
    if (v[k] === undefined) return null;
    return /^\d+$/.test(v[k]) ? Number(v[k]) : fail(2, `${k} must be a non-negative integer, got ${JSON.stringify(v[k])}`);
  };
  const nums: Record<string, number | null> = {};
  for (const k of ["--max-calls", "--max-tokens", "--concurrency", "--seed"]) {
    const n = int(k);
    if (n !== null && typeof n === "object") return n;
    nums[k] = n;
  }
  const gt = v["--ground-truth"] ?? "both";
  if (!["with", "without", "both"].includes(gt)) return fail(2, `--ground-truth must be with, without or both, got ${JSON.stringify(gt)}`);
  const { attributionLlmSettings, createAttributionLlm, parseAttributionProtocol } = await import("../lib/services/attribution/llm");
  let settings;
  try {
    settings = attributionLlmSettings();
    if (v["--protocol"] !== undefined) settings.protocol = parseAttributionProtocol(v["--protocol"], "--protocol");
  } catch (e) {
    return fail(1, (e as Error).message);
  }
  const upstream = v["--upstream"] ?? settings.upstream;
  const model = v["--model"] ?? settings.model;
  const endpoint = upstream && model ? { upstream, model, protocol: settings.protocol } : null;
  let methods: AttributorName[];
  if (v["--methods"]) {
    const names = v["--methods"].split(",").map((s) => s.trim()).filter(Boolean);
    const bad = names.find((n) => !(ATTRIBUTOR_NAMES as readonly string[]).includes(n));
    if (bad) return fail(2, `unknown attributor ${JSON.stringify(bad)}; attributors: ${ATTRIBUTOR_NAMES.join(", ")}`, "--methods");
    methods = names as AttributorName[];
  } else methods = ATTRIBUTOR_NAMES.filter((n) => endpoint || !ATTRIBUTORS[n].usesLlm);
  const needs = methods.filter((n) => ATTRIBUTORS[n].usesLlm);
  if (needs.length && !endpoint) return fail(1, `${needs.join(", ")} need an endpoint: set SYMTRACE_ATTRIBUTION_UPSTREAM and SYMTRACE_ATTRIBUTION_MODEL (or --upstream and --model)`);
  const name = v["--run"] ?? (endpoint?.model ?? "baselines").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 200);
  const { ATTRIBUTION_RUN_NAME, AttributionRunError } = await import("../lib/db/attribution-runs");
  if (!ATTRIBUTION_RUN_NAME.test(name)) return fail(2, `--run must be 1–200 letters, digits, . _ -; got ${JSON.stringify(name)}`, "--run");
  const { DEFAULT_ATTRIBUTION_SEED, enqueueAttributionStudy, loadAttributionCases, planFor, runAttributionStudy } = await import("../lib/services/attribution/study");
  const loaded = loadAttributionCases(dirs);
  if (!loaded.cases.length) return fail(1, `no Who&When record under ${dirs.join(", ")}`, "--dir");
  const plan = planFor(methods, gt === "both" ? ["with", "without"] : [gt as "with" | "without"]);
  const study = { name, cases: loaded.cases, plan, endpoint, seed: nums["--seed"] ?? DEFAULT_ATTRIBUTION_SEED, budget: { maxCalls: nums["--max-calls"], maxTokens: nums["--max-tokens"] }, dirs: dirs.map((d) => path.resolve(d)) };
  const bySubset = (s: string) => loaded.cases.filter((c) => c.subset === s).length;
  const cases = { "Hand-Crafted": bySubset("Hand-Crafted"), "Algorithm-Generated": bySubset("Algorithm-Generated") };
  const { openDb } = await import("../lib/db");
  const { migrate } = await import("../lib/db/migrate");
  const handle = openDb();
  try {
    await migrate(handle.url);
    if (background) {
      const q = await enqueueAttributionStudy({ db: handle.db, ...study });
      return { code: 0, output: { source: "attribution", background: true, run: q.run.name, status: q.run.status, progress: q.run.progress, enqueued: q.enqueued, cases, labelWarnings: loaded.warnings, skipped: loaded.skipped } };
    }
    const llm = endpoint ? createAttributionLlm({ ...endpoint, apiKey: settings.apiKey, cacheDir: settings.cacheDir }) : null;
    const report = await runAttributionStudy({ db: handle.db, ...study, llm, concurrency: nums["--concurrency"] ?? 4 });
    const csv = v["--csv"] ? path.resolve(v["--csv"]) : null;
    if (csv) writeFileSync(csv, tableCsv(report.rows));
    return {
      code: report.budgetStopped ? 3 : report.cancelled ? 1 : 0,
      output: {
        source: "attribution",
        run: report.run.name,
        status: report.run.status,
        endpoint: endpoint ? { upstream: endpoint.upstream, model: endpoint.model, protocol: endpoint.protocol } : null,
        cases,
        csv,
        jobs: report.jobs,
        spent: report.spent,
        budget: report.run.budget,
        cache: llm ? llm.stats : null,
        budgetStopped: report.budgetStopped,
        cancelled: report.cancelled,
        rows: report.rows,
        text: report.text,
        note: report.note,
        labelWarnings: loaded.warnings,
        skipped: loaded.skipped,
      },
    };
  } catch (e) {
    if (e instanceof AttributionRunError || (e instanceof Error && /^no LLM endpoint/.test(e.message))) return fail(1, e.message, e instanceof AttributionRunError ? e.at : "$");
    throw e;
  } finally {
    await handle.db.$disconnect();
  }
}

export const ANNOTATE_USAGE = "symtrace detect --annotate [--case <bundleId>...] [--limit N] [--upstream <url>] [--model M] [--protocol chat|responses|anthropic]";

/**
 * `detect --annotate`: the LLM annotator over the database's Who&When cases; each answer is
 * stored as the machine account's annotation (lib/services/attribution/annotate.ts). Prints
 * {rater, annotated, failed, calls, httpCalls, tokens, droppedQuotes}; exit 1 without an endpoint.
 */
export async function annotateCommand(argv: string[]): Promise<Result> {
  const cases: string[] = [];
  const v: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const x = argv[i + 1];
    if (!["--case", "--limit", "--upstream", "--model", "--protocol"].includes(a)) return fail(2, `unexpected ${a}; usage: ${ANNOTATE_USAGE}`);
    if (x === undefined || x.startsWith("--")) return fail(2, `${a} needs a value; usage: ${ANNOTATE_USAGE}`);
    if (a === "--case") cases.push(x);
    else v[a] = x;
    i++;
  }
  if (v["--limit"] !== undefined && !/^\d+$/.test(v["--limit"])) return fail(2, `--limit must be a non-negative integer, got ${JSON.stringify(v["--limit"])}`);
  const { attributionLlmSettings, createAttributionLlm, parseAttributionProtocol } = await import("../lib/services/attribution/llm");
  let s;
  try {
    s = attributionLlmSettings();
    if (v["--protocol"] !== undefined) s.protocol = parseAttributionProtocol(v["--protocol"], "--protocol");
  } catch (e) {
    return fail(1, (e as Error).message);
  }
  const upstream = v["--upstream"] ?? s.upstream;
  const model = v["--model"] ?? s.model;
  if (!upstream || !model) return fail(1, "the LLM annotator needs an endpoint: set SYMTRACE_ATTRIBUTION_UPSTREAM and SYMTRACE_ATTRIBUTION_MODEL (or --upstream and --model)");
  const { openDb } = await import("../lib/db");
  const { migrate } = await import("../lib/db/migrate");
  const { annotateWithLlm } = await import("../lib/services/attribution/annotate");
  const handle = openDb();
  await migrate(handle.url);
  try {
    const run = await annotateWithLlm(handle.db, createAttributionLlm({ upstream, model, apiKey: s.apiKey, protocol: s.protocol, cacheDir: s.cacheDir }), { caseIds: cases.length ? cases : undefined, limit: v["--limit"] ? Number(v["--limit"]) : undefined });
    return { code: 0, output: run };
  } catch (e) {
    return fail(1, (e as Error).message);
  } finally {
    await handle.db.$disconnect();
  }
}

/** `--cancel --run NAME`: cancel the run (nothing else may be given). */
async function cancelCommand(argv: string[], background: boolean): Promise<Result> {
  if (background || argv.length !== 2 || argv[0] !== "--run" || argv[1].startsWith("--")) return fail(2, `--cancel takes only --run NAME; usage: ${ATTRIBUTION_USAGE}`);
  const { ATTRIBUTION_RUN_NAME, AttributionRunError, cancelAttributionRun } = await import("../lib/db/attribution-runs");
  if (!ATTRIBUTION_RUN_NAME.test(argv[1])) return fail(2, `--run must be 1–200 letters, digits, . _ -; got ${JSON.stringify(argv[1])}`, "--run");
  const { openDb } = await import("../lib/db");
  const { migrate } = await import("../lib/db/migrate");
  const handle = openDb();
  try {
    await migrate(handle.url);
    const r = await cancelAttributionRun(handle.db, argv[1]);
    return { code: 0, output: { source: "attribution", run: r.run.name, cancelled: r.cancelled, status: r.run.status, progress: r.run.progress } };
  } catch (e) {
    if (e instanceof AttributionRunError) return fail(1, e.message, "--run");
    throw e;
  } finally {
    await handle.db.$disconnect();
  }
}
