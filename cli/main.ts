/**
 * The commands of the `symtrace` CLI (the process is cli/symtrace.ts; tests run them in-process
 * with {@link runSymtrace}): `npm run symtrace -- <command>`. Prints JSON on stdout; exit 0 on success,
 * 1 on invalid input or failure (with a JSON error, never a stack trace), 2 on bad usage.
 *
 *   validate <file>
 *   import <file-or-directory>... [--format auto|bundle|whowhen|mad|otel]
 *   export <caseId|bundleId|--all> --out <dir>
 *   user add <email> --role <role>[,<role>...] [--password <pw>] [--name <name>]
 *   user list
 *   annotations import <file>
 *   annotations export --out <file> [--case <bundleId>] [--submitted-only]
 *   detect <bundle-file|caseId|bundleId> [--judge]   (cli/detect.ts)
 *   detect --eval [--dataset D] [--dir <file-or-dir>...] [--seed S]
 *   apikey create --name <n> | apikey list | apikey revoke <id|prefix>   (cli/otlp.ts)
 *   otlp flush [--trace <traceId>] | otlp status | otlp prune [--retain-seconds <s>]
 *   experiment run ... | experiment report <id|dir>   (cli/experiment.ts; exit 3: stopped at the budget cap)
 *   repair-search <bundle> --upstream <url> ... --out <dir> [-- <command...>]   (cli/repair-search.ts: MARS search-based repair)
 *   repair-search start --case <id> ... [-- <command...>] | repair-search show <id>   (cli/repair-search-jobs.ts: as a job)
 *   release export --out <dir> [--format bundle|...] [filters]   (cli/release.ts)
 *   release import <dir>
 *
 * Exit codes: 0 ok; 1 invalid input or any failed file/record (import still stores the good
 * ones); 2 bad usage.
 * The database is DATABASE_URL or the embedded SQLite file (data/symtrace.db); pending
 * migrations are applied before a database command (none pending: the schema engine is not
 * started, so the CLI runs beside the app). A SQLite file locked by another process for longer
 * than SYMTRACE_DB_BUSY_TIMEOUT_MS (default 10000) gives exit 1 and one line saying so.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseJsonText, serializeBundle, validateBundle, type ReplayBundle } from "../lib/bundle";
import { IMPORT_FORMATS, type ImportFormat } from "../lib/importers";
import { DatabaseBusyError, isBusyError, resolveDatabaseUrl } from "../lib/db/url";
import { openMigratedDb } from "./common";

type Out = Record<string, unknown>;

class UsageError extends Error {}

const USAGE = [
  "symtrace validate <file>",
  "symtrace import <file-or-directory>... [--format auto|bundle|whowhen|mad|otel]",
  "symtrace export <caseId|bundleId|--all> --out <dir>",
  "symtrace user add <email> --role <role>[,<role>...] [--password <pw>] [--name <name>]   (roles: admin, annotator, adjudicator, researcher)",
  "symtrace user list",
  "symtrace annotations import <file>   (symtrace.annotations/v1; cases by bundle id, which must be imported first)",
  "symtrace annotations export --out <file> [--case <bundleId>] [--submitted-only]",
  "symtrace agreement <annotations.json> [--resamples N] [--seed S]",
  "symtrace agreement --mad <MAD file>",
  "symtrace agreement --from-db [--dataset D] [--mas M] [--benchmark B] [--resamples N] [--seed S]",
  "symtrace record --out <bundle.json> --upstream <url> [--tool-upstream <url>] [--anthropic-upstream <url>] [--mcp-upstream <url>] [--task <text>|--task-file <json>] [--id <bundleId>] [--runner <name>] -- <command...>   (exit 4, ok:false: the MAS failed or nothing was recorded)",
  "symtrace detect <bundle-file|caseId|bundleId> [--judge]   (suspicious nodes and the intervention anchor; --judge: SYMTRACE_JUDGE_UPSTREAM, SYMTRACE_JUDGE_MODEL)",
  "symtrace detect --eval [--dataset D] [--dir <file-or-dir>...] [--seed S]   (anchor/top-3 hit rates and per-category precision/recall vs reference nodes, with Random-Node and Last-Node baselines)",
  "symtrace detect --eval --attribution --dir <Who&When file-or-dir>... [--methods random,last,rules,rules+judge,all-at-once,step-by-step,binary-search] [--ground-truth with|without|both] [--run NAME] [--max-calls N] [--max-tokens N] [--concurrency N] [--seed S] [--csv <file>] [--background] [--protocol chat|responses|anthropic]   (failure attribution per subset: agent and step accuracy, ±1/2/3/5, Wilson 95%, tokens/calls per case, published figures beside; SYMTRACE_ATTRIBUTION_UPSTREAM/_MODEL; a run in the database, its jobs on the job layer (--background: left to the workers), resumable; exit 3: budget reached)",
  "symtrace detect --eval --attribution --cancel --run NAME   (cancel a run: no job is started any more, running ones finish, queued ones wait for the next start of the run)",
  "symtrace detect --annotate [--case <bundleId>...] [--limit N] [--protocol chat|responses|anthropic]   (the LLM annotator: stores its protocol annotation of each Who&When case under a machine account, for human–machine agreement)",
  "symtrace release export --out <dir> [--format bundle|...] [--mas M] [--benchmark B] [--status adjudicated|all] [--cases <id,id,...>] [--release-version V]   (a versioned dataset release: manifest, datasheet, bundles, annotations, agreement; cli/release.ts)",
  "symtrace release import <dir>   (into an empty database; verifies checksums, then bundle hashes and agreement figures)",
  "symtrace experiment run (--cases <file|dir> ... | --from-db [--dataset D] [--mas M] [--benchmark B] [--limit N]) --methods <m1,m2,...> --attempts <k> --upstream <url> [--tool-upstream <url>] [--evaluator <cmd>] [--reproduction-judge <cmd>|--judge-upstream <url>] [--seed S] [--max-calls N] [--max-tokens N] [--workers N] --out <dir> [-- <command...>]   (one JSON object: pass@k, rep1/rep3, calls, comparisons; exit 3: stopped at the budget cap)",
  "symtrace experiment report <experiment id | out dir>",
  "symtrace apikey create --name <name> | apikey list | apikey revoke <id|prefix>   (API keys for the OTLP/HTTP receiver; create prints {\"key\": ...} once)",
  "symtrace otlp flush [--trace <traceId>] | otlp status | otlp prune [--retain-seconds <s>]   (assemble received OTLP traces now / staging size and age / delete staged spans of assembled idle traces)",
  "symtrace repair-search <bundle.json> --upstream <url> [--tool-upstream <url>] [--judge-upstream <url> [--judge-model M] | --judge-cmd <cmd>] [--selector-upstream <url>] [--selector-model M] [--evaluator <cmd>] [--iterations N] [--seed S] --out <dir> [-- <command...>]   (MARS search: one JSON object {best, iterations, nodes, calls, tokens}; writes tree.json and every node's bundle)",
  "symtrace repair-search start --case <case id|bundle id> [--upstream <url>] [--tool-upstream <url>] [--judge-upstream <url>|--judge-cmd <cmd>] [--selector-upstream <url>] [--selector-model M] [--evaluator <cmd>] [--iterations N] [--k K] [--l L] [--seed S] [--max-calls N] [--max-tokens N] [-- <command...>]   (queue the search as a job for a worker; prints its id)",
  "symtrace repair-search show <id>   (a queued/running/finished search: {best, iterations, nodes, calls, tokens, status})",
  "symtrace replay <bundle.json> --target <nodeId> [--guidance <text>] [--upstream <url>] [--tool-upstream <url>] [--anthropic-upstream <url>] [--mcp-upstream <url>] --out <new-bundle.json> [--id <bundleId>] [--runner <name> | --allow-bundle-command | -- <command...>]   (exit 3: first divergence; a bundle's own command runs only with --allow-bundle-command)",
];

/** Where `print` writes: stdout, or the sink of {@link runSymtrace}. */
let write: (text: string) => void = (text) => process.stdout.write(text);

function print(o: Out): void {
  write(JSON.stringify(o) + "\n");
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (!v || v.startsWith("--")) throw new UsageError(`${name} needs a value`);
  args.splice(i, 2);
  return v;
}

/**
 * Warnings of a valid bundle (never a failure): a `config.runner.command` / `.env` is reported as
 * carried but not executed (issue 10 item 1: only registered runners run).
 * @returns `{}` or `{ warnings: [{ path, message }] }`
 */
function bundleWarnings(b: ReplayBundle): { warnings?: Array<{ path: string; message: string }> } {
  const runner = b.config.runner;
  const warnings: Array<{ path: string; message: string }> = [];
  if (runner?.command?.length) {
    warnings.push({
      path: "$.config.runner.command",
      message: `the bundle carries a runner command ${JSON.stringify(runner.command)}; it will not be executed: the app replays only registered runners${runner.name ? ` (this bundle names "${runner.name}")` : ""}, and symtrace replay runs it only with --allow-bundle-command`,
    });
  }
  if (runner?.env && Object.keys(runner.env).length > 0) {
    warnings.push({ path: "$.config.runner.env", message: `the bundle sets environment variables (${Object.keys(runner.env).join(", ")}); a registered runner takes only the names it allows` });
  }
  return warnings.length ? { warnings } : {};
}

/** `validate <file>`: every violation of spec §Validation, with JSON paths; warnings for a carried runner command. */
function validate(args: string[]): number {
  const file = args[0];
  if (!file) throw new UsageError("usage: symtrace validate <file>");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    print({ ok: false, errors: [{ path: "$", message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
    return 1;
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (e) {
    print({ ok: false, errors: [{ path: "$", message: `${file} is not JSON: ${(e as Error).message}` }] });
    return 1;
  }
  const res = validateBundle(value);
  if (!res.ok) {
    print({ ok: false, errors: res.issues.map(({ path: p, message, nodeId, seq, rule }) => ({ path: p, message, rule, ...(nodeId !== undefined ? { nodeId } : {}), ...(seq !== undefined ? { seq } : {}) })) });
    return 1;
  }
  const b = res.bundle;
  print({ ok: true, nodes: b.graph.nodes.length, edges: b.graph.edges.length, records: b.records.length, ...bundleWarnings(b) });
  return 0;
}

let progressShown = false;
/** The progress line of a large (streamed) import on stderr: one line rewritten on a terminal, else a line per update. */
function printProgress(p: { file: string; bytes: number; totalBytes: number; nodes: number; elapsedMs: number }): void {
  const mb = (b: number) => (b / 2 ** 20).toFixed(0);
  const pct = p.totalBytes ? Math.floor((100 * p.bytes) / p.totalBytes) : 100;
  const rate = p.elapsedMs > 0 ? Math.round((p.nodes * 1000) / p.elapsedMs) : 0;
  const line = `import ${path.basename(p.file)}: ${pct}% (${mb(p.bytes)} of ${mb(p.totalBytes)} MB${p.nodes ? `, ${p.nodes.toLocaleString("en-US")} nodes, ${rate.toLocaleString("en-US")} nodes/s` : ""}, ${(p.elapsedMs / 1000).toFixed(0)} s)`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K`);
  else process.stderr.write(line + "\n");
  progressShown = !!process.stderr.isTTY;
}

async function importCmd(args: string[]): Promise<number> {
  const format = (flag(args, "--format") ?? "auto") as ImportFormat;
  if (!IMPORT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(", ")}`);
  if (args.length === 0) throw new UsageError("usage: symtrace import <file-or-directory>... [--format auto|bundle|whowhen|mad|otel]");
  const { importPaths } = await import("../lib/services/import-files");
  const { db } = await openMigratedDb();
  try {
    const r = await importPaths(db, args, { format, onProgress: printProgress });
    if (progressShown) process.stderr.write("\n");
    // A file whose format must be named: the CLI way to name it (the page offers a format choice instead).
    const failed = r.failed.map((f) => ({ ...f, errors: f.errors.map((e) => (e.code === "format-needed" ? { ...e, message: `${e.message} (pass --format bundle|whowhen|mad|otel)` } : e)) }));
    // Each stored case's bundle id (open it at /cases/<bundle id>, export it, replay it) and what happened to it.
    print({ imported: r.imported, skipped: r.skipped, replaced: r.replaced, failed, ignored: r.ignored, warnings: r.warnings, cases: r.cases.map((c) => ({ bundleId: c.bundleId, status: c.status })) });
    // 1 when any file or record failed (the others are still imported), so scripts notice.
    return r.failed.length > 0 ? 1 : 0;
  } finally {
    await db.$disconnect();
  }
}

async function exportCmd(args: string[]): Promise<number> {
  const out = flag(args, "--out");
  if (!out) throw new UsageError("usage: symtrace export <caseId|bundleId|--all> --out <dir>");
  const all = args.includes("--all");
  const id = args.find((a) => !a.startsWith("--"));
  if (!all && !id) throw new UsageError("usage: symtrace export <caseId|bundleId|--all> --out <dir>");
  const { exportBundle, listCaseIds } = await import("../lib/db");
  const { db } = await openMigratedDb();
  try {
    const targets = all ? await listCaseIds(db) : [{ id: id as string, bundleId: id as string }];
    mkdirSync(out, { recursive: true });
    const files: string[] = [];
    for (const t of targets) {
      const b = (await exportBundle(db, { caseId: t.id })) ?? (await exportBundle(db, { bundleId: t.bundleId }));
      if (!b) {
        print({ ok: false, errors: [{ path: "$", message: `no case with id or bundle id "${t.id}"` }] });
        return 1;
      }
      const file = path.join(out, b.id.replace(/[^A-Za-z0-9._-]+/g, "__") + ".bundle.json");
      writeFileSync(file, serializeBundle(b));
      files.push(file);
    }
    print({ exported: files.length, files });
    return 0;
  } finally {
    await db.$disconnect();
  }
}

/** Read and parse a JSON file; on failure print `{ok:false, errors}` and return null. */
function readJsonFile(file: string): { value: unknown } | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    print({ ok: false, errors: [{ path: "$", message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
    return null;
  }
  try {
    return { value: parseJsonText(text) };
  } catch (e) {
    print({ ok: false, errors: [{ path: "$", message: `${file} is not JSON: ${(e as Error).message}` }] });
    return null;
  }
}

/** `user add <email> --role r[,r...] [--password pw] [--name n]` and `user list`. */
async function userCmd(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "list") {
    if (rest.length) throw new UsageError("usage: symtrace user list");
    const { listUsers } = await import("../lib/db");
    const { db } = await openMigratedDb();
    try {
      const users = await listUsers(db);
      print({ users: users.map((u) => ({ id: u.id, email: u.email, name: u.name, roles: u.roles })) });
      return 0;
    } finally {
      await db.$disconnect();
    }
  }
  if (sub !== "add") throw new UsageError(`unknown user command "${sub ?? ""}"; usage: ${USAGE[3]} | ${USAGE[4]}`);
  const role = flag(rest, "--role");
  const password = flag(rest, "--password");
  const name = flag(rest, "--name");
  const unknown = rest.filter((a) => a.startsWith("--"));
  if (unknown.length) throw new UsageError(`unknown option ${unknown[0]}; usage: ${USAGE[3]}`);
  if (rest.length !== 1) throw new UsageError(`usage: ${USAGE[3]}`);
  if (!role) {
    print({ ok: false, errors: [{ path: "--role", message: "--role is required: one or more of admin, annotator, adjudicator, researcher (comma-separated)" }] });
    return 1;
  }
  const { upsertUser, UserInputError } = await import("../lib/db");
  const { db } = await openMigratedDb();
  try {
    const r = await upsertUser(db, { email: rest[0], roles: role.split(",").map((s) => s.trim()).filter(Boolean), password: password ?? null, name });
    print({ ok: true, user: { id: r.id, email: r.email, roles: r.roles }, status: r.status });
    return 0;
  } catch (e) {
    if (e instanceof UserInputError) {
      const p = e.field === "email" ? "<email>" : `--${e.field}`;
      print({ ok: false, errors: [{ path: p, message: e.message }] });
      return 1;
    }
    throw e;
  } finally {
    await db.$disconnect();
  }
}

/** `annotations import <file>` and `annotations export --out <file> [--case <bundleId>] [--submitted-only]`. */
async function annotationsCmd(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "import") {
    const unknown = rest.filter((a) => a.startsWith("--"));
    if (unknown.length) throw new UsageError(`unknown option ${unknown[0]}; usage: ${USAGE[5]}`);
    if (rest.length !== 1) throw new UsageError(`usage: ${USAGE[5]}`);
    const file = rest[0];
    const parsed = readJsonFile(file);
    if (!parsed) return 1;
    const { importAnnotationsFile, AnnotationsFileError } = await import("../lib/db");
    const { db } = await openMigratedDb();
    try {
      const r = await importAnnotationsFile(db, parsed.value, { source: path.basename(file) });
      print({ imported: r.imported, updated: r.updated, skipped: r.skipped, failed: r.failed, accountsCreated: r.accountsCreated });
      return r.failed.length > 0 ? 1 : 0;
    } catch (e) {
      if (e instanceof AnnotationsFileError) {
        print({ ok: false, errors: e.errors });
        return 1;
      }
      throw e;
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "export") {
    const out = flag(rest, "--out");
    const bundleId = flag(rest, "--case");
    const i = rest.indexOf("--submitted-only");
    const submittedOnly = i >= 0;
    if (submittedOnly) rest.splice(i, 1);
    if (rest.length) throw new UsageError(`unexpected ${rest[0]}; usage: ${USAGE[6]}`);
    if (!out) throw new UsageError(`usage: ${USAGE[6]}`);
    const { exportAnnotations, WorkflowError } = await import("../lib/db");
    const { db } = await openMigratedDb();
    try {
      const f = await exportAnnotations(db, { bundleId, submittedOnly });
      mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
      writeFileSync(out, JSON.stringify(f, null, 2) + "\n");
      print({
        exported: { cases: f.cases.length, initial: f.cases.reduce((n, c) => n + c.initial.length, 0), final: f.cases.filter((c) => c.final).length },
        file: out,
      });
      return 0;
    } catch (e) {
      if (e instanceof WorkflowError) {
        print({ ok: false, errors: [{ path: "--case", message: e.message }] });
        return 1;
      }
      throw e;
    } finally {
      await db.$disconnect();
    }
  }
  throw new UsageError(`unknown annotations command "${sub ?? ""}"; usage: ${USAGE[5]} | ${USAGE[6]}`);
}

/**
 * `agreement <file> [--resamples N] [--seed S]`, `agreement --mad <file>` (cli/agreement.ts), and
 * `agreement --from-db [--dataset D] [--mas M] [--benchmark B] [--resamples N] [--seed S]`.
 */
async function agreementCmd(args: string[]): Promise<number> {
  if (args.includes("--from-db")) {
    const rest = args.filter((a) => a !== "--from-db");
    const dataset = flag(rest, "--dataset");
    const mas = flag(rest, "--mas");
    const benchmark = flag(rest, "--benchmark");
    const resamples = flag(rest, "--resamples");
    const seed = flag(rest, "--seed");
    if (rest.length) throw new UsageError(`unexpected ${rest.join(" ")}; usage: symtrace agreement --from-db [--dataset D] [--mas M] [--benchmark B] [--resamples N] [--seed S]`);
    for (const [n, v] of [["--resamples", resamples], ["--seed", seed]] as const) {
      if (v !== undefined && !/^\d+$/.test(v)) throw new UsageError(`${n} must be a non-negative integer`);
    }
    const { agreementFromDb } = await import("../lib/services/agreement");
    const { db } = await openMigratedDb();
    try {
      const r = await agreementFromDb(db, { dataset, mas, benchmark }, { resamples: resamples ? Number(resamples) : undefined, seed: seed ? Number(seed) : undefined });
      print(r as unknown as Out);
      return r.ok ? 0 : 1;
    } finally {
      await db.$disconnect();
    }
  }
  const { agreementCommand } = await import("./agreement");
  const r = await agreementCommand(args);
  print(r.output as Out);
  return r.code;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  switch (cmd) {
    case "help":
    case "--help":
    case "-h": {
      // The experiment lines come from cli/experiment.ts itself (every flag, --mars-* included) and
      // the method names from the runner's list (mars included), so help cannot fall behind them.
      const { EXPERIMENT_RUN_USAGE, EXPERIMENT_REPORT_USAGE } = await import("./experiment");
      const { METHOD_NAMES } = await import("../lib/experiments/methods");
      const usage = USAGE.flatMap((l) =>
        l.startsWith("symtrace experiment run ") ? [EXPERIMENT_RUN_USAGE, `  (experiment methods: ${METHOD_NAMES.join(", ")})`] : l.startsWith("symtrace experiment report ") ? [EXPERIMENT_REPORT_USAGE] : [l],
      );
      print({ usage });
      return 0;
    }
    case "validate":
      return validate(args);
    case "import":
      return importCmd(args);
    case "export":
      return exportCmd(args);
    case "user":
      return userCmd(args);
    case "annotations":
      return annotationsCmd(args);
    case "agreement":
      return agreementCmd(args);
    case "record": {
      const { recordCommand } = await import("./replay");
      const r = await recordCommand(args);
      print(r.output as Out);
      return r.code;
    }
    case "detect": {
      const { detectCommand } = await import("./detect");
      const r = await detectCommand(args);
      if (r.code === 2) throw new UsageError(((r.output as { errors: Array<{ message: string }> }).errors[0]?.message) ?? "bad usage");
      print(r.output as Out);
      return r.code;
    }
    case "apikey":
    case "otlp": {
      const { apikeyCommand, otlpCommand } = await import("./otlp");
      const r = await (cmd === "apikey" ? apikeyCommand : otlpCommand)(args, openMigratedDb);
      if (r.code === 2) throw new UsageError(((r.output as { errors: Array<{ message: string }> }).errors[0]?.message) ?? "bad usage");
      print(r.output as Out);
      return r.code;
    }
    case "release": {
      const { releaseCommand } = await import("./release");
      const r = await releaseCommand(args);
      if (r.code === 2) throw new UsageError(((r.output as { errors: Array<{ message: string }> }).errors[0]?.message) ?? "bad usage");
      print(r.output as Out);
      return r.code;
    }
    case "experiment": {
      const { experimentCommand } = await import("./experiment");
      const r = await experimentCommand(args);
      if (r.code === 2) throw new UsageError(((r.output as { errors: Array<{ message: string }> }).errors[0]?.message) ?? "bad usage");
      print(r.output as Out);
      return r.code;
    }
    case "repair-search": {
      const { repairSearchCommand } = await import("./repair-search");
      const r = await repairSearchCommand(args);
      if (r.code === 2) throw new UsageError(((r.output as { errors: Array<{ message: string }> }).errors[0]?.message) ?? "bad usage");
      print(r.output as Out);
      return r.code;
    }
    case "replay": {
      const { replayCommand } = await import("./replay");
      const r = await replayCommand(args);
      print(r.output as Out);
      return r.code;
    }
    default:
      throw new UsageError(
        `unknown command "${cmd ?? ""}"; commands: validate <file> | import <path>... [--format ...] | export <id|--all> --out <dir> | user add|list | annotations import|export | agreement <file>|--mad <file>|--from-db | record --out <file> ... -- <command> | replay <bundle> --target <node> ... | detect <file|id> [--judge] | detect --eval | experiment run|... | release export|import | apikey create|list|revoke | otlp flush|status|prune | repair-search <bundle> ... (symtrace help: every command with its options)`,
      );
  }
}

/**
 * Run one `symtrace` command line in this process: the dispatcher and error handling of the
 * `symtrace` process (cli/symtrace.ts), with the JSON lines it prints sent to `out` (default
 * stdout). Commands read DATABASE_URL and the other variables from process.env at call time.
 * @param argv the arguments after `symtrace`, e.g. `["user", "list"]`
 * @returns the exit code: 0 ok, 1 invalid input or failure (one JSON error line, never a stack
 *   trace), 2 bad usage; never throws. Not re-entrant (one sink at a time).
 */
export async function runSymtrace(argv: string[], out?: (text: string) => void): Promise<number> {
  const previous = write;
  if (out) write = out;
  try {
    return await main(argv);
  } catch (err) {
    const usage = err instanceof UsageError;
    // A SQLite file locked by another process past the busy timeout: one line saying what to do.
    const message = isBusyError(err) ? new DatabaseBusyError(err instanceof DatabaseBusyError ? err.url : resolveDatabaseUrl(process.env.DATABASE_URL)).message : err instanceof Error ? err.message : String(err);
    print({ ok: false, errors: [{ path: "$", message }] });
    return usage ? 2 : 1;
  } finally {
    write = previous;
  }
}
