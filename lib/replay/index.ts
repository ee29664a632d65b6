/**
 * Public surface of lib/replay: snapshot mode and fail-closed selective replay (seeds/000 §3,
 * Appendix A, Algorithms 1–2; the bundle v1 spec §Replay). Pure: no HTTP, no clock.
 */
export { RecordSession, ReplaySession } from "./session";
export type {
  BoundaryCall,
  BoundarySession,
  DivergenceReason,
  DivergenceReport,
  RecordSessionOptions,
  RecordSummary,
  ReplaySessionOptions,
  Step,
} from "./session";
export { producingLlmRecord, producingLlmRecords, resolveOutputTarget, resolveTarget, TargetError } from "./target";
export type { TargetResolution } from "./target";
export { normalizeRequest, isNormalizationName, NORMALIZATIONS, DEFAULT_NORMALIZATION, OPENAI_CHAT_V1_DROPPED, PROTOCOL_NORMALIZATIONS } from "./normalize";
export type { NormalizationName } from "./normalize";
export { pointerDiff, describeDiff, resolvePointer } from "./diff";
export type { PointerDiff } from "./diff";
export { appendGuidance, assembleStream, assistantOf, correctionMessage, substitutedResponse, SUBSTITUTED_RESPONSE_ID, formatSseEvent, isStreamedResponse, namedToolCalls, streamEventsFor, wantsStreamUsage, GUIDANCE_ROLE } from "./openai";
export type { AssistantMessage, SseEvent, StreamedResponse } from "./openai";
export { TraceBuilder, RECORDER_ID, agentOfRequest, llmCallContent, agentActionContent, toolCallContent, toolResultContent, taskNodeContent } from "./trace";
export type { BoundaryOutcome, OpenEvent, TraceBuilderOptions } from "./trace";
export { alignSuffix, finalAnswer, finalAnswerText, interventionNodeId, resolveOutcomes, summarizeContent, SUMMARY_CHARS } from "./compare";
export type { AlignedRow, FinalAnswer, ResolvedOutcome, SuffixAlignment, SuffixMarker, SuffixNode, Verdict } from "./compare";
export { compareReplay } from "./node-compare";
export type { CompareKind, CompareRow } from "./node-compare";
export { compileMasks, applyMasks, MaskError, MASKED } from "./masks";
export type { ReplayMask, CompiledMask, MaskedValue } from "./masks";
export { producedIds, renameInventedIds, hasInventedIds, ID_KEYS } from "./rename";
export { observedSpans, ReadyTracker } from "./order";
export type { ObservedSpan } from "./order";
export { PROTOCOLS, DEFAULT_PROTOCOL, isProtocolName, protocolAdapter, recordProtocol, appendGuidanceFor, toolResultAt } from "./protocols";
export { anthropicStreamError, chatStreamError, responsesStreamError } from "./stream-errors";
export type { StreamError } from "./stream-errors";
export type { ProtocolName, ProtocolAdapter, OutputView, ToolCallView, ToolResultView } from "./protocols";
export { AgentLanes, agentEvidence, agentKeyOf, promptName, promptTag } from "./agents";
export type { AgentEvidence } from "./agents";
export { OPENAI_RESPONSES_V1, OPENAI_RESPONSES_V1_DROPPED, expandPreviousResponse, expandResponseChain, responsesOutput, responsesResponseOf } from "./responses";
export { ANTHROPIC_MESSAGES_V1, ANTHROPIC_MESSAGES_V1_DROPPED, anthropicMessageOf, anthropicOutput } from "./anthropic";
export { OPENAI_EMBEDDINGS_V1, OPENAI_EMBEDDINGS_V1_DROPPED } from "./embeddings";
