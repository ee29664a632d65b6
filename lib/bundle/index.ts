/** Public surface of lib/bundle: the replay bundle v1 format (the bundle v1 spec). */
export * from "./schema";
export { canonicalJson, canonicalJsonOfParsed, hashContent, hashJson, hashJsonReplacing, hashRequest, sha256Tagged } from "./hash";
export type { StringReplacement } from "./hash";
export { validateBundle, formatJsonPath, findCycle } from "./validate";
export type { ValidationIssue, ValidationResult, ValidationRule } from "./validate";
export { buildBundle, serializeBundle, BundleValidationError } from "./build";
export type { BundleDraft, NodeDraft, RecordDraft } from "./build";
export { parseJsonText, replaceNonFiniteLiterals, JsonTextError } from "./json-text";
export { syntheticBundle, goldSizedBundle, fanOutBundle } from "./synthetic";
export type { FanOutBundleOptions } from "./synthetic";
export { MAX_JSON_DEPTH, PRETTY_DEPTH, checkJsonDepth, findTooDeep, stringifyBoundedIndent } from "./depth";
export type { DepthHit } from "./depth";
export { streamBundleFile, MAX_STREAM_ISSUES } from "./stream";
export type { BundleStreamSink, BundleStreamResult, MemberJson } from "./stream";
export { readJsonStream, readJsonFileValue, JsonStreamError } from "./json-stream";
export type { JsonKey, JsonStreamHandler, ReadJsonStreamOptions } from "./json-stream";
