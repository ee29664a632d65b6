/**
 * Registered runners (issue 10 item 1): the only programs a native replay may start on the server.
 *
 * Threat model: anyone who can get a file imported controls everything inside a bundle, including
 * `config.runner.command` and `config.runner.env`. Those are never executed by the app (nor by the
 * CLI without `--allow-bundle-command`). An admin registers runners in server configuration —
 * `SYMTRACE_RUNNERS_FILE` (a JSON file, validated here) plus the built-in registrations of the
 * reference MAS in `mas/` — and a bundle only *names* its runner (`config.runner.name`, written by
 * `symtrace record --runner <name>`). A bundle whose runner is not registered is replayed as a
 * labelled transcript continuation, with the reason.
 *
 * Runners file (`SYMTRACE_RUNNERS_FILE`):
 * ```json
 * { "runners": [ { "name": "my-mas", "command": ["python3", "run.py"], "cwd": "/srv/my-mas",
 *                  "env": { "MAS_MODE": "replay" }, "passEnv": ["HF_HOME"], "bundleEnv": ["MAS_VARIANT"] } ] }
 * ```
 * - `command`: argv, run without a shell; `cwd`: absolute working directory (default: the app's);
 * - `env`: fixed variables; `passEnv`: names inherited from the server's environment (besides
 *   PATH, HOME, LANG, LC_ALL, TZ, TMPDIR, which every runner gets); `bundleEnv`: names a bundle's
 *   `config.runner.env` may set (all others are dropped). Nothing else of the server's
 *   environment (secrets, DATABASE_URL, NODE_OPTIONS …) reaches the MAS.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ReplayBundle } from "../bundle";
import { readEnv, type Env } from "../env";

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name (letters, digits, _)");

/** One runner as the admin writes it. */
export const runnerSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1–64 characters: letters, digits, . _ - (starting with a letter or digit)"),
  description: z.string().optional(),
  command: z.array(z.string().min(1)).min(1, "a non-empty argv array"),
  cwd: z.string().refine((p) => path.isAbsolute(p), "an absolute path").optional(),
  env: z.record(envName, z.string()).default({}),
  passEnv: z.array(envName).default([]),
  bundleEnv: z.array(envName).default([]),
});

export const runnersFileSchema = z.strictObject({ runners: z.array(runnerSchema) });

/** A registered runner: `{ name, description?, command (argv), cwd (absolute), env, passEnv, bundleEnv, source }`. */
export type RegisteredRunner = z.infer<typeof runnerSchema> & { cwd: string; source: "built-in" | "file" };

/** Variables every runner inherits from the server (nothing secret). */
export const BASE_PASS_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"] as const;

/** Variables of the reference MAS (mas/lib/main.ts) a bundle or the server may set for them. */
const MAS_ENV = ["SYMTRACE_STREAM", "SYMTRACE_MAX_ROUNDS", "SYMTRACE_LLM_RETRIES", "SYMTRACE_QUIET", "SYMTRACE_ATTEMPT_SEED"];

/**
 * The built-in registrations: the reference MAS of `mas/` (orchestrator, workflow, conversation, and
 * calibrated: the calibrated world's MAS, lib/testing/calibrated/README.md), run as `<this node> --import tsx <root>/mas/<name>.ts` in `root` (default: the app's cwd, the repo).
 */
export function builtinRunners(root: string = process.cwd()): RegisteredRunner[] {
  return ["orchestrator", "workflow", "conversation", "calibrated"].map((name) => ({
    name,
    description: `reference MAS mas/${name}.ts`,
    command: [process.execPath, "--import", "tsx", path.join(/*turbopackIgnore: true*/ root, "mas", `${name}.ts`)],
    cwd: root,
    env: {},
    passEnv: MAS_ENV,
    bundleEnv: MAS_ENV,
    source: "built-in" as const,
  }));
}

/**
 * Parse a runners file's text.
 * @param where the file name, for messages
 * @throws Error naming the file and the JSON path of each problem (e.g. `$.runners[1].cwd: an absolute path`)
 */
export function parseRunnersFile(text: string, where: string, defaultCwd: string = process.cwd()): RegisteredRunner[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`runners file ${where} is not JSON: ${(e as Error).message}`);
  }
  const r = runnersFileSchema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `$${i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}: ${i.message}`);
    throw new Error(`runners file ${where} is invalid: ${issues.join("; ")}`);
  }
  const seen = new Set<string>();
  return r.data.runners.map((x, i) => {
    if (seen.has(x.name)) throw new Error(`runners file ${where} is invalid: $.runners[${i}].name: "${x.name}" is registered twice`);
    seen.add(x.name);
    return { ...x, cwd: x.cwd ?? defaultCwd, source: "file" as const };
  });
}

/**
 * The registry of this server: the built-ins (unless `SYMTRACE_BUILTIN_RUNNERS=0`) and the runners
 * of `SYMTRACE_RUNNERS_FILE` (a file entry replaces a built-in of the same name).
 * @throws Error when the file cannot be read or is invalid (naming the file and path)
 */
export function loadRunnerRegistry(env: Env = readEnv()): RegisteredRunner[] {
  const byName = new Map<string, RegisteredRunner>();
  if (env.SYMTRACE_BUILTIN_RUNNERS !== "0") for (const r of builtinRunners()) byName.set(r.name, r);
  const file = env.SYMTRACE_RUNNERS_FILE;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new Error(`cannot read the runners file ${file} (SYMTRACE_RUNNERS_FILE): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    for (const r of parseRunnersFile(text, file)) byName.set(r.name, r);
  }
  return [...byName.values()];
}

/** loadRunnerRegistry for routes: the registry, or a 500 Response naming the configuration error. */
export function registryForRoute(env?: Env): RegisteredRunner[] | Response {
  try {
    return loadRunnerRegistry(env);
  } catch (e) {
    return Response.json({ error: `replay is not available: ${(e as Error).message}` }, { status: 500 });
  }
}

/** What a bundle says about its runner (never executed): its name, and the command it was recorded with. */
export interface BundleRunnerRef {
  /** `config.runner.name`, else (older bundles without a name) `config.mas`; null when the bundle has no `config.runner`. */
  name: string | null;
  /** Whether the name came from `config.mas` (an older bundle). */
  inferred: boolean;
  /** `config.runner.command` as recorded (shown, never run by the app). */
  recordedCommand: string[] | null;
}

/** The runner reference of a bundle (see BundleRunnerRef). */
export function bundleRunnerRef(source: ReplayBundle): BundleRunnerRef {
  const runner = source.config?.runner as { name?: unknown; command?: unknown } | null | undefined;
  if (!runner) return { name: null, inferred: false, recordedCommand: null };
  const recordedCommand = Array.isArray(runner.command) && runner.command.length > 0 ? runner.command.map(String) : null;
  if (typeof runner.name === "string" && runner.name !== "") return { name: runner.name, inferred: false, recordedCommand };
  const mas = source.config.mas;
  return { name: typeof mas === "string" && mas !== "" ? mas : null, inferred: true, recordedCommand };
}

/** How a bundle would be replayed on this server. */
export type ReplayPlan =
  | { mode: "native"; runner: RegisteredRunner; ref: BundleRunnerRef; reason: null }
  | { mode: "transcript"; runner: null; ref: BundleRunnerRef; reason: string };

/**
 * Decide native vs transcript continuation: native iff the bundle names a registered runner.
 * Never looks at the bundle's command except to quote it in the reason.
 */
export function planReplay(source: ReplayBundle, registry: readonly RegisteredRunner[]): ReplayPlan {
  const ref = bundleRunnerRef(source);
  if (ref.name !== null) {
    const runner = registry.find((r) => r.name === ref.name);
    if (runner) return { mode: "native", runner, ref, reason: null };
  }
  let reason: string;
  if (ref.name === null && ref.recordedCommand === null) reason = "this trace has no runner (an imported transcript): there is no MAS to restart";
  else if (ref.name === null) reason = "the bundle names no runner; its own command is never run by the server";
  else reason = `runner "${ref.name}" is not registered on this server (an admin registers runners in SYMTRACE_RUNNERS_FILE); the bundle's own command is never run`;
  return { mode: "transcript", runner: null, ref, reason };
}

/**
 * The environment a registered runner starts with (the proxy variables are added over it):
 * BASE_PASS_ENV and `passEnv` from `serverEnv`, the bundle's `config.runner.env` entries whose
 * names are in `bundleEnv`, then the runner's fixed `env`.
 */
export function runnerEnv(runner: RegisteredRunner, bundleEnv: Record<string, string> | null | undefined, serverEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...BASE_PASS_ENV, ...runner.passEnv]) {
    const v = serverEnv[k];
    if (v !== undefined) out[k] = v;
  }
  for (const [k, v] of Object.entries(bundleEnv ?? {})) if (runner.bundleEnv.includes(k) && typeof v === "string") out[k] = v;
  return { ...out, ...runner.env };
}
