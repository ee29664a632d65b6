/**
 * Process entry for the reference MAS: reads the configuration from the environment,
 * runs the system and prints `{"final": ...}` as one JSON line on stdout.
 *
 * Environment:
 * - OPENAI_BASE_URL   (required) OpenAI-compatible base URL ending in /v1 — the only LLM endpoint used
 * - SYMTRACE_TOOL_URL (required) tool gateway base URL: tools are `POST <url>/<toolName>`
 * - SYMTRACE_MODEL    model name (default "scripted-model")
 * - SYMTRACE_TASK     the task, used when no task is given on the command line
 * - SYMTRACE_STREAM=1 use streaming chat completions
 * - SYMTRACE_MAX_ROUNDS  cap on orchestration rounds / conversation turns
 * - SYMTRACE_LLM_RETRIES SDK retries (default 0), OPENAI_API_KEY (default "symtrace-local")
 * - SYMTRACE_ATTEMPT_SEED sent as OpenAI's `user` field ("symtrace-attempt-<seed>"), which the replay
 *   normalization drops: an experiment attempt's identity for seeded stochastic endpoints
 * Exit codes: 0 ok, 1 run failed, 2 bad configuration.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLlm } from "./llm";
import type { RunContext } from "./agent";

export interface MasConfig {
  baseUrl: string;
  toolUrl: string;
  model: string;
  task: string;
  stream: boolean;
  maxRounds?: number;
}

export class ConfigError extends Error {}

export function readMasConfig(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): MasConfig {
  const baseUrl = env.OPENAI_BASE_URL?.trim();
  const toolUrl = env.SYMTRACE_TOOL_URL?.trim();
  const task = (argv.join(" ").trim() || env.SYMTRACE_TASK?.trim()) ?? "";
  if (!baseUrl) throw new ConfigError("OPENAI_BASE_URL is not set (an OpenAI-compatible base URL ending in /v1)");
  if (!toolUrl) throw new ConfigError("SYMTRACE_TOOL_URL is not set (the tool gateway base URL)");
  if (!task) throw new ConfigError("no task: pass it as arguments or set SYMTRACE_TASK");
  const rounds = env.SYMTRACE_MAX_ROUNDS ? Number(env.SYMTRACE_MAX_ROUNDS) : undefined;
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds > 0)) throw new ConfigError("SYMTRACE_MAX_ROUNDS must be a positive integer");
  return { baseUrl, toolUrl, model: env.SYMTRACE_MODEL?.trim() || "scripted-model", task, stream: env.SYMTRACE_STREAM === "1", maxRounds: rounds };
}

/** True when the module with this `import.meta.url` is the process entry script. */
export function isMain(moduleUrl: string): boolean {
  return !!process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/**
 * Run a MAS as a process when `moduleUrl` (the caller's `import.meta.url`) is the entry
 * script (importing the module does nothing): `body` returns the final answer (any JSON value).
 */
export function runMas(moduleUrl: string, name: string, body: (cfg: MasConfig, ctx: RunContext) => Promise<unknown>): void {
  if (!isMain(moduleUrl)) return;
  let cfg: MasConfig;
  try {
    cfg = readMasConfig();
  } catch (e) {
    process.stderr.write(`${name}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  }
  const retries = process.env.SYMTRACE_LLM_RETRIES ? Number(process.env.SYMTRACE_LLM_RETRIES) : 0;
  const attempt = process.env.SYMTRACE_ATTEMPT_SEED?.trim();
  const llm = createLlm({ baseUrl: cfg.baseUrl, model: cfg.model, stream: cfg.stream, apiKey: process.env.OPENAI_API_KEY || undefined, maxRetries: retries, user: attempt ? `symtrace-attempt-${attempt}` : undefined });
  body(cfg, { llm, toolUrl: cfg.toolUrl }).then(
    (final) => process.stdout.write(`${JSON.stringify({ final })}\n`, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`${name}: failed: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
