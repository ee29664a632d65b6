/**
 * Waiting for concurrent agents on replay (issue 21 item 4): a request the session answers with
 * `blocked` is held (polled every 5 ms) for at most `waitMs` — a request whose record still waits
 * for another agent's recorded predecessor, the target while calls recorded before it are
 * unserved, a call recorded after the target until the target went live; then it is asked once
 * more with `final: true` (a still-missing predecessor is a `reordered` divergence; the target goes
 * live; a later call is served). Nothing is consumed while a request waits.
 */
import type { BoundaryCall, BoundarySession, Step } from "../lib/replay";

/** Default longest wait for a concurrent agent's recorded predecessor, in ms. */
export const DEFAULT_REORDER_WAIT_MS = 3000;

/**
 * `session.begin(call)`, retried while the step is `blocked`.
 * @param waitMs longest wait in ms (default 3000)
 * @returns a step that is not `blocked`
 */
export async function beginWhenReady(session: BoundarySession, call: BoundaryCall, waitMs = DEFAULT_REORDER_WAIT_MS): Promise<Exclude<Step, { kind: "blocked" }>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const step = session.begin(Date.now() >= deadline ? { ...call, final: true } : call);
    if (step.kind !== "blocked") return step;
    await new Promise((r) => setTimeout(r, 5));
  }
}
