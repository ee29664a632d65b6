/** Environment of the app and CLI, validated with zod (fails fast with the variable's name). */
import path from "node:path";
import { z } from "zod";

const envSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^(file:|postgres(ql)?:\/\/)/, "DATABASE_URL must start with file: or postgresql://")
    .optional(),
  /** Where the shared folder (samples, fixtures) lives; defaults to a folder named "shared" beside the repo. */
  SYMTRACE_SHARED_DIR: z.string().optional(),
  /** "Replay from here": the live OpenAI-compatible endpoint (base URL ending in /v1). */
  SYMTRACE_REPLAY_UPSTREAM: z.string().url("SYMTRACE_REPLAY_UPSTREAM must be a URL ending in /v1").optional(),
  /** Model for live calls of replays (default: the bundle's own model). */
  SYMTRACE_REPLAY_MODEL: z.string().optional(),
  /** The real tool server live tool calls of a replay go to. */
  SYMTRACE_REPLAY_TOOL_UPSTREAM: z.string().url().optional(),
  /** Live Anthropic Messages endpoint of replays, without /v1 (default: SYMTRACE_REPLAY_UPSTREAM without its /v1: one server speaking both). */
  SYMTRACE_REPLAY_ANTHROPIC_UPSTREAM: z.string().url("SYMTRACE_REPLAY_ANTHROPIC_UPSTREAM must be a URL (without /v1)").optional(),
  /**
   * "1" when SYMTRACE_REPLAY_UPSTREAM is the scripted stand-in model (set by the demo starter,
   * scripts/replay-stack.ts): runs record `scripted: true` and the UI labels their results.
   */
  SYMTRACE_REPLAY_SCRIPTED: z.enum(["0", "1"], "SYMTRACE_REPLAY_SCRIPTED must be 0 or 1").optional(),
  /** Registered runners of native replay: a JSON file `{ "runners": [...] }` (lib/services/runners.ts). */
  SYMTRACE_RUNNERS_FILE: z.string().min(1).optional(),
  /** "0" turns off the built-in runners of the reference MAS in mas/ (default on). */
  SYMTRACE_BUILTIN_RUNNERS: z.enum(["0", "1"], "SYMTRACE_BUILTIN_RUNNERS must be 0 or 1").optional(),
  /** The import page: largest file accepted per upload, in bytes (default 256 MiB). */
  /** Where the app writes dataset releases (the Releases page); default data/releases in the working directory. */
  SYMTRACE_RELEASES_DIR: z.string().min(1).optional(),
  /** HMAC key of release pseudonyms: set it for pseudonyms that stay the same across releases (default: a random key per release). */
  SYMTRACE_RELEASE_PSEUDONYM_KEY: z.string().min(1).optional(),
  SYMTRACE_IMPORT_MAX_BYTES: z.coerce.number().int("SYMTRACE_IMPORT_MAX_BYTES must be a whole number of bytes").positive().optional(),
  /** OTLP/HTTP receiver: largest request body, in bytes, compressed and decompressed (default 32 MiB). */
  SYMTRACE_OTLP_MAX_BYTES: z.coerce.number().int("SYMTRACE_OTLP_MAX_BYTES must be a whole number of bytes").positive().optional(),
  /** OTLP/HTTP receiver: a trace is assembled into its case after this many seconds without a new span (default 30). */
  SYMTRACE_OTLP_IDLE_SECONDS: z.coerce.number().nonnegative("SYMTRACE_OTLP_IDLE_SECONDS must be a number of seconds >= 0").optional(),
  /** OTLP/HTTP receiver: staged spans of a trace whose case is assembled are deleted once it has been idle this many seconds (default 86400; 0 = never). */
  SYMTRACE_OTLP_RETAIN_SECONDS: z.coerce.number().nonnegative("SYMTRACE_OTLP_RETAIN_SECONDS must be a number of seconds >= 0").optional(),
  /** Windowed inspector: the symptom layer of a case is computed (on first use, in the app process, whole case in memory) only up to this many nodes (default 200000). */
  SYMTRACE_SYMPTOMS_MAX_NODES: z.coerce.number().int("SYMTRACE_SYMPTOMS_MAX_NODES must be a whole number of nodes").nonnegative().optional(),
  /** "0" turns off the OTLP trace assembler inside the app / `npm run worker` (default on). */
  SYMTRACE_OTLP_ASSEMBLER: z.enum(["0", "1"], "SYMTRACE_OTLP_ASSEMBLER must be 0 or 1").optional(),
});

/**
 * The live endpoint settings of replays (null when not configured: replays verify the prefix
 * only): `{ upstream, model, toolUpstream, anthropicUpstream, scripted }`; `scripted` is true when the upstream is
 * the scripted stand-in model (SYMTRACE_REPLAY_SCRIPTED=1 with an upstream set).
 */
export function replaySettings(env: Env = readEnv()) {
  return {
    upstream: env.SYMTRACE_REPLAY_UPSTREAM ?? null,
    model: env.SYMTRACE_REPLAY_MODEL ?? null,
    toolUpstream: env.SYMTRACE_REPLAY_TOOL_UPSTREAM ?? null,
    anthropicUpstream: env.SYMTRACE_REPLAY_ANTHROPIC_UPSTREAM ?? null,
    scripted: env.SYMTRACE_REPLAY_SCRIPTED === "1" && !!env.SYMTRACE_REPLAY_UPSTREAM,
  };
}

export type Env = z.infer<typeof envSchema>;

/** Parsed environment. @throws Error naming each bad variable. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const r = envSchema.safeParse(source);
  if (!r.success) {
    throw new Error("bad environment: " + r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  }
  return r.data;
}

/** Absolute path of the shared folder (samples and fixtures). */
export function sharedDir(env: Env = readEnv()): string {
  return path.resolve(env.SYMTRACE_SHARED_DIR ?? path.join(/*turbopackIgnore: true*/ process.cwd(), "../shared"));
}

/** Absolute path of the folder the app writes releases into (SYMTRACE_RELEASES_DIR, default data/releases). */
export function releasesDir(env: Env = readEnv()): string {
  return path.resolve(env.SYMTRACE_RELEASES_DIR ?? path.join(/*turbopackIgnore: true*/ process.cwd(), "data/releases"));
}
