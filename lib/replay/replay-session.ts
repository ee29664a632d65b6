/**
 * Fail-closed selective replay: `ReplaySession` (seeds/000 Algorithm 2; the bundle v1 spec
 * §Replay). Pure: no I/O, no clock; the proxy (proxy/) does HTTP.
 */
import { buildBundle, type BoundaryRecord, type Boundary, type BundleEdge, type BundleNode, type NodeType, type ReplayBundle } from "../bundle";
import { hashJson as hashContent, hashJson as hashRequest, hashJsonReplacing } from "../bundle";
import { describeDiff, pointerDiff, type PointerDiff } from "./diff";
import { DEFAULT_NORMALIZATION, normalizeRequest } from "./normalize";
import { correctionMessage, substitutedResponse } from "./openai";
import { recordProtocol, toolResultAt } from "./protocols";
import { expandItemReferences, expandPreviousResponse, responsesIdOf, responsesOutputItems, type RecordedExchange } from "./responses";
import { resolveOutputTarget, resolveTarget, type TargetResolution } from "./target";
import { applyMasks, compileMasks, type CompiledMask, type MaskedValue } from "./masks";
import { ReadyTracker, observedSpans } from "./order";
import { CanonicalRenaming, hasInventedIds, producedIds, renameInventedIds } from "./rename";
import { MatchHashCache, producedKeyOf, recordMatchHashes, transformKeyOf } from "./match-cache";
import { agentKeyOf } from "./agents";
import { RECORDER_ID, TraceBuilder, agentOfRequest, agentActionContent, llmCallContent, taskNodeContent, toolCallContent, toolResultContent, type BoundaryOutcome } from "./trace";
import { type BoundaryCall, type Step, type DivergenceReason, type RecordSummary, type DivergenceReport, type BoundarySession, LiveRecorder, appendGuidance, protocolsOf } from "./boundary-session";
/** Options of selective replay. */
export interface ReplaySessionOptions {
  /** The source bundle S (validated). */
  source: ReplayBundle;
  /** Target node v_k (any node; mapped by `resolveTarget`). Omit to verify the whole recording. */
  targetNodeId?: string;
  /** Guidance Δ appended at the target (may be empty: then the target request is forwarded as is). */
  guidance?: string;
  /** Stop at the target instead of going live (no upstream): `begin` returns `stopped`. */
  stopAtTarget?: boolean;
  /**
   * Substitution (issue 14 item 4, seeds/004 §3.2 step 4): the proposed correction a* (text, or a
   * JSON assistant message: openai.ts `correctionMessage`) is the target boundary's response
   * INSTEAD of a model call (`begin` returns `substituted`; the record carries `meta.substituted:
   * true`, the bundle `parent.substitution`). Everything after it is live. Not with `guidance`.
   */
  substitution?: string;
  /**
   * How the target node maps to its LLM boundary: "intervention" (default without substitution:
   * `resolveTarget`, where guidance acts) or "output" (default with substitution:
   * `resolveOutputTarget`, the call whose response IS the node's output). The matched control of a
   * substitution uses "output" with no guidance, so both arms share the prefix and the boundary.
   */
  targetRule?: "intervention" | "output";
  /**
   * Partial rollout (seeds/002 "Partial Rollout", L): at most this many live LLM boundaries (the
   * target's own request counts as the first); the next live LLM request gets `stopped` with status
   * `rollout-limit` and the bundle so far is still valid (`toBundle`). Tool calls are not counted.
   * Undefined = no limit. Must be a positive integer.
   */
  maxLiveLlm?: number;
  /**
   * "Continue" replay (no target): verify and serve the whole recording, then go live for the
   * requests after its end (the first live LLM request gets `guidance`, if any). Used to extend a
   * partial rollout by L more steps.
   */
  continueAtEnd?: boolean;
}

/** Per-record precomputation. */
interface RecInfo {
  rec: BoundaryRecord;
  /** Hash matched against: `requestHash`, or the hash after masks and id renaming. */
  matchHash: string;
  /** Agent of the record's node (null when unknown). */
  agent: string | null;
  /** Companion node (agent_action / tool_result) materialized from the response. */
  companion: BundleNode | null;
  guidance: string | null;
  /** The content agent key of the recorded request (`agentKeyOf`), computed when first needed. */
  agentKey?: string;
}

/**
 * Fail-closed selective replay (seeds/000 Algorithm 2; spec §Replay; issue 21 items 4–5). Per
 * request, as it arrives:
 *   - live (after the target): forward, record as new nodes;
 *   - target (the mapped boundary's record is ready and the request is its, by content and agent
 *     — never by position alone; README "Target-mapping rule"): forward q ⊕ Δ live, stay live.
 *     A request equal to another unserved record is never the target; one matching no record is
 *     the target only when its agent (`agentKeyOf`: header, name field / hand-off, else system
 *     prompt) is the target's. While calls that began before the target in the recording are
 *     unserved, the target is `blocked` (they are its prefix); a ready call that began after it is
 *     `blocked` until the target went live (then it is live too). After the caller's wait
 *     (`final`), both proceed (the target live, the later call served: a valid reordering);
 *   - else: serve the lowest-seq *ready* record (all recorded predecessors — calls that had
 *     completed before it began, order.ts — served) whose match hash equals hash(normalize(q))
 *     (after config.replay.masks and the renaming of client-invented ids, when the bundle needs
 *     them), check the materialized node content hashes; none ⇒ `diverged` (first divergence,
 *     reason content / extra-call / missing-call (skipped) / reordered / recording-exhausted; the
 *     session stays stopped).
 * Records without `meta.observed` are totally ordered by seq, with parallel tool groups
 * (`meta.parallelGroup`) as sets: the rule of earlier versions.
 * Replay of a replay: a record carrying `meta.guidance` (a former target) is matched against
 * q ⊕ meta.guidance, so the earlier intervention is re-applied, not reported as a divergence.
 */
export class ReplaySession extends LiveRecorder implements BoundarySession {
  readonly mode = "replay" as const;
  readonly target: TargetResolution | null;
  private readonly source: ReplayBundle;
  private readonly normalization: string;
  private readonly infos: RecInfo[];
  private readonly nodeById: Map<string, BundleNode>;
  private readonly checkNodes: boolean;
  /** Served records and which may be served next (the observed partial order, order.ts). */
  private readonly ready: ReadyTracker;
  /** matchHash -> seqs (ascending). */
  private readonly byHash = new Map<string, number[]>();
  /** Distinct `meta.guidance` of the records (former targets; usually none). */
  private readonly guidances: string[];
  private readonly masks: CompiledMask[];
  /** The masks' part of a match-cache key (match-cache.ts). */
  private readonly transformKey: string;
  /** Ids produced by recorded responses, when some recorded request has client-invented ids; null: no renaming; undefined: not decided yet. */
  private produced: Set<string> | null | undefined = undefined;
  /** The produced ids' part of a match-cache key ("" while there is no renaming). */
  private producedKey = "";
  /** Every masked / renamed value of the requests served so far (`maskReport`). */
  private readonly maskHits: MaskedValue[] = [];
  /** The source has no `meta.observed` (total order of seq, parallel tool groups as sets). */
  private readonly legacyOrder: boolean;
  private state: "replaying" | "live" | "diverged" | "stopped" = "replaying";
  private stopStep: Extract<Step, { kind: "stopped" }> | null = null;
  private liveLlm = 0;
  private continuing = false;
  private divergence: DivergenceReport | null = null;
  private matched = 0;
  private nodeChecks = 0;

  /**
   * @throws TargetError when the target is unknown or has no LLM boundary at or after it
   * @throws Error for an unknown `config.replay.normalization`
   */
  constructor(private readonly opts: ReplaySessionOptions) {
    super();
    const s = opts.source;
    this.source = s;
    this.normalization = (s.config.replay?.normalization as string | undefined) ?? DEFAULT_NORMALIZATION;
    normalizeRequest("llm", {}, this.normalization);
    if (opts.substitution !== undefined) {
      if (opts.guidance) throw new Error("substitution replaces the target's response: give no guidance with it");
      if (opts.targetNodeId === undefined) throw new Error("substitution needs a target node");
      correctionMessage(opts.substitution);
    }
    const rule = opts.targetRule ?? (opts.substitution !== undefined ? "output" : "intervention");
    this.target = opts.targetNodeId !== undefined ? (rule === "output" ? resolveOutputTarget : resolveTarget)(s, opts.targetNodeId) : null;
    if (opts.maxLiveLlm !== undefined && (!Number.isInteger(opts.maxLiveLlm) || opts.maxLiveLlm < 1)) {
      throw new Error(`maxLiveLlm must be a positive integer (got ${String(opts.maxLiveLlm)})`);
    }
    if (opts.continueAtEnd && this.target) throw new Error("continueAtEnd replays the whole recording: give no target");
    this.nodeById = new Map(s.graph.nodes.map((n) => [n.id, n]));
    this.checkNodes = (s.config.replay as Record<string, unknown> | null | undefined)?.recorder === RECORDER_ID;
    const companionType: Record<Boundary, NodeType> = { llm: "agent_action", tool: "tool_result" };
    const dataOut = new Map<string, string[]>();
    for (const e of s.graph.edges) if (e.kind === "data") (dataOut.get(e.from) ?? dataOut.set(e.from, []).get(e.from)!).push(e.to);
    const storedMasks = (s.config.replay as Record<string, unknown> | null | undefined)?.masks;
    this.masks = compileMasks(storedMasks);
    this.transformKey = transformKeyOf(storedMasks);
    // Id renaming is decided lazily (first request matching no record as sent: resolveRenaming),
    // so a replay whose requests all match as sent never scans the recorded requests for ids.
    if (this.masks.length > 0) this.produced = this.inventedIdsOf();
    const transforms = this.transforms;
    const guidances = new Set<string>();
    this.infos = s.records.map((rec) => {
      const comp = (dataOut.get(rec.nodeId) ?? []).map((id) => this.nodeById.get(id)).find((x) => x?.type === companionType[rec.boundary]) ?? null;
      const g = typeof rec.meta?.guidance === "string" ? (rec.meta.guidance as string) : null;
      if (g !== null) guidances.add(g);
      const matchHash = transforms ? this.recordMatchHash(rec) : rec.requestHash;
      return { rec, matchHash, agent: this.nodeById.get(rec.nodeId)?.agent ?? null, companion: comp, guidance: g };
    });
    this.guidances = [...guidances];
    this.indexHashes();
    const spans = observedSpans(s.records);
    this.ready = new ReadyTracker(spans.spans);
    this.legacyOrder = spans.synthesized;
    // The live suffix: new node ids continue after the source's, and the target's dependencies on
    // prefix nodes are the source's edges into the target node.
    const startIndex: Partial<Record<NodeType, number>> = {};
    for (const node of s.graph.nodes) {
      const m = /_(\d+)$/.exec(node.id);
      if (m) startIndex[node.type] = Math.max(startIndex[node.type] ?? 0, Number(m[1]) + 1);
    }
    let firstLlmDeps: { from: string; kind: "data" | "control" }[] | undefined;
    let lastAction: string | null = null;
    if (this.target) {
      const tpos = s.order.indexOf(this.target.boundaryNodeId);
      const prefix = new Set(s.order.slice(0, tpos));
      firstLlmDeps = s.graph.edges.filter((e) => e.to === this.target!.boundaryNodeId && prefix.has(e.from)).map((e) => ({ from: e.from, kind: e.kind }));
      for (let i = tpos - 1; i >= 0; i--) {
        if (this.nodeById.get(s.order[i])?.type === "agent_action") {
          lastAction = s.order[i];
          break;
        }
      }
    } else if (opts.continueAtEnd) {
      for (let i = s.order.length - 1; i >= 0; i--) {
        if (this.nodeById.get(s.order[i])?.type === "agent_action") {
          lastAction = s.order[i];
          break;
        }
      }
    }
    let startTick = 0;
    for (const sp of this.ready.spans) startTick = Math.max(startTick, sp.start + 1, Number.isFinite(sp.end) ? sp.end + 1 : 0);
    this.builder = new TraceBuilder({ startIndex, firstLlmDeps, lastAction, startTick });
    // Source outputs live requests may carry: those of the records before the target and the
    // record-less nodes before it in the observed order (a live request never carries a later
    // source output: it is replaced by a live one; edges from nodes left out of the prefix are
    // dropped in toBundle). Only live calls read them, so they are seeded before the first one
    // (a replay that never goes live skips it; the inputs are fixed here, so the result is the same).
    this.seedPending = () => {
      const owner = new Map<string, number>();
      for (const info of this.infos) {
        owner.set(info.rec.nodeId, info.rec.seq);
        if (info.companion) owner.set(info.companion.id, info.rec.seq);
      }
      const tseq = this.target ? this.target.seq : s.records.length;
      const tposSeed = this.target ? s.order.indexOf(this.target.boundaryNodeId) : s.order.length;
      this.builder.seedOutputs(
        s.order.filter((id, i) => (owner.has(id) ? owner.get(id)! < tseq : i < tposSeed)).map((id) => this.nodeById.get(id)!),
        s.graph.edges,
      );
    };
  }

  /** The builder's seeding with the source's outputs, until the first live call runs it. */
  private seedPending: (() => void) | null = null;

  /** A live call: the builder is seeded with the source's outputs first (once). */
  protected override startLive(call: BoundaryCall, normalized: unknown, meta: Record<string, unknown> = {}): { ticket: number; nodeId: string } {
    const seed = this.seedPending;
    if (seed) {
      this.seedPending = null;
      seed();
    }
    return super.startLive(call, normalized, meta);
  }

  /** Records served so far (matched and verified). */
  get verified(): number {
    return this.matched;
  }

  /** Materialized prefix nodes whose content hash was checked against the source. */
  get checkedNodes(): number {
    return this.nodeChecks;
  }

  /** Whether node content hashes are checked (only for bundles recorded by this proxy). */
  get checksNodeHashes(): boolean {
    return this.checkNodes;
  }

  /** Live LLM boundaries forwarded so far (the target's request included). */
  get liveLlmCalls(): number {
    return this.liveLlm;
  }

  /** Why the session stopped (prefix-verified or rollout-limit), or null. */
  get stopped(): Extract<Step, { kind: "stopped" }> | null {
    return this.stopStep;
  }

  /** Current state: replaying the prefix, live after the target, or stopped. */
  get status(): "replaying" | "live" | "diverged" | "stopped" {
    return this.state;
  }

  /**
   * What masks and id renaming changed in the requests matched so far (issue 21 item 5), or null
   * when the bundle declares no masks and has no client-invented ids (nothing is relaxed).
   */
  get maskReport(): { masks: number; renamedIds: boolean; masked: MaskedValue[] } | null {
    if (!this.transforms) return null;
    return { masks: this.masks.length, renamedIds: !!this.produced, masked: [...this.maskHits] };
  }

  /** The first divergence, once one happened. */
  get report(): DivergenceReport | null {
    return this.divergence;
  }

  /** Algorithm 2, one boundary request. See the class doc. */
  begin(call: BoundaryCall): Step {
    if (this.state === "diverged") return { kind: "diverged", report: this.divergence! };
    if (this.state === "stopped") return this.stopStep ?? { kind: "stopped", status: "prefix-verified", verified: this.matched, target: this.target! };
    if (this.state === "live") {
      if (call.boundary === "llm") {
        if (this.opts.maxLiveLlm !== undefined && this.liveLlm >= this.opts.maxLiveLlm) {
          this.state = "stopped";
          this.stopStep = { kind: "stopped", status: "rollout-limit", verified: this.matched, liveLlm: this.liveLlm, target: this.target };
          return this.stopStep;
        }
        this.liveLlm++;
        // Continue mode: the first live LLM request after the recording carries the guidance.
        if (this.continuing && this.liveLlm === 1 && this.opts.guidance) {
          let forward: unknown;
          try {
            forward = appendGuidance(call.request, this.opts.guidance, call.protocol);
          } catch (e) {
            return this.diverge(this.source.records.length, call, hashRequest(normalizeRequest("llm", call.request, this.normalization, call.protocol)), "content", (e as Error).message);
          }
          const { ticket, nodeId } = this.startLive(call, normalizeRequest("llm", forward, this.normalization, call.protocol), { guidance: this.opts.guidance });
          return { kind: "live", ticket, forward: this.liveForward(call, forward), isTarget: true, nodeId };
        }
      }
      const normalized = normalizeRequest(call.boundary, call.request, this.normalization, call.protocol);
      const { ticket, nodeId } = this.startLive(call, normalized);
      return { kind: "live", ticket, forward: this.liveForward(call, call.request), isTarget: false, nodeId };
    }
    const R = this.source.records;
    // Continue mode: the whole recording was served; everything after it is live.
    if (this.opts.continueAtEnd && this.ready.count >= R.length) {
      this.state = "live";
      this.continuing = true;
      return this.begin(call);
    }
    let L = this.lookup(call);
    if (L.k < 0 && this.produced === undefined && this.resolveRenaming()) L = this.lookup(call);
    const { hits, h, gh } = L;
    const k = L.k;
    // The target boundary: identified by content and agent, never by position alone (isTargetCall).
    if (this.target && call.boundary === "llm" && this.ready.isReady(this.target.seq) && (k === this.target.seq || k < 0)) {
      const t = this.target.seq;
      const recAgent = this.infos[t].agent;
      if (this.legacyOrder) {
        // Total order (no meta.observed): the rule of earlier versions, unchanged.
        const callAgent = call.agent ?? agentOfRequest(call.request);
        if (k === t && callAgent && recAgent && callAgent !== recAgent) {
          return this.diverge(k, call, gh, "content", `the target's request came from agent "${callAgent}", the recording's from "${recAgent}"`, undefined, hits);
        }
        if (k !== t && !(callAgent && recAgent ? callAgent === recAgent : this.onlyReadyLlm(t))) return this.mismatch(call, h, hits);
      } else {
        if (k === t && call.agent && recAgent && call.agent.trim() !== recAgent) {
          return this.diverge(k, call, gh, "content", `the target's request came from agent "${call.agent.trim()}" (x-symtrace-agent), the recording's from "${recAgent}"`, undefined, hits);
        }
        // A request that equals another unserved record is that record's (it waits or diverges in
        // mismatch), and one that matches nothing is the target only when it is the target's agent.
        if (k !== t && (this.unservedWithHash(call, h) >= 0 || !this.sameAgent(call, t))) return this.mismatch(call, h, hits);
        // Calls that began before the target in the recording come first (they are the prefix):
        // the target waits for them while they may still come (the caller retries, `final` at the end of its wait).
        const earlier = this.unservedBefore(t);
        if (earlier.length && !call.final) return { kind: "blocked", seq: t, waitingFor: earlier };
      }
      if (hits) this.maskHits.push(...hits);
      if (this.opts.stopAtTarget) {
        this.state = "stopped";
        return { kind: "stopped", status: "prefix-verified", verified: this.matched, target: this.target };
      }
      if (this.opts.substitution !== undefined) {
        if (call.protocol && call.protocol !== "openai-chat") return this.diverge(k, call, this.hashOf(call, null), "content", `substitution answers chat-completions calls only; the target is a ${call.protocol} call`);
        return this.substitute(call, this.opts.substitution);
      }
      const g = this.opts.guidance;
      let forward = call.request;
      if (g) {
        try {
          forward = appendGuidance(call.request, g, call.protocol);
        } catch (e) {
          return this.diverge(k, call, h, "content", (e as Error).message, undefined, hits);
        }
      }
      const normalized = normalizeRequest("llm", forward, this.normalization, call.protocol);
      this.state = "live";
      this.liveLlm = 1;
      const { ticket, nodeId } = this.startLive(call, normalized, g ? { guidance: g } : {});
      return { kind: "live", ticket, forward: this.liveForward(call, forward), isTarget: true, nodeId };
    }
    if (k < 0) return this.mismatch(call, h, hits);
    // A call that began after the target in the recording (concurrent with it) is held until the
    // target went live (then it is live too), so the prefix is what the recording had before the
    // target; after the caller's wait it is served (a valid reordering).
    if (this.target && !this.legacyOrder && k > this.target.seq && !call.final) return { kind: "blocked", seq: k, waitingFor: [this.target.seq] };
    const step = this.serve(k, call, gh);
    if (step.kind === "recorded") {
      this.ready.serve(k);
      if (hits) this.maskHits.push(...hits);
    }
    return step;
  }

  /** Hash the call (masks / renaming applied when active) and find a ready record with that hash (also with a former target's guidance). */
  private lookup(call: BoundaryCall): { hits: MaskedValue[] | null; h: string; gh: string; k: number } {
    const hits: MaskedValue[] | null = this.transforms ? [] : null;
    const h = this.hashOf(call, null, hits);
    let k = this.findReady(h, call.boundary);
    let gh = h;
    for (let gi = 0; k < 0 && gi < this.guidances.length; gi++) {
      gh = this.hashOf(call, this.guidances[gi], null);
      k = this.findReady(gh, call.boundary);
    }
    return { hits, h, gh, k };
  }

  /** Produced ids when some recorded llm request carries a client-invented id, else null (rename.ts). */
  private inventedIdsOf(): Set<string> | null {
    const R = this.source.records;
    if (!R.some((r) => r.boundary === "llm")) return null;
    const ids = producedIds(R);
    return R.some((r) => r.boundary === "llm" && hasInventedIds(r.request, ids)) ? ids : null;
  }

  /** Decide id renaming; when it turns on, re-hash the records with it. @returns true when renaming is now on */
  private resolveRenaming(): boolean {
    this.produced = this.inventedIdsOf();
    if (!this.produced) return false;
    this.producedKey = producedKeyOf(this.produced);
    for (const info of this.infos) info.matchHash = this.recordMatchHash(info.rec);
    this.indexHashes();
    return true;
  }

  /**
   * A record's match hash under the session's masks and renaming: hash(transform(request)),
   * memoized across sessions by content (match-cache.ts). Without masks, and without renaming for
   * its boundary, the transform is the identity and the match hash is the stored `requestHash`.
   */
  private recordMatchHash(rec: BoundaryRecord): string {
    const renames = !!this.produced && rec.boundary === "llm";
    if (!renames && this.masks.length === 0) return rec.requestHash;
    const key = MatchHashCache.key(this.transformKey, rec.boundary, rec.requestHash, renames ? this.producedKey : "");
    let h = recordMatchHashes.get(key);
    if (h === undefined) {
      h = this.hashTransformed(rec.boundary, rec.request, null);
      recordMatchHashes.set(key, h);
    }
    return h;
  }

  /**
   * hash(transform(request)): with renaming alone, the request is renamed while it is hashed
   * (lib/bundle `hashJsonReplacing` with rename.ts `CanonicalRenaming`: no copy, the same hash).
   * @param hits when given, every masked / renamed value is appended
   */
  private hashTransformed(boundary: Boundary, normalized: unknown, hits: MaskedValue[] | null): string {
    if (this.masks.length > 0) return hashRequest(this.transform(boundary, normalized, hits));
    return this.produced && boundary === "llm" ? hashJsonReplacing(normalized, new CanonicalRenaming(this.produced, hits)) : hashRequest(normalized);
  }

  /** byHash from the records' match hashes. */
  private indexHashes(): void {
    this.byHash.clear();
    for (const info of this.infos) {
      const list = this.byHash.get(info.matchHash);
      if (list) list.push(info.rec.seq);
      else this.byHash.set(info.matchHash, [info.rec.seq]);
    }
  }

  /** True when record t is the only ready llm record (the target by elimination when agents are unknown). */
  private onlyReadyLlm(t: number): boolean {
    return this.ready.readyRecords().every((x) => x === t || this.infos[x].rec.boundary !== "llm");
  }

  /** True when masks or id renaming apply (else requests are hashed as normalized). */
  private get transforms(): boolean {
    return this.masks.length > 0 || !!this.produced;
  }

  /** Masks and id renaming of a normalized request (identity when the bundle needs neither). */
  private transform(boundary: Boundary, normalized: unknown, hits: MaskedValue[] | null): unknown {
    let v = normalized;
    if (this.produced && boundary === "llm") v = renameInventedIds(v, this.produced, hits);
    if (this.masks.length) v = applyMasks(v, this.masks, boundary, hits);
    return v;
  }

  /** The lowest-seq ready (unserved, predecessors served) record of this boundary with this match hash, or -1. */
  private findReady(h: string, boundary: Boundary): number {
    const list = this.byHash.get(h);
    if (!list) return -1;
    for (const k of list) if (this.infos[k].rec.boundary === boundary && this.ready.isReady(k)) return k;
    return -1;
  }

  /** The lowest-seq unserved record (ready or not) of the call's boundary whose match hash equals the call's (also with a former target's guidance), or -1. */
  private unservedWithHash(call: BoundaryCall, h: string): number {
    for (const hh of [h, ...this.guidances.map((g) => this.hashOf(call, g, null))]) {
      const m = (this.byHash.get(hh) ?? []).find((x) => this.infos[x].rec.boundary === call.boundary && !this.ready.isServed(x));
      if (m !== undefined) return m;
    }
    return -1;
  }

  /** Unserved records with a lower seq than `t` (with `t` ready, these are concurrent with it: they began before it). */
  private unservedBefore(t: number): number[] {
    const out: number[] = [];
    for (let j = 0; j < t; j++) if (!this.ready.isServed(j)) out.push(j);
    return out;
  }

  /**
   * Whether a request comes from the agent of record `x`, by content (agents.ts): the
   * `x-symtrace-agent` header against the record's node agent when the request has one, else the
   * request's agent evidence (name field / hand-off name, else its system prompt) against the
   * recorded request's.
   */
  private sameAgent(call: BoundaryCall, x: number): boolean {
    const info = this.infos[x];
    if (call.agent && call.agent.trim()) return info.agent === call.agent.trim();
    return this.recordAgentKey(x) === agentKeyOf(normalizeRequest(call.boundary, call.request, this.normalization, call.protocol), call.boundary === "llm" ? (call.protocol ?? null) : null, call.boundary);
  }

  /** The content agent key of record x's request (cached). */
  private recordAgentKey(x: number): string {
    const info = this.infos[x];
    if (info.agentKey === undefined) info.agentKey = agentKeyOf(info.rec.request, info.rec.boundary === "llm" ? recordProtocol(info.rec) : null, info.rec.boundary);
    return info.agentKey;
  }

  /** True when record x's agent is known: an llm record of an agent (not an embeddings call or unknown route, whose lane names no agent). */
  private knownAgent(x: number): boolean {
    const info = this.infos[x];
    if (!info.agent) return false;
    if (info.rec.boundary !== "llm") return true;
    const p = recordProtocol(info.rec);
    return p !== "openai-embeddings" && p !== "unknown-route";
  }

  /**
   * No ready record matches: name the first divergence.
   *   - the request equals an unserved record whose recorded predecessors are not all served:
   *     `missing-call` ("skipped") when one of those predecessors is the same agent's (the agent went
   *     past a call it made), else `reordered` (it overtook another agent's call that had completed
   *     before it began in the recording);
   *   - else against the closest ready record (same boundary and agent, then same boundary, then
   *     any): `content` (same boundary) or `extra-call`; `recording-exhausted` when all are served.
   */
  private mismatch(call: BoundaryCall, h: string, hits: MaskedValue[] | null): Step {
    const hashes = [h, ...this.guidances.map((g) => this.hashOf(call, g, null))];
    for (const hh of hashes) {
      const m = (this.byHash.get(hh) ?? []).find((x) => this.infos[x].rec.boundary === call.boundary && !this.ready.isServed(x));
      if (m === undefined) continue;
      const preds = this.ready.unservedPredecessors(m);
      const agent = this.infos[m].agent;
      // Skipped: the same (known) agent went past its own recorded call. An embeddings call or an
      // unknown route names no agent, so passing one is not a skip the request's agent made.
      const own = preds.find((p) => this.infos[p].agent === agent && (this.legacyOrder || (this.knownAgent(p) && this.knownAgent(m))));
      if (own !== undefined) return this.diverge(own, call, hh, "missing-call", undefined, undefined, hits, m);
      if (!call.final && preds.length > 0) return { kind: "blocked", seq: m, waitingFor: preds };
      return this.diverge(preds[0] ?? m, call, hh, "reordered", undefined, undefined, hits, m);
    }
    const readyList = this.ready.readyRecords();
    if (readyList.length === 0) {
      const first = this.ready.firstUnserved();
      return this.diverge(first < 0 ? this.source.records.length : first, call, h, first < 0 ? "recording-exhausted" : "content", undefined, undefined, hits);
    }
    const same = (x: number) => {
      if (this.legacyOrder) {
        const agent = call.agent ?? (call.boundary === "llm" ? agentOfRequest(call.request) : null);
        return agent === null || this.infos[x].agent === agent;
      }
      return this.sameAgent(call, x);
    };
    const exp =
      readyList.find((x) => this.infos[x].rec.boundary === call.boundary && same(x)) ??
      readyList.find((x) => this.infos[x].rec.boundary === call.boundary) ??
      readyList[0];
    return this.diverge(exp, call, h, this.infos[exp].rec.boundary === call.boundary ? "content" : "extra-call", undefined, undefined, hits);
  }

  /** The target boundary answered by the correction: recorded as a completed llm record, served as a response. */
  private substitute(call: BoundaryCall, correction: string): Step {
    const response = substitutedResponse(call.request, correction);
    const normalized = normalizeRequest("llm", call.request, this.normalization, call.protocol);
    this.state = "live";
    this.liveLlm = 0;
    const { ticket, nodeId } = this.startLive(call, normalized, { substituted: true });
    this.complete(ticket, { response, httpStatus: 200, latencyMs: 0 });
    const node = this.builder.nodes.find((n) => n.id === nodeId);
    if (node) node.label = "proposed correction (substituted; no model call)";
    return { kind: "substituted", seq: this.target!.seq, nodeId, response, httpStatus: 200 };
  }

  /**
   * The request a live call is forwarded as (the stored record keeps the MAS's own): a Responses
   * request whose `previous_response_id` names a recorded response gets that id replaced by the
   * recorded items it stands for (responses.ts `expandPreviousResponse`), and `item_reference`
   * inputs naming recorded output items get those items (`expandItemReferences`): the live
   * upstream never saw a replayed response.
   */
  private liveForward(call: BoundaryCall, forward: unknown): unknown {
    if (call.boundary !== "llm" || call.protocol !== "openai-responses") return forward;
    if (!this.responsesById) {
      this.responsesById = new Map();
      this.itemsById = new Map();
      for (const r of this.source.records) {
        if (r.boundary !== "llm" || recordProtocol(r) !== "openai-responses") continue;
        const id = responsesIdOf(r.response);
        if (id) this.responsesById.set(id, { request: r.request, response: r.response });
        for (const it of responsesOutputItems(r.response)) this.itemsById.set(it.id as string, it);
      }
    }
    const m = this.responsesById;
    const items = this.itemsById!;
    try {
      return expandItemReferences(expandPreviousResponse(forward, (id) => m.get(id) ?? null), (id) => items.get(id) ?? null);
    } catch {
      return forward;
    }
  }

  private responsesById: Map<string, RecordedExchange> | null = null;
  private itemsById: Map<string, unknown> | null = null;

  private hashOf(call: BoundaryCall, guidance: string | null, hits: MaskedValue[] | null = null): string {
    let req = call.request;
    if (guidance !== null) {
      try {
        req = appendGuidance(req, guidance, call.protocol);
      } catch {
        /* not a chat request: hashed as is, and it will not match */
      }
    }
    const normalized = normalizeRequest(call.boundary, req, this.normalization, call.protocol);
    return this.transforms ? this.hashTransformed(call.boundary, normalized, hits) : hashRequest(normalized);
  }

  /** Return records[k].response after checking the materialized nodes (Algorithm 2 line 15). */
  private serve(k: number, call: BoundaryCall, h: string): Step {
    const info = this.infos[k];
    const rec = info.rec;
    const httpStatus = typeof rec.meta?.httpStatus === "number" ? (rec.meta.httpStatus as number) : 200;
    if (this.checkNodes) {
      const outcome: BoundaryOutcome = { response: rec.response, httpStatus };
      const protocol = rec.boundary === "llm" ? recordProtocol(rec) : null;
      const own = rec.boundary === "llm" ? llmCallContent(rec.request, rec.requestHash, outcome, protocol) : toolCallContent(rec.request);
      // A failed llm call (meta.error) has no agent_action since stream errors and client aborts
      // were recorded as failures; one recorded before (a companion exists) is still checked.
      const failedLlm = rec.boundary === "llm" && !info.companion && !!rec.meta?.error;
      const comp = rec.boundary === "llm" ? (failedLlm ? null : agentActionContent(rec.response, protocol)) : toolResultContent(outcome);
      const checks: [BundleNode | null | undefined, unknown][] = [[this.nodeById.get(rec.nodeId), own]];
      if (info.companion || comp !== null) checks.push([info.companion, comp]);
      for (const [node, content] of checks) {
        const actual = hashContent(content);
        if (!node || node.contentHash !== actual) {
          return this.diverge(k, call, h, "node-hash", undefined, { node: node ?? null, content, actual });
        }
        this.nodeChecks++;
      }
    }
    if (this.matched === 0 && this.checkNodes && this.source.task.prompt) {
      const t = this.source.graph.nodes.find((n) => n.id === "task_0000");
      if (t && t.contentHash !== hashContent(taskNodeContent(this.source.task.prompt))) {
        return this.diverge(k, call, h, "node-hash", undefined, { node: t, content: taskNodeContent(this.source.task.prompt), actual: hashContent(taskNodeContent(this.source.task.prompt)) });
      }
    }
    this.matched++;
    return { kind: "recorded", seq: rec.seq, nodeId: rec.nodeId, response: rec.response, httpStatus };
  }

  private summary(k: number): RecordSummary | null {
    const r = this.source.records[k];
    if (!r) return null;
    const q = r.request as Record<string, unknown> | null;
    const what = r.boundary === "tool" ? (typeof q?.tool === "string" ? q.tool : null) : typeof q?.model === "string" ? q.model : null;
    return { seq: r.seq, nodeId: r.nodeId, boundary: r.boundary, requestHash: r.requestHash, what };
  }

  private diverge(
    j: number,
    call: BoundaryCall,
    actualHash: string,
    reason: DivergenceReason,
    why?: string,
    node?: { node: BundleNode | null; content: unknown; actual: string },
    hits: MaskedValue[] | null = null,
    equals?: number,
  ): Step {
    const R = this.source.records;
    const rec = R[j] ?? null;
    const r = reason;
    const normalized = normalizeRequest(call.boundary, call.request, this.normalization, call.protocol);
    const actualReq = this.transforms ? this.transform(call.boundary, normalized, null) : normalized;
    let diff: PointerDiff[] = [];
    let message: string;
    let toolResult: DivergenceReport["toolResult"] = undefined;
    const where = rec ? `seq ${j} (${rec.nodeId}, ${rec.boundary})` : `seq ${j}`;
    const eq = equals !== undefined ? R[equals] : undefined;
    if (r === "node-hash" && node) {
      diff = pointerDiff(node.node?.content ?? null, node.content);
      message = `${where}: the materialized node ${node.node?.id ?? "(missing companion node)"} has content hash ${node.actual}, the source has ${node.node?.contentHash ?? "none"}: ${describeDiff(diff)}`;
    } else if (r === "recording-exhausted") {
      message = `${where}: the recording is exhausted (${R.length} records) but the MAS made another ${call.boundary} request`;
    } else {
      diff = rec ? pointerDiff(this.transforms ? this.transform(rec.boundary, rec.request, null) : rec.request, actualReq) : [];
      const agentOf = (k: number) => (this.infos[k]?.agent ? ` of agent ${this.infos[k].agent}` : "");
      if (r === "missing-call" && eq) {
        message = `${where}: missing call: the MAS skipped the recorded ${rec?.boundary} request${agentOf(j)}; its request equals seq ${eq.seq} (${eq.nodeId})`;
      } else if (r === "reordered" && eq) {
        message = `${where}: reordered: the ${call.boundary} request equals seq ${eq.seq} (${eq.nodeId}${agentOf(eq.seq)}), which began after seq ${j}${agentOf(j)} had completed in the recording; it arrived before it`;
      } else if (r === "missing-call") {
        message = `${where}: missing call: the recording expects this ${rec?.boundary} request but the MAS ${call.boundary === "llm" ? "made an LLM request instead" : "made a different request"}: ${describeDiff(diff)}`;
      } else if (r === "extra-call" && rec && rec.boundary === call.boundary) {
        message = `${where}: extra call: the recording expects a ${recordProtocol(rec)} request here but the MAS made a ${call.protocol ?? "openai-chat"} request: ${describeDiff(diff)}`;
      } else if (r === "extra-call") {
        message = `${where}: extra call: the recording expects a ${rec?.boundary} request here but the MAS made a ${call.boundary} request: ${describeDiff(diff)}`;
      } else {
        // A tool result is part of the next LLM request: say so when that is what differs.
        const tr = !why && call.boundary === "llm" ? diff.map((d) => toolResultAt(actualReq, d.path, call.protocol) ?? (rec ? toolResultAt(rec.request, d.path, recordProtocol(rec)) : null)).find(Boolean) : null;
        if (tr) toolResult = { callId: tr.callId, pointer: tr.pointer };
        message = `${where}: the ${call.boundary} request differs from the recording: ${tr ? `tool result differs (call ${tr.callId}): ` : ""}${why ?? describeDiff(diff)}`;
      }
    }
    this.divergence = {
      ok: false,
      status: "diverged",
      seq: j,
      nodeId: rec?.nodeId ?? null,
      reason: r,
      message,
      expected: rec ? { boundary: rec.boundary, requestHash: rec.requestHash, ...(node ? { nodeHash: node.node?.contentHash } : {}) } : null,
      actual: { boundary: call.boundary, requestHash: actualHash, ...(node ? { nodeHash: node.actual } : {}) },
      expectedHash: node ? (node.node?.contentHash ?? null) : rec ? (this.transforms ? this.infos[j].matchHash : rec.requestHash) : null,
      actualHash: node ? node.actual : actualHash,
      diff,
      neighbours: { previous: this.summary(j - 1), next: this.summary(j + 1) },
      verified: this.matched,
      ...(this.transforms ? { masked: hits ?? [] } : {}),
      ...(toolResult ? { toolResult } : {}),
    };
    this.state = "diverged";
    return { kind: "diverged", report: this.divergence };
  }

  /**
   * The MAS ended. A replay that has not reached its target (or, without a target, has records
   * left) fails closed with a `missing-call` divergence at the next expected seq.
   * @returns the divergence report, or null when the run is complete
   */
  end(): DivergenceReport | null {
    if (this.state === "diverged") return this.divergence;
    if (this.state !== "replaying") return null;
    const R = this.source.records;
    if (!this.target && this.ready.count >= R.length) return null; // also continue mode that never went live
    const j = this.ready.readyRecords()[0] ?? this.ready.firstUnserved();
    const rec = R[j];
    const message = `seq ${j}${rec ? ` (${rec.nodeId}, ${rec.boundary})` : ""}: missing call: the MAS ended but the recording expects another ${rec?.boundary ?? "boundary"} request${this.target ? ` before the target ${this.target.boundaryNodeId} (seq ${this.target.seq})` : ""}`;
    this.divergence = {
      ok: false,
      status: "diverged",
      seq: j,
      nodeId: rec?.nodeId ?? null,
      reason: "missing-call",
      message,
      expected: rec ? { boundary: rec.boundary, requestHash: rec.requestHash } : null,
      actual: { boundary: rec?.boundary ?? "llm", requestHash: "" },
      expectedHash: rec?.requestHash ?? null,
      actualHash: "",
      diff: [],
      neighbours: { previous: this.summary(j - 1), next: this.summary(j + 1) },
      verified: this.matched,
    };
    this.state = "diverged";
    return this.divergence;
  }

  /**
   * Prefix node ids (source order) of a replay of a concurrent recording: the nodes of served
   * records and their companions, and the nodes of no record that lie before the target (not
   * final_result) and depend on no left-out node.
   */
  private servedPrefixOrder(tpos: number): string[] {
    const s = this.source;
    const owner = new Map<string, number>();
    for (const info of this.infos) {
      owner.set(info.rec.nodeId, info.rec.seq);
      if (info.companion) owner.set(info.companion.id, info.rec.seq);
    }
    const into = new Map<string, string[]>();
    for (const e of s.graph.edges) (into.get(e.to) ?? into.set(e.to, []).get(e.to)!).push(e.from);
    const keep = new Set<string>();
    s.order.forEach((id, i) => {
      const o = owner.get(id);
      if (o !== undefined) {
        if (this.ready.isServed(o)) keep.add(id);
      } else if (i < tpos && this.nodeById.get(id)?.type !== "final_result" && (into.get(id) ?? []).every((f) => keep.has(f))) keep.add(id);
    });
    return s.order.filter((id) => keep.has(id));
  }

  /**
   * The output bundle (spec §Replay step 3): prefix nodes (source nodes before the target's
   * boundary node in O), their edges and records kept with ids and hashes; the live suffix as
   * new nodes; `parent = { bundleId, targetNodeId, guidance, mode: "selective", boundaryNodeId,
   * boundarySeq }`. Continue mode (`continueAtEnd`): every source node is the prefix and
   * `parent.mode = "continue"`. A partial rollout (`maxLiveLlm`) adds `parent.rollout = { maxLiveLlm,
   * liveLlm, stoppedAtLimit }` and may be built after the session stopped at the limit (then it has
   * no final_result node: the run did not end); a continue replay drops the source's final_result.
   * A substitution adds `parent.substitution = { correction, boundaryNodeId, boundarySeq, rule }`
   * (its first suffix record has `meta.substituted: true`); a replay with `targetRule: "output"`
   * and no substitution (the matched control) adds `parent.targetRule = "output"`.
   * @param end.id the new bundle id; end.final the run's final value; end.runner the command used
   * @throws Error when the session has no target (and is not a continue replay), diverged, or never went live
   * @throws BundleValidationError if the result violates spec §Validation (a bug)
   */
  toBundle(end: { id: string; final?: unknown; runner?: { name?: string; command: string[]; env?: Record<string, string> } }): ReplayBundle {
    const limited = this.state === "stopped" && this.stopStep?.status === "rollout-limit";
    if (!this.target && !this.opts.continueAtEnd) throw new Error("toBundle needs a target (selective replay) or continueAtEnd");
    const continuedNothing = !!this.opts.continueAtEnd && this.state === "replaying" && this.ready.count >= this.source.records.length;
    if (this.state !== "live" && !limited && !continuedNothing) throw new Error(`no replay bundle: the session is ${this.state}, not live`);
    // A run stopped at the rollout limit has not ended: no final_result node.
    if (!limited) this.builder.finish(end.final);
    const s = this.source;
    const tpos = this.target ? s.order.indexOf(this.target.boundaryNodeId) : s.order.length;
    // Continue mode: the run goes on, so the source's own end (a final_result) is not part of the prefix.
    let prefixOrder = this.target ? s.order.slice(0, tpos) : s.order.filter((id) => this.nodeById.get(id)?.type !== "final_result");
    let prefixRecords = s.records.slice(0, this.target ? this.target.seq : s.records.length).map((r) => ({ ...r }));
    if (this.target && !this.legacyOrder) {
      // Concurrent recording: the prefix is what was served (a concurrent sibling's later record may
      // be in it, a slower sibling's earlier one not), plus the record-less nodes before the target.
      prefixOrder = this.servedPrefixOrder(tpos);
      prefixRecords = s.records.filter((r) => this.ready.isServed(r.seq)).map((r) => ({ ...r }));
    }
    const prefix = new Set(prefixOrder);
    const prefixNodes = prefixOrder.map((id) => this.nodeById.get(id)!);
    const prefixEdges: BundleEdge[] = s.graph.edges.filter((e) => prefix.has(e.from) && prefix.has(e.to));
    const config = {
      ...s.config,
      ...(end.runner ? { runner: end.runner } : {}),
      replay: { ...(s.config.replay ?? {}), normalization: this.normalization, recorder: RECORDER_ID, ...protocolsOf([...s.records, ...this.builder.records], this.normalization) },
    };
    const { id: _id, format: _f, parent: _p, task, initialState, config: _c, graph: _g, order: _o, records: _r, outcome: _out, ...extra } = s;
    return buildBundle({
      id: end.id,
      parent: {
        bundleId: s.id,
        ...(this.target
          ? { targetNodeId: this.target.requestedNodeId, guidance: this.opts.guidance ?? "", mode: "selective", boundaryNodeId: this.target.boundaryNodeId, boundarySeq: this.target.seq }
          : { targetNodeId: s.order[s.order.length - 1] ?? "", guidance: this.opts.guidance ?? "", mode: "continue", boundarySeq: s.records.length }),
        ...(this.target && this.opts.substitution !== undefined ? { substitution: { correction: this.opts.substitution, boundaryNodeId: this.target.boundaryNodeId, boundarySeq: this.target.seq, rule: this.target.rule } } : {}),
        ...(this.target && this.opts.substitution === undefined && this.opts.targetRule === "output" ? { targetRule: "output" } : {}),
        ...(this.opts.maxLiveLlm !== undefined ? { rollout: { maxLiveLlm: this.opts.maxLiveLlm, liveLlm: this.liveLlm, stoppedAtLimit: limited } } : {}),
      },
      task,
      initialState,
      config,
      nodes: [...prefixNodes, ...this.builder.nodes],
      edges: [...prefixEdges, ...this.builder.edges.filter((e) => prefix.has(e.from) || !this.nodeById.has(e.from))],
      order: [...prefixOrder, ...this.builder.nodes.map((n) => n.id as string)],
      records: [...prefixRecords, ...this.builder.records],
      extra,
    });
  }
}
