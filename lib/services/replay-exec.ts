/**
 * Compatibility re-export: the replay executor now lives in lib/services/replay/ (issue 13, split
 * along native replay ./replay/native.ts, transcript continuation ./replay/transcript.ts, process
 * control ./replay/process.ts, recording ./replay/record.ts, types ./replay/types.ts). Every older
 * import of this module keeps working; new code imports from "./replay".
 */
export * from "./replay";
