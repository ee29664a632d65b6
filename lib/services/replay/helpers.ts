/**
 * Internal helpers shared by the replay executor's modules (lib/services/replay/): defaults,
 * one-line error text, output bundle ids, time limits, the monotone progress emitter, record
 * guards. Not part of the public surface (lib/services/replay-exec.ts does not re-export them).
 */
import type { ReplayBundle } from "../../bundle";
import type { ReplayProgress } from "./types";

export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_TRANSCRIPT_MODEL = "gpt-4o-mini";

/** One line, no stack. */
export function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0].slice(0, 1000);
}

export function defaultId(source: ReplayBundle, at: string): string {
  return `${source.id}/replay/${at}/${Date.now().toString(36)}`;
}

/** A finite positive limit, or null (no limit). */
export function limitOf(ms: number | undefined): number | null {
  const v = ms ?? DEFAULT_TIMEOUT_MS;
  return Number.isFinite(v) && v > 0 ? Math.min(v, 2_147_483_647) : null;
}

/** Keeps `verified` monotone and swallows callback errors. */
export class ProgressEmitter {
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

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export const trimSlash = (u: string) => u.replace(/\/+$/, "");
