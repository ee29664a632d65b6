/**
 * The rule catalogue: Table 10 of seeds/000 (../shared/spec/symptoms.md §1) as deterministic
 * rules with stable ids, plus the patterns they use. The checks themselves run in detect.ts
 * (one pass over the observed order). README.md lists every rule with its Table 10 clause.
 */
import type { RuleInfo } from "./types";

const T = {
  c1constraint: "violates a stated task constraint; incompatible output format",
  c1placeholder: "a placeholder or skipped action",
  c1unresolved: "returns an unresolved request (e.g. another browse action) instead of the required result",
  c2fp: "normalized action fingerprint or tool URL equals a preceding node's",
  c2retry: "a retry without new parameters or evidence",
  c2final: "another final-style output follows without an action that advances the unfinished objective",
  c3error: "node records an error, timeout or failed tool result",
  c3access: "reports inaccessible required evidence",
  c3final: "proceeds toward a final answer while an error remains unresolved earlier in the trace",
  c4browser: "browser action without URL or with an invalid `view-source:` URL",
  c4html: "structured data requested but HTML returned",
  c4after: "completion follows an unsuccessful action",
  c4tool: "a tool-dependent task answered without successful tool evidence",
};

/** Every rule, in the order hits are reported. */
export const RULES: readonly RuleInfo[] = [
  { id: "C1.placeholder", category: "C1", tier: "text", table10: T.c1placeholder, check: "an agent output (agent_action, llm_call, tool_call, final_result) contains an unresolved placeholder: __NAME__ (upper case), [insert …], <your …>, TODO/TBD/FIXME, \"placeholder\", lorem ipsum" },
  { id: "C1.skipped-action", category: "C1", tier: "text", table10: T.c1placeholder, check: "an agent output says an action was skipped or only hypothetical: \"I would browse/search/…\", \"skipping this step\", \"without actually …\", \"hypothetical/mock/dummy/fabricated data\"" },
  { id: "C1.unresolved-request", category: "C1", tier: "structured", table10: T.c1unresolved, check: "a final_result whose answer is an action request ({action: browse|click|search|…} or text opening with \"Let me / I will …\") instead of a result" },
  { id: "C1.format", category: "C1", tier: "structured", table10: T.c1constraint, check: "the task asks for \"a number only\", \"a list of objects with keys k1 and k2 only\" or \"yes or no\" and the final answer does not have that shape" },
  { id: "C2.repeated-action", category: "C2", tier: "structured", table10: `${T.c2fp}; ${T.c2retry}`, check: "the normalized fingerprint (tool name + canonical arguments; {action, …} object without reason; or an agent's whitespace-normalized message of ≥ 40 characters) equals an earlier node's that is not its direct data predecessor" },
  { id: "C2.repeated-url", category: "C2", tier: "structured", table10: T.c2fp, check: "a tool or browser action targets a normalized URL an earlier node already targeted (and the whole fingerprint differs)" },
  { id: "C2.no-new-evidence", category: "C2", tier: "structured", table10: T.c2retry, check: "a tool_result whose content (ids and times removed, ≥ 40 characters of JSON) equals an earlier tool_result's" },
  { id: "C2.final-without-progress", category: "C2", tier: "structured", table10: T.c2final, check: "a final-style output follows an earlier final-style output (not its direct data predecessor) with no new tool call and no successful tool result in between" },
  { id: "C3.node-error", category: "C3", tier: "runtime", table10: T.c3error, check: "S_node(v) = [v.error ≠ ∅] (F.6 eq. 40): the node's `error` is a non-empty object or string" },
  { id: "C3.tool-error", category: "C3", tier: "runtime", table10: T.c3error, check: "S_tool(v) = [v.tool_result.error ≠ ∅] (F.6 eq. 41): a tool_result whose content has a non-empty `error` (or `is_error`/`isError` true)" },
  { id: "C3.failed-status", category: "C3", tier: "runtime", table10: T.c3error, check: "S_status(v) (F.6 eq. 42): the node `status` or a tool_result's content `status` is failed/failure/error/timeout/timed_out" },
  { id: "C3.http-error", category: "C3", tier: "structured", table10: T.c3error, check: "a tool_result whose content http_status/status_code/statusCode is ≥ 400" },
  { id: "C3.error-text", category: "C3", tier: "text", table10: T.c3error, check: "a tool_result's text shows a failure: \"exitcode: N (execution failed)\" with N ≠ 0, a Python traceback, \"XxxError:\"/\"XxxException:\", \"timed out\", an HTTP 4xx/5xx status line" },
  { id: "C3.inaccessible-evidence", category: "C3", tier: "text", table10: T.c3access, check: "a node (not the task) reports it could not access/open/load/retrieve/fetch/reach something, access denied, not accessible, is behind a paywall or a CAPTCHA" },
  { id: "C3.unresolved-upstream-error", category: "C3", tier: "propagated", table10: T.c3final, check: "a final-style node with an unresolved failure upstream over data/control edges (a failed node not followed, on that path, by a successful tool_result)" },
  { id: "C4.browser-no-url", category: "C4", tier: "structured", table10: T.c4browser, check: "a browser action (tool named browse/navigate/goto/visit/open_url…, or {action: browse|goto|navigate|visit}) with no non-empty url/href/link/uri argument" },
  { id: "C4.view-source-url", category: "C4", tier: "structured", table10: T.c4browser, check: "a tool or browser action whose URL starts with `view-source:` (a browser automation cannot navigate there)" },
  { id: "C4.html-for-structured", category: "C4", tier: "structured", table10: T.c4html, check: "a tool_result whose body is an HTML document (<!doctype html / <html, or content-type text/html) while its tool_call asked for structured data (an API/JSON URL or tool, or format=json)" },
  { id: "C4.completion-after-failure", category: "C4", tier: "propagated", table10: T.c4after, check: "a final-style node whose latest upstream tool_result (over data/control edges) failed" },
  { id: "C4.answer-without-tool-evidence", category: "C4", tier: "structured", table10: T.c4tool, check: "a final-style node with a non-empty answer, of a tool-dependent task (start URLs, tool nodes in the trace, or a prompt that asks to browse/search/look up/use a site, wiki, map or API) with no successful tool_result upstream" },
];

/** Rule info by id. */
export const RULE_BY_ID: ReadonlyMap<string, RuleInfo> = new Map(RULES.map((r) => [r.id, r]));

// ---- patterns --------------------------------------------------------------------------------

/** Environment placeholders as WebArena writes them (`__SHOPPING__`): upper case only, so Python dunders (`__init__`) stay quiet. */
export const PLACEHOLDER_ENV_RE = /__[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*__/;
export const PLACEHOLDER_RE = /\[(?:insert|your|placeholder|add)\b[^\]\n\u0000]{0,40}\]|<(?:placeholder|insert\b[^>\n\u0000]{0,30}|your[_ ][^>\n\u0000]{1,30})>|\b(?:TODO|TBD|FIXME)\b|\bplaceholder\b|\blorem ipsum\b/i;
export const SKIPPED_RE = /\bI would (?:need to |have to |first )?(?:browse|navigate|visit|open|access|search|query|check|look up|run|execute|call)\b|\b(?:skip(?:ping|ped)?|omit(?:ting|ted)?) (?:this|the|that) (?:step|action|tool call|search|verification)\b|\bwithout (?:actually )?(?:browsing|accessing|running|executing|checking|visiting)\b|\b(?:hypothetical|simulated|mock|dummy|made[- ]up|fabricated|illustrative) (?:data|values?|results?|answers?|prices?|output)\b/i;
export const FINAL_RE = /\bfinal answer\s*[:：]|\\boxed\{(?!\})/i;
export const ERROR_TEXT_RE = /exitcode: [1-9]\d* \(execution failed\)|Traceback \(most recent call last\)|(?:^|[\n\u0000])[ \t]*[A-Za-z_.]*(?:Error|Exception)\b:|\btimed out\b|\bHTTP(?:\/\d(?:\.\d)?)? (?:4\d\d|5\d\d)\b|\b(?:404 Not Found|403 Forbidden|401 Unauthorized|500 Internal Server Error|502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out)\b/;
export const INACCESSIBLE_RE = /\b(?:unable to|could not|couldn't|cannot|can't|can not|failed to) (?:access|open|load|retrieve|reach|fetch|download|connect to|view)\b|\baccess (?:is |was )?denied\b|\bnot (?:publicly )?accessible\b|\b(?:is|was|are|were) (?:behind|blocked by) a paywall\b|\bpaywalled\b|\bCAPTCHA\b/i;
export const REQUEST_OPENING_RE = /^\s*(?:let me|I will|I'll|I need to|next,? I(?: will|'ll)?)\b/i;
export const ACTION_VERBS = new Set(["browse", "click", "type", "goto", "go_to", "navigate", "visit", "search", "scroll", "open", "fetch", "go_back", "hover", "press", "select", "fill"]);
export const BROWSER_ACTIONS = new Set(["browse", "goto", "go_to", "navigate", "visit", "open", "open_url"]);
export const BROWSER_TOOL_RE = /(?:^|[_\s.-])(?:browse|browser|navigate|goto|go_to|visit|open_url|open_page|visit_page|page_goto)(?:$|[_\s.-])|^(?:browse|navigate|goto|visit)/i;
export const URL_KEYS = ["url", "href", "link", "uri", "target_url", "targetUrl"] as const;
export const FAILED_STATUSES = new Set(["failed", "failure", "error", "timeout", "timed_out"]);
export const NUMBER_ONLY_TASK_RE = /\bnumber only\b|\bonly (?:a|the) number\b|\bas a (?:single )?number\b|\bnumeric value only\b|\bjust the number\b/i;
export const KEYS_ONLY_TASK_RE = /\bwith (?:the )?keys? ((?:[A-Za-z_][\w]*(?: \([^)]{0,60}\))?(?:, and |, | and )?)+) only\b/i;
export const YES_NO_TASK_RE = /\banswer (?:with )?(?:"?yes"? or "?no"?)\b|\b(?:respond|reply) (?:with )?"?yes"? or "?no"?\b/i;
export const TOOL_TASK_RE = /\b(?:brows\w*|search\w*|look(?:ing)? up|website|web ?page|wiki\w*|https?:\/\/|API|database|map service|direction service|use the [\w\s-]{0,30}(?:site|service|tool))\b/i;
export const NUMBER_RE = /^\s*[-+]?\$?\d[\d,]*(?:\.\d+)?\s*%?\s*$/;
export const HTML_RE = /^\s*(?:<!doctype html|<html[\s>])/i;
export const STRUCTURED_TOOL_RE = /(?:^|[_\s.-])(?:api|json|query|graphql|rest)(?:$|[_\s.-])/i;
export const STRUCTURED_URL_RE = /\/api(?:[./?]|$)|\.json(?:[?#]|$)|[?&](?:format|f|output)=json\b|\/graphql\b|\/v\d+\//i;
/** Keys dropped before comparing tool observations (they change between identical results). */
export const VOLATILE_KEYS = new Set(["id", "callId", "call_id", "spanId", "parentSpanId", "traceId", "timestamp", "time", "startTime", "endTime", "durationMs", "latencyMs", "created", "request_id", "requestId", "date"]);
