/**
 * Rule-gated symptom detection (Algorithm 3) and anchor selection (eq. 21–34, Algorithm 4) over a
 * replay bundle, in ONE pass over the observed order. Cost is O(nodes + edges + content size):
 * every propagated quantity (the nearest unresolved upstream failure, the latest upstream tool
 * outcome, whether any successful tool evidence is upstream) is carried along the data and
 * control edges node by node, never by walking a node's ancestors.
 */
import type { BundleNode, ReplayBundle } from "../bundle";
import {
  ACTION_VERBS,
  BROWSER_ACTIONS,
  BROWSER_TOOL_RE,
  ERROR_TEXT_RE,
  FAILED_STATUSES,
  FINAL_RE,
  HTML_RE,
  INACCESSIBLE_RE,
  KEYS_ONLY_TASK_RE,
  NUMBER_ONLY_TASK_RE,
  NUMBER_RE,
  PLACEHOLDER_ENV_RE,
  PLACEHOLDER_RE,
  REQUEST_OPENING_RE,
  RULE_BY_ID,
  RULES,
  SKIPPED_RE,
  STRUCTURED_TOOL_RE,
  STRUCTURED_URL_RE,
  TOOL_TASK_RE,
  URL_KEYS,
  VOLATILE_KEYS,
  YES_NO_TASK_RE,
} from "./rules";
import { eta, scoreNode, THETA, TIER_CONFIDENCE } from "./scores";
import type { Category, DetectionResult, Evidence, JudgeVerdict, NodeFeatures, NodeSymptoms, RuleHit } from "./types";
import { CATEGORIES } from "./types";
import { clip, firstMatch, isRec, leafText, stableJson, stringLeaves, type Leaf } from "./view";

type Rec = Record<string, unknown>;

/** A node on which at least one rule fired, before scoring. */
export interface TriggeredNode {
  node: BundleNode;
  position: number;
  rules: RuleHit[];
  triggered: Category[];
  runtimeFailure: 0 | 1;
  boundary: string | null;
}

/** Output of the rule pass: what the judge sees and what scoring needs. */
export interface RuleScan {
  bundleId: string;
  nodeCount: number;
  replayable: boolean;
  triggered: TriggeredNode[];
}

/** Thrown when the bundle's order/graph cannot be walked (unknown ids in `order` or edges). */
export class SymptomInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SymptomInputError";
  }
}

interface TaskConstraints {
  numberOnly: string | null;
  keysOnly: { quote: string; keys: string[] } | null;
  yesNo: string | null;
  toolDependent: boolean;
}

function taskConstraints(bundle: ReplayBundle, hasToolNodes: boolean): TaskConstraints {
  const prompt = typeof bundle.task?.prompt === "string" ? bundle.task.prompt : "";
  const num = NUMBER_ONLY_TASK_RE.exec(prompt);
  const keys = KEYS_ONLY_TASK_RE.exec(prompt);
  const yn = YES_NO_TASK_RE.exec(prompt);
  const startUrls = Array.isArray(bundle.task?.startUrls) ? bundle.task.startUrls : [];
  return {
    numberOnly: num ? num[0] : null,
    keysOnly: keys
      ? {
          quote: keys[0],
          keys: keys[1]
            .replace(/\([^)]*\)/g, " ")
            .split(/,\s*and\s+|,\s*|\s+and\s+/)
            .map((s) => s.trim())
            .filter(Boolean),
        }
      : null,
    yesNo: yn ? yn[0] : null,
    toolDependent: startUrls.length > 0 || hasToolNodes || TOOL_TASK_RE.test(prompt),
  };
}

/** Text of a node error (object with type/message, or a string); "" when empty. */
function errorText(e: unknown): { path: string; quote: string } | null {
  if (typeof e === "string") return e.trim() ? { path: "$.error", quote: e } : null;
  if (!isRec(e)) return null;
  if (typeof e.message === "string" && e.message.trim()) return { path: "$.error.message", quote: e.message };
  if (typeof e.type === "string" && e.type.trim()) return { path: "$.error.type", quote: e.type };
  const keys = Object.keys(e).filter((k) => e[k] !== null && e[k] !== undefined && e[k] !== "");
  return keys.length ? { path: "$.error", quote: JSON.stringify(e) } : null;
}

function contentError(c: Rec, base = "$.content"): { path: string; quote: string } | null {
  const e = c.error;
  if (typeof e === "string" && e.trim()) return { path: `${base}.error`, quote: e };
  if (isRec(e)) {
    if (typeof e.message === "string" && e.message.trim()) return { path: `${base}.error.message`, quote: e.message };
    if (typeof e.type === "string" && e.type.trim()) return { path: `${base}.error.type`, quote: e.type };
    if (Object.keys(e).length) return { path: `${base}.error`, quote: JSON.stringify(e) };
  }
  if (c.is_error === true) return { path: `${base}.is_error`, quote: "true" };
  if (c.isError === true) return { path: `${base}.isError`, quote: "true" };
  return null;
}

function normUrl(u: string): string {
  let s = u.trim();
  const hash = s.indexOf("#");
  if (hash >= 0) s = s.slice(0, hash);
  s = s.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?]*)/i, (_, a: string, b: string) => a.toLowerCase() + b.toLowerCase());
  return s.replace(/\/+$/, "");
}

/** url-like arguments of an action object: [{ path, url }] (own keys, then one level down). */
function urlsOf(obj: Rec, base: string): Array<{ path: string; url: string }> {
  const out: Array<{ path: string; url: string }> = [];
  for (const k of URL_KEYS) if (typeof obj[k] === "string" && (obj[k] as string).trim()) out.push({ path: `${base}.${k}`, url: obj[k] as string });
  if (!out.length) {
    for (const k in obj) {
      const v = obj[k];
      if (isRec(v)) for (const u of URL_KEYS) if (typeof v[u] === "string" && (v[u] as string).trim()) out.push({ path: `${base}.${k}.${u}`, url: v[u] as string });
    }
  }
  return out;
}

/** A decision expressed as an action object: content `{action, …}` or a JSON text leaf `{"action": …}`. */
function actionObject(node: BundleNode, leaves: Leaf[]): { obj: Rec; path: string; quotePath: string; quote: string } | null {
  const c = node.content;
  if (isRec(c) && typeof c.action === "string") return { obj: c, path: "$.content", quotePath: "$.content.action", quote: c.action };
  for (const l of leaves) {
    const t = l.text;
    let i = 0;
    while (i < t.length && (t.charCodeAt(i) === 32 || t.charCodeAt(i) === 10 || t.charCodeAt(i) === 9 || t.charCodeAt(i) === 13)) i++;
    if (t.charCodeAt(i) !== 123 /* { */ || t.length > 20_000 || !t.includes('"action"')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (isRec(v) && typeof v.action === "string") return { obj: v, path: l.path, quotePath: l.path, quote: l.text };
    } catch {
      /* not JSON */
    }
  }
  return null;
}

function withoutKeys(obj: Rec, drop: readonly string[]): Rec {
  const o: Rec = {};
  for (const [k, v] of Object.entries(obj)) if (!drop.includes(k)) o[k] = v;
  return o;
}

/** JSON.stringify replacer dropping the keys that change between identical observations. */
function dropVolatile(k: string, v: unknown): unknown {
  return VOLATILE_KEYS.has(k) ? undefined : v;
}

/** The answer of a final-style node: `{ path, value }` (value: string or JSON), or null. */
function answerOf(node: BundleNode, leaves: Leaf[]): { path: string; value: unknown } | null {
  const c = node.content;
  if (node.type === "final_result" && isRec(c)) {
    if (typeof c.action === "string") return { path: "$.content", value: c };
    for (const k of ["answer", "finalAnswer", "final", "output", "text", "response"]) {
      if (c[k] === undefined || c[k] === null) continue;
      if (typeof c[k] === "string") {
        const inner = finalMarker(c[k] as string);
        return { path: `$.content.${k}`, value: inner ?? c[k] };
      }
      return { path: `$.content.${k}`, value: c[k] };
    }
  }
  if (node.type === "final_result" && (typeof c === "string" || typeof c === "number")) return { path: "$.content", value: c };
  for (const l of leaves) {
    const inner = finalMarker(l.text);
    if (inner !== null) return { path: l.path, value: inner };
  }
  return null;
}

/** Text after "Final answer:" (to the end of that line) or inside \boxed{…}; null when absent. */
function finalMarker(s: string): string | null {
  const m = /\bfinal answer\s*[:：]\s*([^\n]*)/i.exec(s);
  if (m) return m[1].trim();
  const b = /\\boxed\{([^{}]*)\}/.exec(s);
  return b ? b[1].trim() : null;
}

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const t = v.trim();
  if (t[0] === "[" || t[0] === "{") {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return v;
    }
  }
  return v;
}

function quoteOf(v: unknown): string {
  return clip(typeof v === "string" ? v : JSON.stringify(v) ?? String(v), 300);
}

const MAIN_KEYS = new Set(["text", "body", "response", "output", "content", "html"]);

/** The main text of a node: its `text`/`body`/`response`/`output`/`content`/`html` string, else its only or longest string. */
function mainText(leaves: Leaf[]): Leaf | null {
  if (!leaves.length) return null;
  const named = leaves.find((l) => typeof l.key === "string" && MAIN_KEYS.has(l.key));
  if (named) return named;
  let best = leaves[0];
  for (const l of leaves) if (l.text.length > best.text.length) best = l;
  return best;
}

const isTaskNode = (n: BundleNode): boolean => {
  if (n.type !== "message") return false;
  const c = n.content;
  const role = isRec(c) && typeof c.role === "string" ? c.role.toLowerCase() : "";
  const agent = (n.agent ?? "").toLowerCase();
  return role === "user" || role === "human" || agent === "user" || agent === "human";
};

const isFailedStatus = (s: string): boolean => FAILED_STATUSES.has(s) || FAILED_STATUSES.has(s.toLowerCase());

const EMPTY_TEXT = leafText([]);
const EMPTY_HITS: Map<string, Evidence[]> = new Map();

interface Seen {
  pos: number;
  id: string;
  path: string;
  quote: string;
}

/**
 * Run every Table 10 rule on every node of the bundle, in observed order (Algorithm 3 without the
 * judge). Only nodes where a rule fired are returned.
 * @throws SymptomInputError when `order` or an edge names an unknown node (validate the bundle first)
 */
export function scanRules(bundle: ReplayBundle): RuleScan {
  const nodesById = new Map<string, BundleNode>();
  for (const n of bundle.graph.nodes) nodesById.set(n.id, n);
  const order = bundle.order;
  const n = order.length;
  const posOf = new Map<string, number>();
  const nodes: BundleNode[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const node = nodesById.get(order[i]);
    if (!node) throw new SymptomInputError(`order[${i}] = "${order[i]}" is not a node of bundle "${bundle.id}"; validate the bundle first`);
    nodes[i] = node;
    posOf.set(order[i], i);
  }
  // predecessors, CSR (data edges flagged)
  const edges = bundle.graph.edges;
  const indeg = new Int32Array(n + 1);
  const eFrom = new Int32Array(edges.length);
  const eTo = new Int32Array(edges.length);
  for (let k = 0; k < edges.length; k++) {
    const a = posOf.get(edges[k].from);
    const b = posOf.get(edges[k].to);
    if (a === undefined || b === undefined) throw new SymptomInputError(`graph.edges[${k}] (${edges[k].from} → ${edges[k].to}) names a node not in the observed order; validate the bundle first`);
    eFrom[k] = a;
    eTo[k] = b;
    indeg[b + 1]++;
  }
  for (let i = 0; i < n; i++) indeg[i + 1] += indeg[i];
  const fill = indeg.slice(0, n);
  const pred = new Int32Array(edges.length);
  const predData = new Uint8Array(edges.length);
  for (let k = 0; k < edges.length; k++) {
    const at = fill[eTo[k]]++;
    pred[at] = eFrom[k];
    predData[at] = edges[k].kind === "data" ? 1 : 0;
  }
  const isDataPred = (v: number, u: number): boolean => {
    for (let j = indeg[v]; j < indeg[v + 1]; j++) if (pred[j] === u && predData[j]) return true;
    return false;
  };
  // LLM boundary of each position (lib/replay/target.ts rule, one backward pass)
  const hasLlm = new Uint8Array(n);
  for (const r of bundle.records) if (r.boundary === "llm") {
    const p = posOf.get(r.nodeId);
    if (p !== undefined) hasLlm[p] = 1;
  }
  const nextLlm = new Int32Array(n + 1).fill(-1);
  for (let i = n - 1; i >= 0; i--) nextLlm[i] = hasLlm[i] ? i : nextLlm[i + 1];
  const replayable = nextLlm[0] >= 0;

  let hasToolNodes = false;
  for (const node of nodes) if (node.type === "tool_call" || node.type === "tool_result") { hasToolNodes = true; break; }
  const task = taskConstraints(bundle, hasToolNodes);

  // carried state
  const errSrc = new Int32Array(n).fill(-1); // nearest unresolved upstream failure (position)
  const lastOut = new Int32Array(n).fill(-1); // latest upstream tool_result (position)
  const toolOk = new Uint8Array(n); // a successful tool_result at or upstream
  const failed = new Uint8Array(n);
  const failEv: Evidence[] = new Array(n);
  const fpSeen = new Map<string, Seen>();
  const urlSeen = new Map<string, Seen>();
  const obsSeen = new Map<string, Seen>();
  let prevFinal: Seen | null = null;
  let advanced = false;

  const triggered: TriggeredNode[] = [];
  let hits: Map<string, Evidence[]> = EMPTY_HITS;
  // one closure for the whole pass (not one per node)
  const hit = (id: string, ev: Evidence[]) => {
    if (hits === EMPTY_HITS) hits = new Map();
    const cur = hits.get(id);
    if (cur) {
      if (cur.length < 3) cur.push(...ev.slice(0, 3 - cur.length));
    } else hits.set(id, ev.slice(0, 3));
  };
  for (let v = 0; v < n; v++) {
    const node = nodes[v];
    const type = node.type;
    hits = EMPTY_HITS;
    // incoming carried state
    let inErr = -1;
    let inOut = -1;
    let inOk = 0;
    for (let j = indeg[v]; j < indeg[v + 1]; j++) {
      const u = pred[j];
      if (errSrc[u] > inErr) inErr = errSrc[u];
      if (lastOut[u] > inOut) inOut = lastOut[u];
      inOk |= toolOk[u];
    }
    const c = node.content;
    const cr = isRec(c) ? c : null;
    const task0 = isTaskNode(node);
    const leaves = task0 ? [] : stringLeaves(c, "$.content");
    const lt = leaves.length ? leafText(leaves) : EMPTY_TEXT;

    // ---- C3: runtime-failure signal S(v) (F.6) ----
    const eNode = errorText(node.error);
    if (eNode) hit("C3.node-error", [eNode]);
    if (type === "tool_result" && cr) {
      const eTool = contentError(cr);
      if (eTool) hit("C3.tool-error", [eTool]);
    }
    if (typeof node.status === "string" && isFailedStatus(node.status)) hit("C3.failed-status", [{ path: "$.status", quote: node.status }]);
    else if (type === "tool_result" && cr && typeof cr.status === "string" && isFailedStatus(cr.status)) hit("C3.failed-status", [{ path: "$.content.status", quote: cr.status }]);
    const runtimeFailure: 0 | 1 = hits.size > 0 ? 1 : 0;
    let isFailed = runtimeFailure === 1;

    if (type === "tool_result") {
      if (cr) {
        for (const k of ["http_status", "status_code", "statusCode", "httpStatus"]) {
          const s = cr[k];
          if (typeof s === "number" && s >= 400) {
            hit("C3.http-error", [{ path: `$.content.${k}`, quote: String(s) }]);
            isFailed = true;
            break;
          }
        }
      }
      const m = firstMatch(lt, ERROR_TEXT_RE);
      if (m) {
        hit("C3.error-text", [{ path: m.path, quote: m.quote.trim() }]);
        isFailed = true;
      }
    }
    if (!task0 && type !== "tool_call") {
      const m = firstMatch(lt, INACCESSIBLE_RE);
      if (m) hit("C3.inaccessible-evidence", [m]);
    }
    // ---- C1: placeholder / skipped action (agent outputs) ----
    const agentOutput = type === "agent_action" || type === "llm_call" || type === "tool_call" || type === "final_result";
    if (agentOutput) {
      const m = firstMatch(lt, PLACEHOLDER_ENV_RE) ?? firstMatch(lt, PLACEHOLDER_RE);
      if (m) hit("C1.placeholder", [m]);
    }
    if (!task0 && (agentOutput || type === "message") && type !== "tool_call") {
      const m = firstMatch(lt, SKIPPED_RE);
      if (m) hit("C1.skipped-action", [m]);
    }

    // ---- actions: fingerprints, URLs, browser checks ----
    let fp: { key: string; path: string; quote: string } | null = null;
    let urls: Array<{ path: string; url: string }> = [];
    let browser = false;
    let browserPath = "";
    let browserQuote = "";
    if (type === "tool_call" && cr) {
      const t = isRec(cr.tool) ? (cr.tool as Rec) : null;
      const structured = typeof cr.tool === "string" || (t !== null && typeof t.name === "string") || (typeof cr.name === "string" && (cr.arguments !== undefined || cr.args !== undefined));
      if (structured) {
        const name = typeof cr.tool === "string" ? cr.tool : t && typeof t.name === "string" ? t.name : (cr.name as string);
        const namePath = typeof cr.tool === "string" ? "$.content.tool" : t ? "$.content.tool.name" : "$.content.name";
        const argsBase = cr.arguments !== undefined ? "$.content.arguments" : t && t.arguments !== undefined ? "$.content.tool.arguments" : "$.content.args";
        const args = parseMaybeJson(cr.arguments !== undefined ? cr.arguments : t ? t.arguments : cr.args);
        fp = { key: `T|${name}|${stableJson(args ?? null)}`, path: argsBase, quote: quoteOf(args ?? name) };
        urls = isRec(args) ? urlsOf(args, argsBase) : [];
        if (BROWSER_TOOL_RE.test(name)) {
          browser = true;
          browserPath = namePath;
          browserQuote = name;
        }
      } else {
        // a message that carries code for a tool (Who&When/MAD): its whole text is the call
        const txt = mainText(leaves);
        if (txt) fp = { key: `T|text|${txt.text.replace(/\s+/g, " ").trim()}`, path: txt.path, quote: clip(txt.text) };
      }
    } else if (type === "agent_action" || type === "llm_call" || type === "final_result") {
      const a = actionObject(node, leaves);
      if (a) {
        fp = { key: `A|${stableJson(withoutKeys(a.obj, ["reason", "thought", "rationale", "explanation"]))}`, path: a.quotePath, quote: a.quote };
        urls = urlsOf(a.obj, a.path === "$.content" ? "$.content" : a.path);
        if (a.path !== "$.content") urls = urls.map((u) => ({ path: a.path, url: u.url }));
        if (BROWSER_ACTIONS.has(a.obj.action as string)) {
          browser = true;
          browserPath = a.quotePath;
          browserQuote = a.quote;
        }
      } else if (type === "agent_action") {
        const txt = mainText(leaves);
        if (txt) {
          const norm = txt.text.replace(/\s+/g, " ").trim().toLowerCase();
          if (norm.length >= 40) fp = { key: `M|${node.agent ?? ""}|${norm}`, path: txt.path, quote: clip(txt.text) };
        }
      }
    }
    let repeatedFp = false;
    if (fp) {
      const s = fpSeen.get(fp.key);
      if (s && !isDataPred(v, s.pos)) {
        hit("C2.repeated-action", [{ path: fp.path, quote: fp.quote }, { nodeId: s.id, path: s.path, quote: s.quote }]);
        repeatedFp = true;
      }
      fpSeen.set(fp.key, { pos: v, id: node.id, path: fp.path, quote: fp.quote });
    }
    for (const u of urls) {
      const key = normUrl(u.url);
      const s = urlSeen.get(key);
      if (s && !repeatedFp && !isDataPred(v, s.pos)) hit("C2.repeated-url", [{ path: u.path, quote: u.url }, { nodeId: s.id, path: s.path, quote: s.quote }]);
      urlSeen.set(key, { pos: v, id: node.id, path: u.path, quote: u.url });
      if (/^\s*view-source:/i.test(u.url)) hit("C4.view-source-url", [{ path: u.path, quote: u.url }]);
    }
    if (browser && urls.length === 0) hit("C4.browser-no-url", [{ path: browserPath, quote: browserQuote }]);
    if (type === "tool_call" && fp && !repeatedFp) advanced = true;

    // ---- tool results: structured data vs HTML, repeated observations ----
    let repeatedObs = false;
    if (type === "tool_result") {
      let call: BundleNode | null = null;
      for (let j = indeg[v]; j < indeg[v + 1]; j++) if (predData[j] && nodes[pred[j]].type === "tool_call") call = nodes[pred[j]];
      const body = mainText(leaves);
      const ctype = !cr ? undefined : typeof cr.content_type === "string" ? cr.content_type : typeof cr.contentType === "string" ? cr.contentType : isRec(cr.headers) ? (cr.headers as Rec)["content-type"] : undefined;
      const htmlQuote = body && HTML_RE.test(body.text) ? { path: body.path, quote: clip(body.text.trimStart(), 40) } : typeof ctype === "string" && /text\/html/i.test(ctype) ? { path: "$.content.content_type", quote: ctype } : null;
      if (htmlQuote && call && isRec(call.content)) {
        const cc = call.content as Rec;
        const t = isRec(cc.tool) ? (cc.tool as Rec) : null;
        const name = typeof cc.tool === "string" ? cc.tool : typeof cc.name === "string" ? cc.name : t && typeof t.name === "string" ? t.name : "";
        const args = parseMaybeJson(cc.arguments ?? t?.arguments ?? cc.args);
        const callUrls = isRec(args) ? urlsOf(args, "$") : [];
        const wantsJson = STRUCTURED_TOOL_RE.test(name) || callUrls.some((u) => STRUCTURED_URL_RE.test(u.url)) || (isRec(args) && typeof args.format === "string" && /json/i.test(args.format));
        if (wantsJson) hit("C4.html-for-structured", [htmlQuote, { nodeId: call.id, path: "$.content", quote: quoteOf(callUrls[0]?.url ?? name) }]);
      }
      if (cr || typeof c === "string") {
        const key = JSON.stringify(c, dropVolatile) ?? "";
        if (key.length >= 40) {
          const s = obsSeen.get(key);
          const first = body ?? { path: "$.content", text: key };
          if (s) {
            hit("C2.no-new-evidence", [{ path: first.path, quote: clip(first.text) }, { nodeId: s.id, path: s.path, quote: s.quote }]);
            repeatedObs = true;
          } else obsSeen.set(key, { pos: v, id: node.id, path: first.path, quote: clip(first.text) });
        }
      }
      if (!isFailed && !repeatedObs) advanced = true;
    }

    // ---- final-style outputs ----
    const finalStyle = !task0 && (type === "final_result" || ((type === "agent_action" || type === "llm_call") && FINAL_RE.test(lt.text)));
    if (finalStyle) {
      const ans = answerOf(node, leaves);
      const ansEv: Evidence = ans ? { path: ans.path, quote: quoteOf(ans.value) } : { path: "$.content", quote: quoteOf(c) };
      if (type === "final_result" && ans) {
        const val = parseMaybeJson(ans.value);
        if (isRec(val) && typeof val.action === "string" && ACTION_VERBS.has(val.action.toLowerCase())) hit("C1.unresolved-request", [{ path: ans.path === "$.content" ? "$.content.action" : ans.path, quote: ans.path === "$.content" ? val.action : quoteOf(ans.value) }]);
        else if (typeof ans.value === "string" && REQUEST_OPENING_RE.test(ans.value)) hit("C1.unresolved-request", [{ path: ans.path, quote: quoteOf(ans.value) }]);
      }
      if (ans) {
        const val = parseMaybeJson(ans.value);
        if (task.numberOnly && !(typeof val === "number" || (typeof val === "string" && NUMBER_RE.test(val)))) hit("C1.format", [ansEv]);
        else if (task.keysOnly) {
          const want = task.keysOnly.keys.slice().sort().join(",");
          const list = Array.isArray(val) ? val : isRec(val) ? [val] : null;
          const ok = list !== null && list.length > 0 && list.every((x) => isRec(x) && Object.keys(x).sort().join(",") === want);
          if (!ok) hit("C1.format", [ansEv]);
        } else if (task.yesNo && !(typeof val === "string" && /^\s*(?:yes|no)\b/i.test(val))) hit("C1.format", [ansEv]);
      }
      if (inErr >= 0) hit("C3.unresolved-upstream-error", [ansEv, failEv[inErr]]);
      if (inOut >= 0 && failed[inOut]) hit("C4.completion-after-failure", [ansEv, failEv[inOut]]);
      if (task.toolDependent && !inOk && ans && ans.value !== "") hit("C4.answer-without-tool-evidence", [ansEv]);
      if (prevFinal && !advanced && !isDataPred(v, prevFinal.pos)) hit("C2.final-without-progress", [ansEv, { nodeId: prevFinal.id, path: prevFinal.path, quote: prevFinal.quote }]);
      prevFinal = { pos: v, id: node.id, path: ansEv.path, quote: ansEv.quote };
      advanced = false;
    }

    // ---- carried state out ----
    if (isFailed) {
      failed[v] = 1;
      const first = hits.get("C3.node-error") ?? hits.get("C3.tool-error") ?? hits.get("C3.failed-status") ?? hits.get("C3.http-error") ?? hits.get("C3.error-text");
      failEv[v] = { nodeId: node.id, ...(first ? first[0] : { path: "$", quote: node.id }) };
    }
    errSrc[v] = isFailed ? v : type === "tool_result" ? -1 : inErr;
    lastOut[v] = type === "tool_result" ? v : inOut;
    toolOk[v] = inOk | (type === "tool_result" && !isFailed ? 1 : 0);

    if (hits.size) {
      const rules: RuleHit[] = [];
      for (const r of RULES) {
        const ev = hits.get(r.id);
        if (ev) rules.push({ id: r.id, category: r.category, tier: r.tier, evidence: ev });
      }
      const cats = CATEGORIES.filter((k) => rules.some((r) => r.category === k));
      triggered.push({ node, position: v, rules, triggered: cats, runtimeFailure, boundary: nextLlm[v] >= 0 ? nodes[nextLlm[v]].id : null });
    }
  }
  return { bundleId: bundle.id, nodeCount: n, replayable, triggered };
}

/**
 * Features, scores and the anchor (eq. 21–34, Algorithm 4) for the triggered nodes of a scan.
 * @param verdicts judge verdicts by node id (absent = rules only: L_v = L_v^r and c̃_LLM = c_r)
 * @param judge "none" or the judge model id
 */
export function finalizeDetection(scan: RuleScan, verdicts: ReadonlyMap<string, JudgeVerdict> | null = null, judge = "none"): DetectionResult {
  const n = scan.nodeCount;
  const out: NodeSymptoms[] = [];
  let anchor: string | null = null;
  let anchorNode: string | null = null;
  for (const t of scan.triggered) {
    const v = verdicts?.get(t.node.id);
    const confirmed = v ? t.triggered.filter((k) => v.confirmed.includes(k)) : t.triggered.slice();
    let cl = 0;
    let crr = 0;
    let local = false;
    for (const r of t.rules) {
      if (!confirmed.includes(r.category)) continue;
      const conf = TIER_CONFIDENCE[r.tier];
      if (conf > crr) crr = conf;
      if (r.tier !== "propagated") {
        local = true;
        if (conf > cl) cl = conf;
      }
    }
    const features: NodeFeatures = {
      cl,
      cr: crr,
      Ip: confirmed.length > 0 && !local ? 1 : 0,
      rho: n > 1 ? t.position / (n - 1) : 0,
      Ia: t.node.type === "agent_action" || t.node.type === "tool_call" ? 1 : 0,
      If: t.node.type === "final_result" ? 1 : 0,
      eta: eta(t.node.type),
    };
    const cLLM = v ? Math.min(1, Math.max(0, v.confidence)) : crr;
    const scores = confirmed.length ? scoreNode(features, confirmed, cLLM) : { Sr: 0, Ss: 0, cMix: 0, cf: 0 };
    const eligible = confirmed.length > 0 && scores.cf >= THETA;
    out.push({ id: t.node.id, type: t.node.type, position: t.position, rules: t.rules, triggered: t.triggered, categories: confirmed, runtimeFailure: t.runtimeFailure, features, cLLM, ...scores, eligible, boundary: t.boundary });
    if (eligible && anchorNode === null) {
      if (!scan.replayable) anchorNode = t.node.id;
      else if (t.boundary) {
        anchor = t.boundary;
        anchorNode = t.node.id;
      }
    }
  }
  return { bundleId: scan.bundleId, threshold: THETA, judge, mode: verdicts ? "rules + judge" : "rules only", anchor, anchorNode, replayable: scan.replayable, nodes: out, nodeCount: n };
}

/**
 * Rules-only detection (no judge): Table 10 rules, S(v), features, S_r/S_s/c_mix/c_f and the anchor.
 * c̃_LLM(v) is c_r(v) (README §"Without a judge"). Deterministic; O(nodes + edges + content).
 * @throws SymptomInputError for a bundle whose order/edges name unknown nodes
 */
export function detectSymptoms(bundle: ReplayBundle): DetectionResult {
  return finalizeDetection(scanRules(bundle));
}

/** Rule info (category, tier, Table 10 clause) of a rule id, or undefined. */
export function ruleInfo(id: string) {
  return RULE_BY_ID.get(id);
}
