/**
 * The rule catalogue: Table 10 of seeds/000 (the symptoms spec §1) as deterministic
 * rules with stable ids. Each rule is one object: what it is (id, category, tier, the Table 10
 * clause, the check in words), which node types it reads, and its predicate, which returns the
 * evidence (JSON paths and exact quotes) when it fires. The scan (scan.ts) is a loop over them.
 * Adding a rule = one entry here + one row in detect.test.ts (README §"Adding a rule").
 */
import type { NodeType } from "../bundle";
import { contentError, errorText, isFailureStatus, mainText, normUrl, parseMaybeJson, quoteOf, urlsOf } from "./facts";
import {
  ACTION_VERBS,
  ERROR_TEXT_RE,
  HTML_RE,
  INACCESSIBLE_RE,
  NUMBER_RE,
  PLACEHOLDER_ENV_RE,
  PLACEHOLDER_RE,
  REQUEST_OPENING_RE,
  SKIPPED_RE,
  STRUCTURED_TOOL_RE,
  STRUCTURED_URL_RE,
} from "./patterns";
import type { RuleContext, Seen } from "./rule-context";
import type { Evidence, RuleInfo } from "./types";
import { clip, firstMatch, isRec } from "./view";

/** A rule: its description and its predicate. */
export interface RuleDef extends RuleInfo {
  /** The node types it reads ("any" = every type); the scan skips the rest without calling it. */
  nodeTypes: readonly NodeType[] | "any";
  /** A hit marks the node failed for propagation (C3.unresolved-upstream-error, C4.completion-after-failure). */
  marksFailure?: boolean;
  /** The evidence (at most 3 pieces are kept) when the rule fires on the node, else null. */
  test(ctx: RuleContext): Evidence[] | null;
}

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

const AGENT_OUTPUTS: readonly NodeType[] = ["agent_action", "llm_call", "tool_call", "final_result"];
const ACTIONS: readonly NodeType[] = ["tool_call", "agent_action", "llm_call", "final_result"];
const FINAL_STYLE: readonly NodeType[] = ["final_result", "agent_action", "llm_call"];
const one = (e: Evidence | null): Evidence[] | null => (e ? [e] : null);
const quoting = (s: Seen): Evidence => ({ nodeId: s.id, path: s.path, quote: s.quote });

/** Every rule, in the order hits are reported. */
export const RULES: readonly RuleDef[] = [
  {
    id: "C1.placeholder", category: "C1", tier: "text", table10: T.c1placeholder, nodeTypes: AGENT_OUTPUTS,
    check: "an agent output (agent_action, llm_call, tool_call, final_result) contains an unresolved placeholder: __NAME__ (upper case), [insert …], <your …>, TODO/TBD/FIXME, \"placeholder\", lorem ipsum",
    test: (x) => one(firstMatch(x.text, PLACEHOLDER_ENV_RE) ?? firstMatch(x.text, PLACEHOLDER_RE)),
  },
  {
    id: "C1.skipped-action", category: "C1", tier: "text", table10: T.c1placeholder, nodeTypes: ["agent_action", "llm_call", "final_result", "message"],
    check: "an agent output says an action was skipped or only hypothetical: \"I would browse/search/…\", \"skipping this step\", \"without actually …\", \"hypothetical/mock/dummy/fabricated data\"",
    test: (x) => (x.isTask ? null : one(firstMatch(x.text, SKIPPED_RE))),
  },
  {
    id: "C1.unresolved-request", category: "C1", tier: "structured", table10: T.c1unresolved, nodeTypes: ["final_result"],
    check: "a final_result whose answer is an action request ({action: browse|click|search|…} or text opening with \"Let me / I will …\") instead of a result",
    test: ({ answer: ans }) => {
      if (!ans) return null;
      const val = parseMaybeJson(ans.value);
      if (isRec(val) && typeof val.action === "string" && ACTION_VERBS.has(val.action.toLowerCase())) {
        return [{ path: ans.path === "$.content" ? "$.content.action" : ans.path, quote: ans.path === "$.content" ? val.action : quoteOf(ans.value) }];
      }
      return typeof ans.value === "string" && REQUEST_OPENING_RE.test(ans.value) ? [{ path: ans.path, quote: quoteOf(ans.value) }] : null;
    },
  },
  {
    id: "C1.format", category: "C1", tier: "structured", table10: T.c1constraint, nodeTypes: FINAL_STYLE,
    check: "the task asks for \"a number only\", \"a list of objects with keys k1 and k2 only\" or \"yes or no\" and the final answer does not have that shape",
    test: ({ answer: ans, answerEvidence, task }) => {
      if (!ans || !answerEvidence) return null;
      const val = parseMaybeJson(ans.value);
      if (task.numberOnly) return typeof val === "number" || (typeof val === "string" && NUMBER_RE.test(val)) ? null : [answerEvidence];
      if (task.keysOnly) {
        const want = task.keysOnly.keys.slice().sort().join(",");
        const list = Array.isArray(val) ? val : isRec(val) ? [val] : null;
        const ok = list !== null && list.length > 0 && list.every((x) => isRec(x) && Object.keys(x).sort().join(",") === want);
        return ok ? null : [answerEvidence];
      }
      if (task.yesNo) return typeof val === "string" && /^\s*(?:yes|no)\b/i.test(val) ? null : [answerEvidence];
      return null;
    },
  },
  {
    id: "C2.repeated-action", category: "C2", tier: "structured", table10: `${T.c2fp}; ${T.c2retry}`, nodeTypes: ACTIONS,
    check: "the normalized fingerprint (tool name + canonical arguments; {action, …} object without reason; or an agent's whitespace-normalized message of ≥ 40 characters) equals an earlier node's that is not its direct data predecessor",
    test: ({ action, sameAction }) => (action.fp && sameAction ? [{ path: action.fp.path, quote: action.fp.quote }, quoting(sameAction)] : null),
  },
  {
    id: "C2.repeated-url", category: "C2", tier: "structured", table10: T.c2fp, nodeTypes: ACTIONS,
    check: "a tool or browser action targets a normalized URL an earlier node already targeted (and the whole fingerprint differs)",
    test: (x) => {
      if (!x.action.urls.length || x.sameAction) return null;
      let ev: Evidence[] | null = null;
      const here = new Map<string, Seen>();
      for (const u of x.action.urls) {
        const key = normUrl(u.url);
        const s = here.get(key) ?? x.urlSeen.get(key);
        if (s && !x.isDataPred(s.pos)) (ev ??= []).push({ path: u.path, quote: u.url }, quoting(s));
        here.set(key, { pos: x.position, id: x.node.id, path: u.path, quote: u.url });
      }
      return ev;
    },
  },
  {
    id: "C2.no-new-evidence", category: "C2", tier: "structured", table10: T.c2retry, nodeTypes: ["tool_result"],
    check: "a tool_result whose content (ids and times removed, ≥ 40 characters of JSON) equals an earlier tool_result's",
    test: ({ observation: o, seenObservation: s }) => (o && s ? [{ path: o.path, quote: clip(o.text) }, quoting(s)] : null),
  },
  {
    id: "C2.final-without-progress", category: "C2", tier: "structured", table10: T.c2final, nodeTypes: FINAL_STYLE,
    check: "a final-style output follows an earlier final-style output (not its direct data predecessor) with no new tool call and no successful tool result in between",
    test: (x) => (x.answerEvidence && x.previousFinal && !x.advancedSincePreviousFinal && !x.isDataPred(x.previousFinal.pos) ? [x.answerEvidence, quoting(x.previousFinal)] : null),
  },
  {
    id: "C3.node-error", category: "C3", tier: "runtime", table10: T.c3error, nodeTypes: "any", marksFailure: true,
    check: "S_node(v) = [v.error ≠ ∅] (F.6 eq. 40): the node's `error` is a non-empty object or string",
    test: (x) => one(errorText(x.node.error)),
  },
  {
    id: "C3.tool-error", category: "C3", tier: "runtime", table10: T.c3error, nodeTypes: ["tool_result"], marksFailure: true,
    check: "S_tool(v) = [v.tool_result.error ≠ ∅] (F.6 eq. 41): a tool_result whose content has a non-empty `error` (or `is_error`/`isError` true)",
    test: (x) => (x.content ? one(contentError(x.content)) : null),
  },
  {
    id: "C3.failed-status", category: "C3", tier: "runtime", table10: T.c3error, nodeTypes: "any", marksFailure: true,
    check: "S_status(v) (F.6 eq. 42): the node `status` or a tool_result's content `status` is failed/failure/error/timeout/timed_out",
    test: ({ node, type, content: cr }) => {
      if (typeof node.status === "string" && isFailureStatus(node.status)) return [{ path: "$.status", quote: node.status }];
      if (type === "tool_result" && cr && typeof cr.status === "string" && isFailureStatus(cr.status)) return [{ path: "$.content.status", quote: cr.status }];
      return null;
    },
  },
  {
    id: "C3.http-error", category: "C3", tier: "structured", table10: T.c3error, nodeTypes: ["tool_result"], marksFailure: true,
    check: "a tool_result whose content http_status/status_code/statusCode is ≥ 400",
    test: ({ content: cr }) => {
      if (!cr) return null;
      for (const k of ["http_status", "status_code", "statusCode", "httpStatus"]) {
        const s = cr[k];
        if (typeof s === "number" && s >= 400) return [{ path: `$.content.${k}`, quote: String(s) }];
      }
      return null;
    },
  },
  {
    id: "C3.error-text", category: "C3", tier: "text", table10: T.c3error, nodeTypes: ["tool_result"], marksFailure: true,
    check: "a tool_result's text shows a failure: \"exitcode: N (execution failed)\" with N ≠ 0, a Python traceback, \"XxxError:\"/\"XxxException:\", \"timed out\", an HTTP 4xx/5xx status line",
    test: (x) => {
      const m = firstMatch(x.text, ERROR_TEXT_RE);
      return m ? [{ path: m.path, quote: m.quote.trim() }] : null;
    },
  },
  {
    id: "C3.inaccessible-evidence", category: "C3", tier: "text", table10: T.c3access, nodeTypes: ["agent_action", "llm_call", "tool_result", "message", "final_result"],
    check: "a node (not the task) reports it could not access/open/load/retrieve/fetch/reach something, access denied, not accessible, is behind a paywall or a CAPTCHA",
    test: (x) => (x.isTask ? null : one(firstMatch(x.text, INACCESSIBLE_RE))),
  },
  {
    id: "C3.unresolved-upstream-error", category: "C3", tier: "propagated", table10: T.c3final, nodeTypes: FINAL_STYLE,
    check: "a final-style node with an unresolved failure upstream over data/control edges (a failed node not followed, on that path, by a successful tool_result)",
    test: (x) => (x.answerEvidence && x.upstreamFailure ? [x.answerEvidence, x.upstreamFailure] : null),
  },
  {
    id: "C4.browser-no-url", category: "C4", tier: "structured", table10: T.c4browser, nodeTypes: ACTIONS,
    check: "a browser action (tool named browse/navigate/goto/visit/open_url…, or {action: browse|goto|navigate|visit}) with no non-empty url/href/link/uri argument",
    test: ({ action }) => (action.browser && action.urls.length === 0 ? [action.browser] : null),
  },
  {
    id: "C4.view-source-url", category: "C4", tier: "structured", table10: T.c4browser, nodeTypes: ACTIONS,
    check: "a tool or browser action whose URL starts with `view-source:` (a browser automation cannot navigate there)",
    test: ({ action }) => {
      const ev = action.urls.filter((u) => /^\s*view-source:/i.test(u.url)).map((u) => ({ path: u.path, quote: u.url }));
      return ev.length ? ev : null;
    },
  },
  {
    id: "C4.html-for-structured", category: "C4", tier: "structured", table10: T.c4html, nodeTypes: ["tool_result"],
    check: "a tool_result whose body is an HTML document (<!doctype html / <html, or content-type text/html) while its tool_call asked for structured data (an API/JSON URL or tool, or format=json)",
    test: ({ content: cr, leaves, dataToolCall: call }) => {
      if (!call || !isRec(call.content)) return null;
      const body = mainText(leaves);
      const ctype = !cr ? undefined : typeof cr.content_type === "string" ? cr.content_type : typeof cr.contentType === "string" ? cr.contentType : isRec(cr.headers) ? cr.headers["content-type"] : undefined;
      const html = body && HTML_RE.test(body.text) ? { path: body.path, quote: clip(body.text.trimStart(), 40) } : typeof ctype === "string" && /text\/html/i.test(ctype) ? { path: "$.content.content_type", quote: ctype } : null;
      if (!html) return null;
      const cc = call.content;
      const t = isRec(cc.tool) ? cc.tool : null;
      const name = typeof cc.tool === "string" ? cc.tool : typeof cc.name === "string" ? cc.name : t && typeof t.name === "string" ? t.name : "";
      const args = parseMaybeJson(cc.arguments ?? t?.arguments ?? cc.args);
      const callUrls = isRec(args) ? urlsOf(args, "$") : [];
      const wantsJson = STRUCTURED_TOOL_RE.test(name) || callUrls.some((u) => STRUCTURED_URL_RE.test(u.url)) || (isRec(args) && typeof args.format === "string" && /json/i.test(args.format));
      return wantsJson ? [html, { nodeId: call.id, path: "$.content", quote: quoteOf(callUrls[0]?.url ?? name) }] : null;
    },
  },
  {
    id: "C4.completion-after-failure", category: "C4", tier: "propagated", table10: T.c4after, nodeTypes: FINAL_STYLE,
    check: "a final-style node whose latest upstream tool_result (over data/control edges) failed",
    test: (x) => (x.answerEvidence && x.latestToolFailure ? [x.answerEvidence, x.latestToolFailure] : null),
  },
  {
    id: "C4.answer-without-tool-evidence", category: "C4", tier: "structured", table10: T.c4tool, nodeTypes: FINAL_STYLE,
    check: "a final-style node with a non-empty answer, of a tool-dependent task (start URLs, tool nodes in the trace, or a prompt that asks to browse/search/look up/use a site, wiki, map or API) with no successful tool_result upstream",
    test: (x) => (x.answerEvidence && x.task.toolDependent && !x.toolEvidenceUpstream && x.answer && x.answer.value !== "" ? [x.answerEvidence] : null),
  },
];

/** Rule info by id. */
export const RULE_BY_ID: ReadonlyMap<string, RuleDef> = new Map(RULES.map((r) => [r.id, r]));
