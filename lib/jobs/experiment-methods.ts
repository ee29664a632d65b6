/**
 * The one place the attempt worker reaches the real method registry (`METHODS` of
 * lib/services/experiments/methods, issue 13 item 2). Loaded lazily by loadDefaultMethods
 * (./kinds/experiment-attempt.ts), so tests and fake-method workers never load it.
 */
import type { MethodRegistry } from "../services/experiments/methods/types";

/** The registry of the experiment methods (rerun … nudge). */
export async function loadMethodRegistry(): Promise<MethodRegistry> {
  const { METHODS } = await import("../services/experiments/methods");
  // Assigned, not cast: the compiler checks that the plug-ins fit the worker's contract.
  const registry: MethodRegistry = METHODS;
  return registry;
}
