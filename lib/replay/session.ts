/**
 * Boundary sessions: snapshot mode (`RecordSession`, seeds/000 Algorithm 1) and fail-closed
 * selective replay (`ReplaySession`, Algorithm 2; the bundle v1 spec §Replay).
 *
 * Both receive boundary requests in the order the MAS makes them (`begin`) and answer with a
 * `Step`: serve a recorded response, forward live (then `complete`), or stop. Both build the
 * output bundle. Pure: no I/O, no clock; the proxy (proxy/) does HTTP.
 */
export type { BoundaryCall, BoundarySession, DivergenceReason, DivergenceReport, RecordSummary, Step } from "./boundary-session";
export { RecordSession, type RecordSessionOptions } from "./record-session";
export { ReplaySession, type ReplaySessionOptions } from "./replay-session";
