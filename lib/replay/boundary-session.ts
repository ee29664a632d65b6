/**
 * What both boundary sessions share (lib/replay/session.ts re-exports the public part): the boundary request
 * and step types, the session surface the proxy uses, and live recording through a TraceBuilder.
 * Pure: no I/O, no clock.
 */
import { type Boundary } from "../bundle";
import { hashJson as hashRequest } from "../bundle";
import { type PointerDiff } from "./diff";
import { PROTOCOL_NORMALIZATIONS } from "./normalize";
import { appendGuidanceFor as appendGuidanceOf, recordProtocol, type ProtocolName } from "./protocols";
import { type TargetResolution } from "./target";
import { type MaskedValue } from "./masks";
import { TraceBuilder, type BoundaryOutcome, type OpenEvent } from "./trace";

/** One boundary request as the MAS made it. */
export interface BoundaryCall {
  boundary: Boundary;
  /** LLM: the chat-completions (or other protocol's) body; tool: `{ tool, arguments }`. Not yet normalized. */
  request: unknown;
  /** LLM: the provider protocol of the route (default openai-chat; protocols.ts). Stored as record `meta.protocol` when not chat. */
  protocol?: ProtocolName;
  /** The `x-symtrace-agent` header, when the MAS sent one (agents.ts rule 1; not hashed). */
  agent?: string | null;
  /**
   * Replay: no more waiting. Without it, a request that equals a record still waiting for another
   * agent's recorded predecessor gets `blocked` (the caller retries, `final` after its wait ends);
   * with it, that is a `reordered` divergence.
   */
  final?: boolean;
}

/**
 * `config.replay.protocols`: the named normalization of every non-chat protocol the records use
 * (`{ "openai-responses": "openai-responses-v1", ... }`); nothing when all are chat.
 */
export function protocolsOf(records: readonly unknown[], bundleNormalization: string): { protocols?: Record<string, string> } {
  const out: Record<string, string> = {};
  for (const r of records as { boundary?: unknown; meta?: unknown }[]) {
    const p = r.boundary === "llm" ? recordProtocol(r) : "openai-chat";
    if (p !== "openai-chat") out[p] = bundleNormalization === "none" ? "none" : PROTOCOL_NORMALIZATIONS[p];
  }
  return Object.keys(out).length ? { protocols: out } : {};
}

/** q ⊕ Δ in the call's protocol. */
export const appendGuidance = <T>(request: T, guidance: string, protocol?: string | null): T => appendGuidanceOf(request, guidance, protocol);
/** The record meta of a call's protocol: `{ protocol }` for a non-chat LLM call, else `{}`. */
const protoMeta = (call: BoundaryCall): Record<string, unknown> => (call.boundary === "llm" && call.protocol && call.protocol !== "openai-chat" ? { protocol: call.protocol } : {});

/** What the proxy must do with a boundary request. */
export type Step =
  | {
      kind: "recorded";
      seq: number;
      nodeId: string;
      /** The recorded response, to return exactly (a stream is `{ stream: true, events }`). */
      response: unknown;
      /** HTTP status to return (record `meta.httpStatus`, default 200). */
      httpStatus: number;
    }
  | {
      kind: "live";
      /** Pass to `complete` with the live outcome. */
      ticket: number;
      /** The request to forward: the MAS's own body, with the guidance appended at the target. */
      forward: unknown;
      /** True for the target boundary (the first live request of a selective replay). */
      isTarget: boolean;
      nodeId: string;
    }
  /**
   * Substitution (issue 14 item 4): the target boundary's response is the proposed correction, not
   * a model call. Serve `response` like a recorded one; it is already recorded in the new bundle
   * (`meta.substituted: true`). The run is live from the next request on.
   */
  | { kind: "substituted"; seq: number; nodeId: string; response: unknown; httpStatus: number }
  | { kind: "diverged"; report: DivergenceReport }
  /**
   * Replay: nothing was consumed; call `begin` again later, with `final: true` once the caller's
   * wait is over (proxy: beginWhenReady). Either the request equals a record whose recorded
   * predecessors include another agent's call not served yet (it may still come: the agents run
   * concurrently), or it is the target and calls recorded before it are unserved (`seq` = the
   * target's), or its record began after the target in the recording (`waitingFor` = [target seq]).
   */
  | { kind: "blocked"; seq: number; waitingFor: number[] }
  | { kind: "stopped"; status: "prefix-verified"; verified: number; target: TargetResolution }
  /** Partial rollout (seeds/002): the MAS asked for one more live LLM call than `maxLiveLlm` allows. */
  | { kind: "stopped"; status: "rollout-limit"; verified: number; liveLlm: number; target: TargetResolution | null };

/** Why replay stopped at the first divergence. */
export type DivergenceReason = "content" | "extra-call" | "missing-call" | "reordered" | "recording-exhausted" | "node-hash";

/** Recorded neighbour of the divergent position. */
export interface RecordSummary {
  seq: number;
  nodeId: string;
  boundary: Boundary;
  requestHash: string;
  /** Tool name for tool records, model for llm records. */
  what: string | null;
}

/**
 * The first-divergence report (spec §Replay step 2; seeds/000 Appendix A.2). `message` says in
 * one sentence what differed; `diff` lists every difference as RFC 6901 pointers.
 */
export interface DivergenceReport {
  ok: false;
  status: "diverged";
  seq: number;
  /** The expected record's node (null when the recording is exhausted). */
  nodeId: string | null;
  reason: DivergenceReason;
  message: string;
  expected: { boundary: Boundary; requestHash: string; nodeHash?: string } | null;
  actual: { boundary: Boundary; requestHash: string; nodeHash?: string };
  expectedHash: string | null;
  actualHash: string;
  /** Recorded request (or node content for `node-hash`) -> actual one. */
  diff: PointerDiff[];
  neighbours: { previous: RecordSummary | null; next: RecordSummary | null };
  /** Records matched before the divergence. */
  verified: number;
  /**
   * What was masked or renamed in the divergent request before hashing (issue 21 item 5:
   * `config.replay.masks` and client-invented ids); present only when the bundle has masks or
   * invented ids.
   */
  masked?: MaskedValue[];
  /**
   * Set when what differs lies in a tool result the LLM request carries back (an in-process tool's
   * output): its call id and pointer; `message` then says "tool result differs".
   */
  toolResult?: { callId: string; pointer: string };
}

/** Session surface the proxy uses (record and replay alike). */
export interface BoundarySession {
  readonly mode: "record" | "replay";
  /**
   * A boundary request arrived. Never throws for a bad request: a replay mismatch is a
   * `diverged` step and the session stays stopped from then on.
   */
  begin(call: BoundaryCall): Step;
  /** A live boundary finished (`ticket` from a `live` step). */
  complete(ticket: number, outcome: BoundaryOutcome): void;
}

interface Live {
  ev: OpenEvent;
  requestHash: string;
}

/** Base for live recording through a TraceBuilder. */
export abstract class LiveRecorder {
  protected builder!: TraceBuilder;
  private tickets = new Map<number, Live>();
  private nextTicket = 1;

  protected startLive(call: BoundaryCall, normalized: unknown, meta: Record<string, unknown> = {}): { ticket: number; nodeId: string } {
    const ev = call.boundary === "llm" ? this.builder.beginLlm(normalized, { ...protoMeta(call), ...meta }, { agent: call.agent }) : this.builder.beginTool(normalized);
    const t = this.nextTicket++;
    this.tickets.set(t, { ev, requestHash: hashRequest(normalized) });
    return { ticket: t, nodeId: ev.nodeId };
  }

  /** Record a live boundary's outcome. @throws Error for an unknown or already completed ticket */
  complete(ticket: number, outcome: BoundaryOutcome): void {
    const l = this.tickets.get(ticket);
    if (!l) throw new Error(`unknown or completed boundary ticket ${ticket}`);
    this.tickets.delete(ticket);
    if (l.ev.boundary === "llm") this.builder.completeLlm(l.ev, l.requestHash, outcome);
    else this.builder.completeTool(l.ev, outcome);
  }

  /** Live boundaries begun but not completed (e.g. the MAS was stopped mid-call). */
  get openCount(): number {
    return this.tickets.size;
  }
}
