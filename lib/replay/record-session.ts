/**
 * Snapshot mode: `RecordSession` (seeds/000 §3.1, Algorithm 1). Pure: no I/O, no clock; the proxy
 * (proxy/) does HTTP.
 */
import { buildBundle, type ReplayBundle } from "../bundle";
import { DEFAULT_NORMALIZATION, normalizeRequest } from "./normalize";
import { compileMasks } from "./masks";
import { RECORDER_ID, TraceBuilder } from "./trace";
import { type BoundaryCall, type Step, type BoundarySession, LiveRecorder, protocolsOf } from "./boundary-session";
/** Options of snapshot mode. */
export interface RecordSessionOptions {
  id: string;
  task: ReplayBundle["task"];
  initialState?: unknown;
  /** Runtime configuration c; `replay.normalization` and `replay.recorder` are filled in. */
  config?: ReplayBundle["config"];
  /** Normalization name (default `openai-chat-v1`). */
  normalization?: string;
}

/**
 * Snapshot mode (seeds/000 §3.1, Algorithm 1): every request is forwarded live and appended as a
 * boundary record with its nodes and edges.
 *
 * Usage: `begin` -> `{ kind: "live", ticket, forward }` always; forward, then `complete(ticket,
 * outcome)`; at the end `toBundle({ final })`.
 */
export class RecordSession extends LiveRecorder implements BoundarySession {
  readonly mode = "record" as const;
  private readonly normalization: string;

  /** @throws Error for an unknown normalization name; MaskError for a malformed `config.replay.masks` */
  constructor(private readonly opts: RecordSessionOptions) {
    super();
    this.normalization = opts.normalization ?? DEFAULT_NORMALIZATION;
    normalizeRequest("llm", {}, this.normalization);
    compileMasks((opts.config?.replay as Record<string, unknown> | null | undefined)?.masks);
    this.builder = new TraceBuilder();
    if (opts.task.prompt) this.builder.addTask(opts.task.prompt);
  }

  /** Always live: `forward` is the MAS's own request. */
  begin(call: BoundaryCall): Step {
    const normalized = normalizeRequest(call.boundary, call.request, this.normalization, call.protocol);
    const { ticket, nodeId } = this.startLive(call, normalized);
    return { kind: "live", ticket, forward: call.request, isTarget: false, nodeId };
  }

  /**
   * Finish the run and build the bundle v1 (hashes, seq, order; validated).
   * @param end.final the run's `{"final":...}` value (undefined when the command printed none)
   * @param end.runner how to restart the MAS (`config.runner`)
   * @throws BundleValidationError if the result violates spec §Validation (a bug)
   */
  toBundle(end: { final?: unknown; runner?: { name?: string; command: string[]; env?: Record<string, string> } } = {}): ReplayBundle {
    this.builder.finish(end.final);
    const config = {
      ...(this.opts.config ?? {}),
      ...(end.runner ? { runner: end.runner } : {}),
      replay: { ...(this.opts.config?.replay ?? {}), normalization: this.normalization, recorder: RECORDER_ID, ...protocolsOf(this.builder.records, this.normalization) },
    };
    return buildBundle({
      id: this.opts.id,
      task: this.opts.task,
      initialState: this.opts.initialState ?? {},
      config,
      nodes: this.builder.nodes,
      edges: this.builder.edges,
      records: this.builder.records,
    });
  }
}
