/**
 * The one place the attempt worker reaches the real method registry (`METHODS` of
 * lib/services/experiments/methods, issue 13 item 2, helper A). Loaded lazily by
 * loadDefaultMethods (./experiment-worker.ts), so tests and fake-method workers never load it.
 */
import type { MethodRegistry } from "./experiment-types";

/**
 * The registry of the experiment methods.
 * @throws Error while lib/services/experiments/methods is not part of this build
 */
export async function loadMethodRegistry(): Promise<MethodRegistry> {
  throw new Error("the experiment methods (lib/services/experiments/methods) are not part of this build yet");
}
