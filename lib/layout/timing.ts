/**
 * Start time, duration and tokens of a node, for the timeline (issue 11 item 7a). Pure.
 *
 * Read from node content as the OTel/Langfuse importer writes it (`lib/importers/otel-nodes.ts`):
 * `startTime` (OTLP nanoseconds since the epoch as a digit string, or a Langfuse ISO-8601 time),
 * `durationNs` (exact nanoseconds as a digit string) and `usage` (token counts under OpenInference /
 * GenAI / Langfuse / OpenAI keys). Nodes without these fields (Who&When, MAD) have no timing.
 */
import { formatDurationNs } from "../duration";

/** Token counts of an LLM call. */
export interface NodeTokens {
  input?: number;
  output?: number;
  total?: number;
}

/** What the timeline shows of one node; every field optional. */
export interface NodeTiming {
  /** Start, nanoseconds since the Unix epoch, as a decimal digit string (exact). */
  startNs?: string;
  /** Duration in nanoseconds, decimal digit string (exact). */
  durationNs?: string;
  tokens?: NodeTokens;
}

const DIGITS = /^-?\d+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Nanoseconds since the epoch of a digit string / integer (taken as ns) or an ISO-8601 time (sub-ms digits kept); else null. */
export function startNsOf(v: unknown): string | null {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== "string") return null;
  const s = v.trim();
  if (DIGITS.test(s)) return BigInt(s).toString();
  const m = ISO.exec(s);
  if (!m) return null;
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return null;
  // Date.parse keeps milliseconds; add the sub-millisecond digits the string carries.
  const frac = (m[1] ?? ".").slice(1).padEnd(9, "0").slice(0, 9);
  return (BigInt(Math.floor(ms / 1000)) * 1_000_000_000n + BigInt(frac)).toString();
}

const num = (v: unknown): number | undefined => {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return Number(v.trim());
  return undefined;
};
const first = (u: Record<string, unknown>, keys: string[]) => keys.map((k) => num(u[k])).find((x) => x !== undefined);

/** Token counts of a `usage` object (input/prompt, output/completion, total; total = input + output when absent). */
export function tokensOf(usage: unknown): NodeTokens | null {
  if (!isRec(usage)) return null;
  const input = first(usage, ["input", "prompt_tokens", "input_tokens", "prompt", "promptTokens", "inputTokens"]);
  const output = first(usage, ["output", "completion_tokens", "output_tokens", "completion", "completionTokens", "outputTokens"]);
  const total = first(usage, ["total", "total_tokens", "totalTokens"]) ?? (input !== undefined && output !== undefined ? input + output : undefined);
  if (input === undefined && output === undefined && total === undefined) return null;
  const t: NodeTokens = {};
  if (input !== undefined) t.input = input;
  if (output !== undefined) t.output = output;
  if (total !== undefined) t.total = total;
  return t;
}

/**
 * The timing of a node from its content, or null when it carries none.
 * @param content parsed node content (any JSON value)
 */
export function nodeTimingOf(content: unknown): NodeTiming | null {
  if (!isRec(content)) return null;
  const t: NodeTiming = {};
  const start = startNsOf(content.startTime);
  if (start !== null) t.startNs = start;
  const d = content.durationNs;
  if (typeof d === "string" && DIGITS.test(d)) t.durationNs = d;
  const tokens = tokensOf(content.usage);
  if (tokens) t.tokens = tokens;
  return Object.keys(t).length > 0 ? t : null;
}

/** What a timeline row prints: start offset from the trace's first start, duration, tokens; titles give the detail. */
export interface TimingCells {
  start?: string;
  startTitle?: string;
  duration?: string;
  tokens?: string;
  tokensTitle?: string;
}

/**
 * Format a node's timing for a timeline row.
 * @param t the node's timing
 * @param traceStartNs the earliest `startNs` of the trace (digit string), the zero of the offsets
 * @returns e.g. `{start: "+1.038 s", startTitle: "2025-09-30T09:04:01.000Z", duration: "2.19 s", tokens: "114 tok", tokensTitle: "85 in · 29 out · 114 total"}`
 */
export function timingCells(t: NodeTiming | undefined, traceStartNs: string | null): TimingCells {
  const c: TimingCells = {};
  if (!t) return c;
  if (t.startNs !== undefined) {
    const ns = BigInt(t.startNs);
    if (traceStartNs !== null) c.start = `+${formatDurationNs(ns - BigInt(traceStartNs))}`;
    const ms = Number(ns / 1_000_000n);
    const date = new Date(ms);
    c.startTitle = Number.isNaN(date.getTime()) ? `${t.startNs} ns` : date.toISOString();
  }
  if (t.durationNs !== undefined) c.duration = formatDurationNs(t.durationNs);
  if (t.tokens) {
    const { input, output, total } = t.tokens;
    c.tokens = `${(total ?? input ?? output)!.toLocaleString("en-US")} tok`;
    c.tokensTitle = [input !== undefined && `${input} in`, output !== undefined && `${output} out`, total !== undefined && `${total} total`].filter(Boolean).join(" · ");
  }
  return c;
}

/** The earliest start of the nodes (digit string), or null when none has one. */
export function traceStartNs(timings: ReadonlyArray<NodeTiming | undefined | null>): string | null {
  let min: bigint | null = null;
  for (const t of timings) {
    if (t?.startNs === undefined) continue;
    const v = BigInt(t.startNs);
    if (min === null || v < min) min = v;
  }
  return min === null ? null : min.toString();
}
