/**
 * The patterns and word lists the Table 10 rules read (rules.ts). Pure constants; the README
 * lists every rule with the patterns it uses.
 */
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
export const FAILURE_STATUS_WORDS = new Set(["failed", "failure", "error", "timeout", "timed_out"]);
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
