/**
 * The experiment lifecycle's rules, independent of storage: the statuses of an experiment and of
 * an attempt, the limits, the error every experiment entry point throws, and the checks of frozen
 * settings and method names (lib/db stores what passes them; routes and the CLI report the JSON
 * path of what does not). Pure.
 */
import { InputError } from "../input-error";
import { resolveMarsSettings, type MarsSettings } from "./mars";

export const EXPERIMENT_STATUSES = ["queued", "running", "finished", "cancelled", "budget-exhausted"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];
export const FINAL_EXPERIMENT_STATUSES: readonly ExperimentStatus[] = ["finished", "cancelled", "budget-exhausted"];
export const ATTEMPT_STATUSES = ["queued", "running", "passed", "failed", "error", "no_verdict", "skipped", "cancelled"] as const;
export type AttemptRowStatus = (typeof ATTEMPT_STATUSES)[number];
export const FINAL_ATTEMPT_STATUSES: readonly AttemptRowStatus[] = ["passed", "failed", "error", "no_verdict", "skipped", "cancelled"];
/** At most this many attempts per (case, method). */
export const MAX_ATTEMPTS_K = 20;

/** A refused experiment input (code, JSON path). */
export class ExperimentError extends InputError {
  override name = "ExperimentError";
}

/** Counts per status. */
export type StatusCounts = Record<AttemptRowStatus, number>;

/** Zero for every attempt status. */
export const emptyStatusCounts = (): StatusCounts => ({ queued: 0, running: 0, passed: 0, failed: 0, error: 0, no_verdict: 0, skipped: 0, cancelled: 0 });

/** The fields of frozen settings that {@link checkSettings} reads (./settings.ts ExperimentSettings has them). */
export interface CheckableSettings {
  upstream?: unknown;
  toolUpstream?: unknown;
  model?: string | null;
  evaluator?: unknown;
  reproductionJudge?: { kind: string; command?: unknown; upstream?: unknown } | null;
  command?: unknown;
  seed: number;
  attempts: number;
  budget?: { maxCalls?: unknown; maxTokens?: unknown } | null;
  timeoutMs?: unknown;
  mars?: unknown;
  fake?: unknown;
}

function positiveIntOrNull(v: unknown, at: string): number | null {
  if (v == null) return null;
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) throw new ExperimentError("invalid", `${at} must be a positive integer or null; got ${JSON.stringify(v)}`, at);
  return v;
}

/**
 * Check and normalize frozen settings.
 * @throws ExperimentError "invalid" naming the JSON path ($.settings.…)
 */
export function checkSettings<S extends CheckableSettings>(settings: S): S {
  const s = settings as CheckableSettings;
  const url = (v: unknown, at: string, required: boolean): string | null => {
    if (v == null || v === "") {
      if (required) throw new ExperimentError("invalid", `${at} is required (an http(s) URL)`, at);
      return null;
    }
    if (typeof v !== "string" || !/^https?:\/\/\S+$/i.test(v)) throw new ExperimentError("invalid", `${at} must be an http(s) URL; got ${JSON.stringify(v)}`, at);
    return v;
  };
  const upstream = url(s.upstream, "$.settings.upstream", true) as string;
  const toolUpstream = url(s.toolUpstream, "$.settings.toolUpstream", false);
  if (!Number.isInteger(s.attempts) || s.attempts < 1 || s.attempts > MAX_ATTEMPTS_K) {
    throw new ExperimentError("invalid", `$.settings.attempts (k) must be an integer from 1 to ${MAX_ATTEMPTS_K}; got ${JSON.stringify(s.attempts)}`, "$.settings.attempts");
  }
  if (!Number.isInteger(s.seed) || s.seed < 0 || s.seed > 2 ** 31 - 1) throw new ExperimentError("invalid", `$.settings.seed must be an integer from 0 to 2^31-1; got ${JSON.stringify(s.seed)}`, "$.settings.seed");
  const judge = s.reproductionJudge;
  if (judge) {
    if (judge.kind === "command" && (typeof judge.command !== "string" || !judge.command.trim())) throw new ExperimentError("invalid", "$.settings.reproductionJudge.command must be a non-empty command", "$.settings.reproductionJudge.command");
    if (judge.kind === "llm") url(judge.upstream, "$.settings.reproductionJudge.upstream", true);
    if (judge.kind !== "command" && judge.kind !== "llm") throw new ExperimentError("invalid", `$.settings.reproductionJudge.kind must be "command" or "llm"`, "$.settings.reproductionJudge.kind");
  }
  if (s.command != null && (!Array.isArray(s.command) || s.command.length === 0 || !s.command.every((c) => typeof c === "string" && c !== ""))) {
    throw new ExperimentError("invalid", "$.settings.command must be a non-empty array of strings or null", "$.settings.command");
  }
  if (s.evaluator != null && (typeof s.evaluator !== "string" || !s.evaluator.trim())) throw new ExperimentError("invalid", "$.settings.evaluator must be a non-empty command or null", "$.settings.evaluator");
  const timeoutMs = s.timeoutMs ?? 600_000;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0)) throw new ExperimentError("invalid", "$.settings.timeoutMs must be a positive number of milliseconds", "$.settings.timeoutMs");
  const checked = {
    upstream,
    toolUpstream,
    model: s.model ?? null,
    evaluator: s.evaluator ?? null,
    reproductionJudge: judge ?? null,
    command: s.command ?? null,
    seed: s.seed,
    attempts: s.attempts,
    budget: { maxCalls: positiveIntOrNull(s.budget?.maxCalls, "$.settings.budget.maxCalls"), maxTokens: positiveIntOrNull(s.budget?.maxTokens, "$.settings.budget.maxTokens") },
    timeoutMs,
    ...(s.mars != null ? { mars: checkMarsSettings(s.mars) } : {}),
    ...(typeof s.fake === "string" && s.fake.trim() ? { fake: s.fake.trim() } : {}),
  };
  return checked as unknown as S;
}

/** lib/experiments resolveMarsSettings as an ExperimentError naming the JSON path. */
export function checkMarsSettings(m: unknown): MarsSettings {
  try {
    return resolveMarsSettings(m as Partial<MarsSettings>);
  } catch (e) {
    const msg = (e as Error).message;
    throw new ExperimentError("invalid", msg, /^(\$\.settings\.mars[\w.]*)/.exec(msg)?.[1] ?? "$.settings.mars");
  }
}

/**
 * Check method names (known, no duplicates, at least one).
 * @param known the method names that exist
 * @throws ExperimentError "invalid" at `$.methods[i]`
 */
export function checkMethodNames(methods: readonly string[], known: readonly string[]): string[] {
  if (!Array.isArray(methods) || methods.length === 0) throw new ExperimentError("invalid", `$.methods must name at least one of ${known.join(", ")}`, "$.methods");
  const seen = new Set<string>();
  methods.forEach((m, i) => {
    if (!(known).includes(m)) throw new ExperimentError("invalid", `$.methods[${i}]: unknown method "${m}"; known: ${known.join(", ")}`, `$.methods[${i}]`);
    if (seen.has(m)) throw new ExperimentError("invalid", `$.methods[${i}]: "${m}" is listed twice`, `$.methods[${i}]`);
    seen.add(m);
  });
  return [...methods];
}
