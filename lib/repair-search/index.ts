/**
 * Public surface of lib/repair-search: the MARS repair tree (seeds/002 Algorithm 1, eq. 1) — UCT
 * selection, expansion by one selector call, judge evaluation, backpropagation — with all I/O
 * behind {@link SearchEnvironment}. Pure: no React, Next.js, Prisma or lib/db. See README.md.
 */
export * from "./types";
export { RepairSearchError, backpropagate, createSearch, isClosed, isFullyExpanded, pathTo, sameAction, resolveSettings, selectExpandable, storedGuidanceOf, uct } from "./tree";
export { iterate, runRepairSearch, searchFailure, totalUsage, validateAction } from "./search";
export { ReplyError, capScore, parseJudgeReply, parseSelectorReply, type ToolCallLike } from "./parse";
export {
  JUDGE_SYSTEM_PROMPT,
  JUDGE_TEMPERATURE,
  MAST_FAILURE_MODES,
  SELECTOR_SYSTEM_PROMPT,
  SELECTOR_TEMPERATURE,
  SELECTOR_TOOLS,
  judgeUserMessage,
  selectorUserMessage,
} from "./prompts";
