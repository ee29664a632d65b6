/**
 * The production executor: lib/services/replay-exec.ts (executeReplayWithDetails), adapted to the
 * worker's ReplayExecutor type; a failure carries the failure kind, MAS exit code and stderr tail
 * into the run's errorJson. Imported lazily by ./worker.ts (loadDefaultExecutor).
 */
import { executeReplayWithDetails } from "../services/replay-exec";
import type { ReplayExecutor } from "./types";

export const defaultExecutor: ReplayExecutor = async (spec, opts) => {
  const { result, details } = await executeReplayWithDetails(spec, opts);
  if (result.status !== "failed") return result;
  return {
    ...result,
    error: { message: result.error, failure: details.failure, mode: details.mode, masExitCode: details.masExitCode, masSignal: details.masSignal, stderrTail: details.stderrTail },
  };
};
