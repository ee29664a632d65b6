/**
 * The replay executor and recorder (lib/services/replay/), public surface: native selective replay
 * and transcript continuation (./execute.ts executeReplay / executeReplayWithDetails), recording a
 * new native run (./record.ts recordRun), MAS process control (./process.ts) and the types.
 */
export { executeReplay, executeReplayWithDetails, specModeOf } from "./execute";
export { nodeText, transcriptMessages, type TranscriptMessage } from "./transcript";
export { finalOf, masEnv, runMasProcess } from "./process";
export { recordRun, type RecordRunOptions, type RecordRunResult, type RecordRunSpec } from "./record";
export type { MasProcess, MasRunResult, ReplayFailureKind, ReplayProgress, ReplayRunDetails, ReplayRunOptions, ReplayRunResult, ReplayRunSpec } from "./types";
