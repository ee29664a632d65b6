/**
 * The replay executor: ONE entry point that runs "replay from here" for the CLI (`symtrace
 * replay`, cli/replay.ts) and the app's replay worker (issue 7). Node only (child processes,
 * sockets, fetch); the decisions are lib/replay's, the HTTP side is proxy/.
 *
 * Two modes: native when the caller gives a **registered runner** (`spec.runner`, see ./runners.ts
 * `planReplay`) or a command it trusts (`spec.command`: the CLI user typed it); transcript otherwise.
 * A command or environment taken from bundle content (`config.runner.command` / `.env`) is NEVER
 * run here (issue 10 item 1): the bundle only names its runner.
 *
 *   native      (seeds/000 §3, Algorithm 2; ../shared/spec/bundle-v1.md §Replay) the MAS command is
 *               restarted behind the OpenAI-compatible proxy + tool gateway (startBoundaryProxy) with a
 *               fail-closed ReplaySession: the recorded prefix is served and verified record by record,
 *               the target boundary (resolveTarget) goes live with q ⊕ Δ (appendGuidance), the rest
 *               of the run is live and recorded (TraceBuilder). Outcomes: completed (new bundle),
 *               prefix-verified (no upstream: the MAS is stopped at the target), diverged (the
 *               first-divergence report, Appendix A.2), cancelled, failed.
 *   transcript  imported transcripts (Who&When, MAD, Langfuse …) have no runner to restart: the
 *               recorded conversation up to (not including) the target node is rebuilt as chat
 *               messages and continued live by one chat-completions call with the same model; the
 *               continuation is one assistant message. Prefix node hashes are recomputed (the
 *               "verified" prefix). Outcomes: completed, prefix-verified (no upstream), cancelled, failed.
 *
 * `executeReplay` never throws for expected outcomes: bad targets, a command that cannot start,
 * an upstream error, a timeout and internal errors all come back as `{ status: "failed", error }`
 * (one line, no stack). `executeReplayWithDetails` returns the same result plus the details the
 * CLI prints (target resolution, node-hash checks, MAS exit code, failure kind).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { buildBundle, canonicalJson, type BundleEdge, type BundleNode, type NodeDraft, type NodeType, type RecordDraft, type ReplayBundle } from "../bundle";
import {
  DEFAULT_NORMALIZATION,
  ReplaySession,
  TargetError,
  agentActionContent,
  assistantOf,
  fastHash,
  llmCallContent,
  normalizeRequest,
  type BoundarySession,
  type DivergenceReport,
  type Step,
  type TargetResolution,
} from "../replay";
import { startBoundaryProxy, type BoundaryProxy, type ProxyStop } from "../../proxy";
import { runnerEnv, type RegisteredRunner } from "./runners";

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/** What to replay, where, with which guidance and against which live endpoints. */
export interface ReplayRunSpec {
  /** The source bundle (from lib/db exportBundle, or a validated file). Must be a valid bundle v1. */
  source: ReplayBundle;
  /**
   * Any node of the source. Native: mapped by `resolveTarget` to the LLM boundary where the
   * intervention acts (a node with no LLM record at or after it → failed). Transcript: the
   * conversation is cut right before this node.
   */
  targetNodeId: string;
  /** Δ, appended as one `{ role: "user", content: Δ }` message to the target boundary's request (may be ""). */
  guidance: string;
  /** Live OpenAI-compatible base URL ending in /v1; null → stop at the target: `prefix-verified`. */
  upstream: string | null;
  /** Real tool server for live tool calls (native); null → live tool calls fail (tool_result status error). */
  toolUpstream: string | null;
  /**
   * Model override for live calls. Transcript: the continuation's model. Native: passed to the MAS
   * as SYMTRACE_MODEL (the reference MAS put it in every request, so the first recorded request
   * then differs: a native replay with another model diverges at seq 0 unless it was recorded so).
   */
  model?: string | null;
  /**
   * A MAS command the caller trusts (the CLI: typed after `--`, or the bundle's own with
   * `--allow-bundle-command`). Runs with the caller's environment plus `env`. Forces native mode.
   * Never defaulted from the bundle.
   */
  command?: string[] | null;
  /**
   * A registered runner (./runners.ts, resolved by `planReplay`): native mode with its command, its
   * cwd and only its environment (`runnerEnv`: base + passEnv + allowed bundle keys + fixed env).
   * Used when no `command` is given.
   */
  runner?: RegisteredRunner | null;
  /** Working directory of a `command` (default `process.cwd()`); a runner uses its own `cwd`. */
  cwd?: string;
  /** Extra environment of the MAS; OPENAI_API_KEY here is also the transcript call's key. */
  env?: Record<string, string>;
  /** Id of the output bundle (default `${source.id}/replay/${boundaryNodeId}/${Date.now() base 36}`). */
  newBundleId?: string;
  /** Whole-run limit in ms (default 600000 = 10 min); 0 or Infinity = no limit. Exceeded → failed. */
  timeoutMs?: number;
}

/**
 * Progress of a run. `verified` never decreases; `prefixTotal` is the number of records before the
 * boundary (native) or of nodes before the target (transcript); a completed run's last progress
 * has `phase: "finishing"` and `verified === prefixTotal`.
 */
export interface ReplayProgress {
  phase: "starting" | "prefix" | "live" | "finishing";
  verified: number;
  prefixTotal: number;
  /** Live boundary calls made so far (native: LLM and tool requests forwarded live; transcript: 0 or 1). */
  liveCalls: number;
  /** Native: the resolved LLM boundary; transcript: the target node; null before resolution. */
  boundaryNodeId: string | null;
}

/** How a run ended. */
export type ReplayRunResult =
  | { status: "completed"; mode: "native" | "transcript"; bundle: ReplayBundle; boundaryNodeId: string; verified: number; liveCalls: number }
  | { status: "prefix-verified"; mode: "native" | "transcript"; verified: number; boundaryNodeId: string }
  | { status: "diverged"; mode: "native"; report: DivergenceReport; verified: number }
  | { status: "cancelled"; verified: number }
  | { status: "failed"; error: string; verified: number };

/** Why a run failed (for callers that map failures, e.g. CLI exit codes). */
export type ReplayFailureKind = "target" | "config" | "no-command" | "spawn" | "timeout" | "upstream" | "internal";

/** What the CLI prints besides the result. */
export interface ReplayRunDetails {
  mode: "native" | "transcript";
  /** Native: the target resolution (null when it failed). Transcript: null. */
  target: TargetResolution | null;
  /** Native: prefix nodes whose content hash was re-derived and checked; transcript: prefix nodes re-hashed. */
  checkedNodes: number;
  /** Native: whether node hashes are checked (source recorded by the symtrace proxy). */
  nodeHashCheck: boolean;
  /** Native: how the MAS ended (null when it was killed or never started). */
  masExitCode: number | null;
  masSignal: string | null;
  /** Native: the MAS's `{"final": ...}` stdout value; transcript: the continuation text. */
  final: unknown;
  /** Set when `result.status === "failed"`. */
  failure: ReplayFailureKind | null;
  /** The last 4 KB of the MAS's stderr (it is also passed through to our stderr). */
  stderrTail: string;
}

/** Options of a run. */
export interface ReplayRunOptions {
  /** Abort → the MAS process tree is killed, the proxy closed (or the transcript call aborted): `cancelled`. */
  signal?: AbortSignal;
  /** Called synchronously on progress; exceptions it throws are ignored. */
  onProgress?: (p: ReplayProgress) => void;
}

/** Mode a spec runs in: native iff it carries a trusted command or a registered runner (never decided by bundle content). */
export function specModeOf(spec: Pick<ReplayRunSpec, "command" | "runner">): "native" | "transcript" {
  return (spec.command?.length ?? 0) > 0 || spec.runner ? "native" : "transcript";
}

/**
 * Run "replay from here" (see the module doc for the two modes).
 * @returns completed (with the new bundle, valid bundle v1, `parent` = source/target/guidance/mode),
 *   prefix-verified, diverged (native: first-divergence report), cancelled or failed. Never throws.
 */
export async function executeReplay(spec: ReplayRunSpec, opts?: { signal?: AbortSignal; onProgress?: (p: ReplayProgress) => void }): Promise<ReplayRunResult> {
  return (await executeReplayWithDetails(spec, opts)).result;
}

/**
 * `executeReplay` plus the run's details (target resolution, node-hash checks, MAS exit code,
 * failure kind, stderr tail). Never throws.
 */
export async function executeReplayWithDetails(spec: ReplayRunSpec, opts: ReplayRunOptions = {}): Promise<{ result: ReplayRunResult; details: ReplayRunDetails }> {
  const native = specModeOf(spec) === "native";
  const details: ReplayRunDetails = {
    mode: native ? "native" : "transcript",
    target: null,
    checkedNodes: 0,
    nodeHashCheck: false,
    masExitCode: null,
    masSignal: null,
    final: undefined,
    failure: null,
    stderrTail: "",
  };
  const progress = new ProgressEmitter(opts.onProgress);
  let result: ReplayRunResult;
  try {
    result = native ? await runNative(spec, opts, details, progress) : await runTranscript(spec, opts, details, progress);
  } catch (e) {
    details.failure = "internal";
    result = { status: "failed", error: `replay failed: ${oneLine(e)}`, verified: progress.verified };
  }
  return { result, details };
}

// ---------------------------------------------------------------------------------------------
// Shared helpers (also used by `symtrace record`)
// ---------------------------------------------------------------------------------------------

/** How a MAS process ended. */
export interface MasRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last stdout line that is a JSON object with a `final` key (its value), else undefined. */
  final: unknown;
  /** Set when the command could not be started (ENOENT, …). */
  spawnError: string | null;
  /** Last 4 KB of stderr. */
  stderrTail: string;
}

/** A running MAS: `done` resolves when it exited; `stop()` kills its whole process group. */
export interface MasProcess {
  done: Promise<MasRunResult>;
  /** SIGTERM to the process group, SIGKILL 2 s later if still running. */
  stop(): void;
  /** SIGKILL to the process group now (no-op when it is gone). */
  kill(): void;
}

/** Last stdout line that is a JSON object with a `final` key. */
export function finalOf(stdout: string): unknown {
  const lines = stdout.split("\n").map((l) => l.trim()).filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const v = JSON.parse(lines[i]);
      if (v && typeof v === "object" && !Array.isArray(v) && "final" in v) return (v as { final: unknown }).final;
    } catch {
      /* not JSON */
    }
  }
  return undefined;
}

const STDERR_TAIL = 4096;

/**
 * Spawn a MAS in its own process group (detached), stdout collected for the final value, stderr
 * passed through to our stderr.
 * @param env merged over `process.env` (or, with `opts.inheritEnv: false`, the whole environment)
 */
export function runMasProcess(command: string[], env: Record<string, string>, opts: { cwd?: string; inheritEnv?: boolean } = {}): MasProcess {
  let child: ChildProcess | undefined;
  let out = "";
  let errTail = "";
  const done = new Promise<MasRunResult>((resolve) => {
    try {
      child = spawn(command[0], command.slice(1), { env: (opts.inheritEnv === false ? env : { ...process.env, ...env }) as NodeJS.ProcessEnv, cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    } catch (e) {
      resolve({ exitCode: null, signal: null, final: undefined, spawnError: (e as Error).message, stderrTail: "" });
      return;
    }
    child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr!.on("data", (c: Buffer) => {
      process.stderr.write(c);
      errTail = (errTail + c.toString("utf8")).slice(-STDERR_TAIL);
    });
    child.once("error", (e) => resolve({ exitCode: null, signal: null, final: undefined, spawnError: e.message, stderrTail: errTail }));
    child.once("close", (code, signal) => resolve({ exitCode: code, signal, final: finalOf(out), spawnError: null, stderrTail: errTail }));
  });
  const signalGroup = (sig: NodeJS.Signals) => {
    if (!child || child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  return {
    done,
    stop: () => {
      if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      signalGroup("SIGTERM");
      setTimeout(() => signalGroup("SIGKILL"), 2000).unref();
    },
    kill: () => signalGroup("SIGKILL"),
  };
}

/**
 * Environment of a MAS behind the proxy: OPENAI_BASE_URL (proxy, ends /v1), SYMTRACE_TOOL_URL
 * (gateway), OPENAI_API_KEY (ours, or "symtrace-local"), SYMTRACE_TASK (the task prompt), over `extra`.
 */
export function masEnv(proxyUrl: string, toolUrl: string, task: string, extra: Record<string, string> = {}, apiKey?: string): Record<string, string> {
  return {
    ...extra,
    OPENAI_BASE_URL: proxyUrl,
    SYMTRACE_TOOL_URL: toolUrl,
    OPENAI_API_KEY: apiKey || process.env.OPENAI_API_KEY || "symtrace-local",
    ...(task ? { SYMTRACE_TASK: task } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------------

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_TRANSCRIPT_MODEL = "gpt-4o-mini";

/** One line, no stack. */
function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0].slice(0, 1000);
}

function defaultId(source: ReplayBundle, at: string): string {
  return `${source.id}/replay/${at}/${Date.now().toString(36)}`;
}

/** A finite positive limit, or null (no limit). */
function limitOf(ms: number | undefined): number | null {
  const v = ms ?? DEFAULT_TIMEOUT_MS;
  return Number.isFinite(v) && v > 0 ? Math.min(v, 2_147_483_647) : null;
}

/** Keeps `verified` monotone and swallows callback errors. */
class ProgressEmitter {
  verified = 0;
  prefixTotal = 0;
  liveCalls = 0;
  boundaryNodeId: string | null = null;
  constructor(private readonly cb?: (p: ReplayProgress) => void) {}

  emit(phase: ReplayProgress["phase"]): void {
    if (!this.cb) return;
    try {
      this.cb({ phase, verified: this.verified, prefixTotal: this.prefixTotal, liveCalls: this.liveCalls, boundaryNodeId: this.boundaryNodeId });
    } catch {
      /* a progress callback must not break the run */
    }
  }
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

// ---- native ---------------------------------------------------------------------------------

async function runNative(spec: ReplayRunSpec, opts: ReplayRunOptions, details: ReplayRunDetails, progress: ProgressEmitter): Promise<ReplayRunResult> {
  const { source } = spec;
  const failed = (kind: ReplayFailureKind, error: string): ReplayRunResult => {
    details.failure = kind;
    return { status: "failed", error, verified: progress.verified };
  };
  const runner = spec.command?.length ? null : (spec.runner ?? null);
  const command = spec.command?.length ? spec.command : (runner?.command ?? []);
  if (command.length === 0) return failed("no-command", "no command: give a registered runner or a command (a bundle's own command is never run)");

  let session: ReplaySession;
  try {
    session = new ReplaySession({ source, targetNodeId: spec.targetNodeId, guidance: spec.guidance, stopAtTarget: !spec.upstream });
  } catch (e) {
    return failed(e instanceof TargetError ? "target" : "config", oneLine(e));
  }
  const t = session.target!;
  details.target = t;
  details.nodeHashCheck = session.checksNodeHashes;
  progress.prefixTotal = t.seq;
  progress.boundaryNodeId = t.boundaryNodeId;
  progress.emit("starting");
  if (opts.signal?.aborted) return { status: "cancelled", verified: 0 };

  // The proxy sees this wrapper: every served record / live call is reported as progress.
  const watched: BoundarySession = {
    mode: "replay",
    begin(call): Step {
      const step = session.begin(call);
      if (step.kind === "recorded") {
        progress.verified = session.verified;
        progress.emit("prefix");
      } else if (step.kind === "live") {
        progress.liveCalls++;
        progress.emit("live");
      }
      return step;
    },
    complete: (ticket, outcome) => session.complete(ticket, outcome),
  };

  let stop: ProxyStop | null = null;
  let mas: MasProcess | null = null;
  let cancelled = false;
  let timedOut = false;
  const replayCfg = source.config.replay as Rec | null | undefined;
  const proxy: BoundaryProxy = await startBoundaryProxy({
    session: watched,
    upstream: spec.upstream ?? undefined,
    toolUpstream: spec.toolUpstream ?? undefined,
    models: replayCfg?.models,
    defaultModel: spec.model ?? source.config.model ?? undefined,
    onStop: (s) => {
      stop = s;
      mas?.stop();
    },
  });
  const onAbort = () => {
    cancelled = true;
    mas?.stop();
  };
  const limit = limitOf(spec.timeoutMs);
  let timer: NodeJS.Timeout | null = null;
  let run: MasRunResult;
  try {
    const base = runner ? runnerEnv(runner, source.config.runner?.env) : {};
    const extra: Record<string, string> = { ...base, ...(spec.env ?? {}), ...(spec.model ? { SYMTRACE_MODEL: spec.model } : {}) };
    mas = runMasProcess(command, masEnv(proxy.llmUrl, proxy.toolUrl, source.task.prompt, extra, spec.env?.OPENAI_API_KEY), runner ? { cwd: runner.cwd, inheritEnv: false } : { cwd: spec.cwd });
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (limit !== null) {
      timer = setTimeout(() => {
        timedOut = true;
        mas?.stop();
      }, limit);
    }
    run = await mas.done;
    if (cancelled || timedOut) mas.kill(); // nothing of the process group may outlive the run
    else await proxy.idle();
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    if (timer) clearTimeout(timer);
    await proxy.close();
  }
  details.masExitCode = run.exitCode;
  details.masSignal = run.signal;
  details.final = run.final;
  details.stderrTail = run.stderrTail;
  details.checkedNodes = session.checkedNodes;
  progress.verified = session.verified;

  if (run.spawnError) return failed("spawn", `cannot start ${command[0]}: ${run.spawnError}`);
  if (cancelled) return { status: "cancelled", verified: session.verified };
  if (timedOut) return failed("timeout", `replay timed out after ${limit} ms (the MAS was stopped after ${session.verified} verified records and ${progress.liveCalls} live calls)`);
  const stopped = stop as ProxyStop | null;
  if (stopped?.kind === "prefix-verified") {
    progress.emit("finishing");
    return { status: "prefix-verified", mode: "native", verified: stopped.verified, boundaryNodeId: t.boundaryNodeId };
  }
  const report: DivergenceReport | null = stopped?.kind === "diverged" ? stopped.report : session.end();
  if (report) return { status: "diverged", mode: "native", report, verified: report.verified };
  progress.emit("finishing");
  const id = spec.newBundleId ?? defaultId(source, t.boundaryNodeId);
  const bundle = session.toBundle({ id, final: run.final, runner: { ...(runner ? { name: runner.name } : {}), command, ...(source.config.runner?.env ? { env: source.config.runner.env } : {}) } });
  return { status: "completed", mode: "native", bundle, boundaryNodeId: t.boundaryNodeId, verified: session.verified, liveCalls: bundle.records.length - t.seq };
}

// ---- transcript -----------------------------------------------------------------------------

/** A chat message of the rebuilt transcript. */
export interface TranscriptMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

const GENERIC_ROLES = new Set(["user", "assistant", "system", "tool", "function", "developer", "human"]);
const HUMAN = new Set(["human", "user"]);

function canon(v: unknown): string {
  try {
    return canonicalJson(v);
  } catch {
    return JSON.stringify(v) ?? String(v);
  }
}

/** Text of an OpenAI-style message (string content, text parts, tool calls). */
function messageText(m: unknown): string {
  if (!isRec(m)) return typeof m === "string" ? m : canon(m);
  const parts: string[] = [];
  if (typeof m.content === "string") parts.push(m.content);
  else if (Array.isArray(m.content)) parts.push(m.content.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : canon(p))).join(""));
  if (Array.isArray(m.tool_calls)) {
    for (const tc of m.tool_calls) {
      const fn = isRec(tc) && isRec(tc.function) ? tc.function : isRec(tc) ? tc : {};
      parts.push(`→ ${String(fn.name ?? "tool")}(${typeof fn.arguments === "string" ? fn.arguments : canon(fn.arguments ?? null)})`);
    }
  }
  return parts.join("\n");
}

/**
 * The full text a node carries, never truncated: `content.text` (Who&When, MAD), a string content,
 * `content.content`, the output messages of an LLM span (Langfuse/OTLP), `content.final`,
 * `content.output`, a span's `input` (or "" for a span without either), else the canonical JSON of
 * the content.
 */
export function nodeText(node: BundleNode): string {
  const c = node.content;
  if (typeof c === "string") return c;
  if (!isRec(c)) return c === null || c === undefined ? "" : canon(c);
  if (typeof c.text === "string") return c.text;
  if (typeof c.content === "string" || Array.isArray(c.content) || Array.isArray(c.tool_calls)) return messageText(c);
  if (isRec(c.messages) && Array.isArray(c.messages.output) && c.messages.output.length > 0) return c.messages.output.map(messageText).join("\n");
  if (typeof c.finalAnswer === "string") return c.finalAnswer;
  if ("final" in c) return typeof c.final === "string" ? c.final : canon(c.final ?? null);
  if ("output" in c && c.output !== undefined && c.output !== null) return typeof c.output === "string" ? c.output : canon(c.output);
  // A span (Langfuse/OTLP) without output: its input, else nothing (span metadata is not conversation text).
  if ("spanId" in c) return c.input === undefined || c.input === null ? "" : typeof c.input === "string" ? c.input : canon(c.input);
  return canon(c);
}

/** Who speaks in a node: a speaker-like `content.role` ("Orchestrator (-> WebSurfer)"), else the agent / name / role. */
function speakerOf(node: BundleNode): string | null {
  const c = isRec(node.content) ? node.content : {};
  const role = str(c.role);
  if (role && !GENERIC_ROLES.has(role.toLowerCase())) return role;
  return str(node.agent) ?? str(c.name) ?? role;
}

/** The message one node becomes, or null when the node carries no conversation text of its own. */
function nodeMessage(node: BundleNode): TranscriptMessage | null {
  const c = isRec(node.content) ? node.content : {};
  // An llm_call recorded by the symtrace proxy holds only call metadata; its agent_action holds the text.
  if (node.type === "llm_call" && "requestHash" in c && "messageCount" in c) return null;
  const text = nodeText(node);
  if (text === "" && "spanId" in c) return null;
  const role = str(c.role)?.toLowerCase() ?? null;
  if (role === "system" || role === "developer") return { role: "system", content: text };
  const speaker = speakerOf(node);
  if (node.type === "tool_result") return { role: "user", content: `[tool result from ${str(node.agent) ?? str(c.tool) ?? speaker ?? "tool"}] ${text}` };
  const who = (str(node.agent) ?? str(c.name) ?? role ?? "").toLowerCase();
  if (HUMAN.has(who) || node.id.startsWith("task_")) return { role: "user", content: text };
  return { role: "assistant", content: `[${speaker ?? node.type}] ${text}` };
}

/**
 * The chat a transcript continuation sends (before the model and temperature are added): a system
 * message saying what to do, every node before the target in the observed order as one message
 * (user for the task / human, `[tool result from X] …` as user for tool results, `[Agent] …` as
 * assistant for agent messages; text kept whole), the task prompt first when no node is a user
 * message, and the guidance as the final user message (omitted when "").
 * @throws Error when the target is not a node of the source
 */
export function transcriptMessages(source: ReplayBundle, targetNodeId: string, guidance: string): TranscriptMessage[] {
  const tpos = source.order.indexOf(targetNodeId);
  const byId = new Map(source.graph.nodes.map((n) => [n.id, n]));
  const target = byId.get(targetNodeId);
  if (tpos < 0 || !target) throw new TargetError(`target "${targetNodeId}" is not a node of bundle "${source.id}"`);
  const body: TranscriptMessage[] = [];
  for (const id of source.order.slice(0, tpos)) {
    const m = nodeMessage(byId.get(id)!);
    if (m) body.push(m);
  }
  const as = speakerOf(target);
  const system: TranscriptMessage = {
    role: "system",
    content:
      `You are continuing a recorded multi-agent run${source.config.mas ? ` (${source.config.mas})` : ""}. ` +
      "The messages below are the run so far, in order: agent messages are prefixed with [agent name], tool outputs with [tool result from <tool>]. " +
      `Write the next message of the run${as && !HUMAN.has(as.toLowerCase()) ? ` as ${as}` : ""}, following the last user instruction if there is one.`,
  };
  const hasUser = body.some((m) => m.role === "user");
  return [
    system,
    ...(!hasUser && source.task.prompt ? [{ role: "user" as const, content: source.task.prompt }] : []),
    ...body,
    ...(guidance ? [{ role: "user" as const, content: guidance }] : []),
  ];
}

const trimSlash = (u: string) => u.replace(/\/+$/, "");

function shortLabel(s: string, n = 80): string {
  const one = s.replace(/\s+/g, " ").trim();
  const cps = Array.from(one);
  return cps.length > n ? cps.slice(0, n - 1).join("") + "…" : one || "(empty message)";
}

async function runTranscript(spec: ReplayRunSpec, opts: ReplayRunOptions, details: ReplayRunDetails, progress: ProgressEmitter): Promise<ReplayRunResult> {
  const s = spec.source;
  const failed = (kind: ReplayFailureKind, error: string): ReplayRunResult => {
    details.failure = kind;
    return { status: "failed", error, verified: progress.verified };
  };
  let messages: TranscriptMessage[];
  try {
    messages = transcriptMessages(s, spec.targetNodeId, spec.guidance);
  } catch (e) {
    return failed("target", oneLine(e));
  }
  const tpos = s.order.indexOf(spec.targetNodeId);
  const prefixIds = s.order.slice(0, tpos);
  const byId = new Map(s.graph.nodes.map((n) => [n.id, n]));
  progress.prefixTotal = prefixIds.length;
  progress.boundaryNodeId = spec.targetNodeId;
  progress.emit("starting");

  // The prefix: every node's content hash recomputed and compared with the source's.
  const every = Math.max(1, Math.floor(prefixIds.length / 100));
  for (let i = 0; i < prefixIds.length; i++) {
    if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };
    const n = byId.get(prefixIds[i])!;
    const h = fastHash(n.content);
    if (h !== n.contentHash) return failed("config", `prefix node ${n.id}: content hash ${h} differs from the stored ${n.contentHash} (the source bundle is corrupt)`);
    progress.verified = i + 1;
    details.checkedNodes = i + 1;
    if ((i + 1) % every === 0 || i + 1 === prefixIds.length) progress.emit("prefix");
  }
  if (!spec.upstream) {
    progress.emit("finishing");
    return { status: "prefix-verified", mode: "transcript", verified: prefixIds.length, boundaryNodeId: spec.targetNodeId };
  }
  if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };

  const model = spec.model ?? s.config.model ?? DEFAULT_TRANSCRIPT_MODEL;
  const request = { model, messages, temperature: s.config.temperature ?? 0 };
  progress.liveCalls = 1;
  progress.emit("live");
  const limit = limitOf(spec.timeoutMs);
  const signals = [opts.signal, limit !== null ? AbortSignal.timeout(limit) : undefined].filter((x): x is AbortSignal => !!x);
  const apiKey = spec.env?.OPENAI_API_KEY || process.env.OPENAI_API_KEY;
  const t0 = performance.now();
  let status: number;
  let text: string;
  try {
    const res = await fetch(`${trimSlash(spec.upstream)}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(request),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
    status = res.status;
    text = await res.text();
  } catch (e) {
    if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };
    if ((e as Error).name === "TimeoutError") return failed("timeout", `replay timed out after ${limit} ms waiting for ${spec.upstream}`);
    return failed("upstream", `upstream ${spec.upstream} unreachable: ${oneLine(e)}`);
  }
  const latencyMs = Math.round(performance.now() - t0);
  if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return failed("upstream", `upstream answered HTTP ${status} with a body that is not JSON: ${text.slice(0, 300)}`);
  }
  if (status >= 400) {
    const msg = isRec(body) && isRec(body.error) && typeof body.error.message === "string" ? body.error.message : text.slice(0, 300);
    return failed("upstream", `upstream answered HTTP ${status}: ${msg}`);
  }
  const a = assistantOf(body);
  if (!a) return failed("upstream", `upstream answered HTTP ${status} without an assistant message: ${text.slice(0, 300)}`);
  const continuation = messageText(a.message);
  details.final = continuation;
  progress.emit("finishing");

  // The output bundle: prefix kept (ids, hashes, edges, records), then llm_call → agent_action → final_result.
  const all = new Set(s.graph.nodes.map((n) => n.id));
  const next: Partial<Record<NodeType, number>> = {};
  for (const n of s.graph.nodes) {
    const m = /_(\d+)$/.exec(n.id);
    if (m && n.id.startsWith(n.type)) next[n.type] = Math.max(next[n.type] ?? 0, Number(m[1]) + 1);
  }
  const newId = (type: NodeType): string => {
    for (;;) {
      const i = next[type] ?? 0;
      next[type] = i + 1;
      const id = `${type}_${String(i).padStart(4, "0")}`;
      if (!all.has(id)) {
        all.add(id);
        return id;
      }
    }
  };
  const normalization = DEFAULT_NORMALIZATION;
  const normalized = normalizeRequest("llm", request, normalization);
  const requestHash = fastHash(normalized);
  const target = byId.get(spec.targetNodeId)!;
  const agent = speakerOf(target) !== null && !HUMAN.has(speakerOf(target)!.toLowerCase()) ? (str(target.agent) ?? speakerOf(target)) : null;
  const llmId = newId("llm_call");
  const actionId = newId("agent_action");
  const finalId = newId("final_result");
  const prefix = new Set(prefixIds);
  const nodes: NodeDraft[] = [
    ...prefixIds.map((id) => byId.get(id)!),
    { id: llmId, type: "llm_call", label: `${model} call (transcript continuation)`, content: llmCallContent(normalized, requestHash, { response: body, httpStatus: status }), status: "success" },
    { id: actionId, type: "agent_action", ...(agent ? { agent } : {}), label: shortLabel(continuation), content: agentActionContent(body) },
    { id: finalId, type: "final_result", ...(agent ? { agent } : {}), label: shortLabel(continuation), content: { final: continuation } },
  ];
  const edges: BundleEdge[] = s.graph.edges.filter((e) => prefix.has(e.from) && prefix.has(e.to));
  const addEdge = (from: string, to: string, kind: "data" | "control") => {
    if (!edges.some((e) => e.from === from && e.to === to)) edges.push({ from, to, kind });
  };
  // The continuation depends on what the target depended on, and on the transcript it continues.
  for (const e of s.graph.edges) if (e.to === spec.targetNodeId && prefix.has(e.from)) addEdge(e.from, llmId, e.kind);
  if (prefixIds.length) addEdge(prefixIds[prefixIds.length - 1], llmId, "data");
  addEdge(llmId, actionId, "data");
  addEdge(actionId, finalId, "data");
  const records: RecordDraft[] = [
    ...s.records.filter((r) => prefix.has(r.nodeId)).map((r) => ({ ...r })),
    {
      nodeId: llmId,
      boundary: "llm",
      request: normalized,
      response: body,
      meta: { latencyMs, mode: "transcript-continuation", ...(spec.guidance ? { guidance: spec.guidance } : {}) },
    },
  ];
  const { id: _id, format: _f, parent: _p, task, initialState, config: _c, graph: _g, order: _o, records: _r, outcome: _out, source: _src, referenceLabels: _rl, ...extra } = s as ReplayBundle & Rec;
  const bundle = buildBundle({
    id: spec.newBundleId ?? defaultId(s, spec.targetNodeId),
    parent: { bundleId: s.id, targetNodeId: spec.targetNodeId, guidance: spec.guidance, mode: "transcript" },
    task,
    initialState,
    config: { ...s.config, replay: { ...(s.config.replay ?? {}), normalization, mode: "transcript-continuation", model } },
    nodes,
    edges,
    order: [...prefixIds, llmId, actionId, finalId],
    records,
    extra,
  });
  return { status: "completed", mode: "transcript", bundle, boundaryNodeId: spec.targetNodeId, verified: prefixIds.length, liveCalls: 1 };
}
