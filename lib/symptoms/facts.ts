/**
 * What the Table 10 rules read of one node (Algorithm 3 line 3, the diagnostic view): pure
 * helpers that derive a node's error text, action fingerprint, URLs, answer and main text, and
 * the task's stated output constraints. No state: the scan (scan.ts) carries state between nodes.
 */
import type { BundleNode, ReplayBundle } from "../bundle";
import {
  BROWSER_ACTIONS,
  BROWSER_TOOL_RE,
  FAILURE_STATUS_WORDS,
  KEYS_ONLY_TASK_RE,
  NUMBER_ONLY_TASK_RE,
  TOOL_TASK_RE,
  URL_KEYS,
  YES_NO_TASK_RE,
} from "./patterns";
import type { Evidence } from "./types";
import { clip, isRec, stableJson, type Leaf } from "./view";

export type Rec = Record<string, unknown>;

/** The task's output constraints, read from `task.prompt` (rule C1.format) and whether it needs tools (C4.answer-without-tool-evidence). */
export interface TaskConstraints {
  numberOnly: string | null;
  keysOnly: { quote: string; keys: string[] } | null;
  yesNo: string | null;
  toolDependent: boolean;
}

/** Constraints of the bundle's task; `hasToolNodes` = the trace has a tool_call or tool_result node. */
export function taskConstraints(bundle: ReplayBundle, hasToolNodes: boolean): TaskConstraints {
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

/** Text of a node error (object with type/message, or a string) as evidence; null when empty. */
export function errorText(e: unknown): Evidence | null {
  if (typeof e === "string") return e.trim() ? { path: "$.error", quote: e } : null;
  if (!isRec(e)) return null;
  if (typeof e.message === "string" && e.message.trim()) return { path: "$.error.message", quote: e.message };
  if (typeof e.type === "string" && e.type.trim()) return { path: "$.error.type", quote: e.type };
  const keys = Object.keys(e).filter((k) => e[k] !== null && e[k] !== undefined && e[k] !== "");
  return keys.length ? { path: "$.error", quote: JSON.stringify(e) } : null;
}

/** A tool result's own error (`error`, `is_error`, `isError` in its content) as evidence; null when none. */
export function contentError(c: Rec, base = "$.content"): Evidence | null {
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

/** True for a failure status word (failed, error, timeout, …; any case). */
export const isFailureStatus = (s: string): boolean => FAILURE_STATUS_WORDS.has(s) || FAILURE_STATUS_WORDS.has(s.toLowerCase());

/** A URL for comparison: scheme and host lower-cased, fragment and trailing slashes dropped. */
export function normUrl(u: string): string {
  let s = u.trim();
  const hash = s.indexOf("#");
  if (hash >= 0) s = s.slice(0, hash);
  s = s.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?]*)/i, (_, a: string, b: string) => a.toLowerCase() + b.toLowerCase());
  return s.replace(/\/+$/, "");
}

/** url-like arguments of an action object: [{ path, url }] (own keys, then one level down). */
export function urlsOf(obj: Rec, base: string): Array<{ path: string; url: string }> {
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

/** A node's action as the C2/C4 rules see it. */
export interface NodeAction {
  /** Normalized action fingerprint (rule C2.repeated-action), with the evidence it is quoted by; null when the node takes no action. */
  fp: { key: string; path: string; quote: string } | null;
  /** URL arguments of the action. */
  urls: Array<{ path: string; url: string }>;
  /** The action is a browser action (a browse/navigate tool or `{action: browse|goto|…}`), quoted at `browser`. */
  browser: Evidence | null;
}

const NO_ACTION: NodeAction = { fp: null, urls: [], browser: null };

/** The action of a tool_call, agent_action, llm_call or final_result node (README §C2 fingerprints). */
export function nodeAction(node: BundleNode, leaves: Leaf[]): NodeAction {
  const type = node.type;
  const cr = isRec(node.content) ? node.content : null;
  if (type === "tool_call" && cr) {
    const t = isRec(cr.tool) ? (cr.tool as Rec) : null;
    const structured = typeof cr.tool === "string" || (t !== null && typeof t.name === "string") || (typeof cr.name === "string" && (cr.arguments !== undefined || cr.args !== undefined));
    if (structured) {
      const name = typeof cr.tool === "string" ? cr.tool : t && typeof t.name === "string" ? t.name : (cr.name as string);
      const namePath = typeof cr.tool === "string" ? "$.content.tool" : t ? "$.content.tool.name" : "$.content.name";
      const argsBase = cr.arguments !== undefined ? "$.content.arguments" : t && t.arguments !== undefined ? "$.content.tool.arguments" : "$.content.args";
      const args = parseMaybeJson(cr.arguments !== undefined ? cr.arguments : t ? t.arguments : cr.args);
      return {
        fp: { key: `T|${name}|${stableJson(args ?? null)}`, path: argsBase, quote: quoteOf(args ?? name) },
        urls: isRec(args) ? urlsOf(args, argsBase) : [],
        browser: BROWSER_TOOL_RE.test(name) ? { path: namePath, quote: name } : null,
      };
    }
    // a message that carries code for a tool (Who&When/MAD): its whole text is the call
    const txt = mainText(leaves);
    return txt ? { fp: { key: `T|text|${txt.text.replace(/\s+/g, " ").trim()}`, path: txt.path, quote: clip(txt.text) }, urls: [], browser: null } : NO_ACTION;
  }
  if (type === "agent_action" || type === "llm_call" || type === "final_result") {
    const a = actionObject(node, leaves);
    if (a) {
      let urls = urlsOf(a.obj, a.path === "$.content" ? "$.content" : a.path);
      if (a.path !== "$.content") urls = urls.map((u) => ({ path: a.path, url: u.url }));
      return {
        fp: { key: `A|${stableJson(withoutKeys(a.obj, ["reason", "thought", "rationale", "explanation"]))}`, path: a.quotePath, quote: a.quote },
        urls,
        browser: BROWSER_ACTIONS.has(a.obj.action as string) ? { path: a.quotePath, quote: a.quote } : null,
      };
    }
    if (type === "agent_action") {
      const txt = mainText(leaves);
      if (txt) {
        const norm = txt.text.replace(/\s+/g, " ").trim().toLowerCase();
        if (norm.length >= 40) return { fp: { key: `M|${node.agent ?? ""}|${norm}`, path: txt.path, quote: clip(txt.text) }, urls: [], browser: null };
      }
    }
  }
  return NO_ACTION;
}

/** The answer of a final-style node: `{ path, value }` (value: string or JSON), or null. */
export function answerOf(node: BundleNode, leaves: Leaf[]): { path: string; value: unknown } | null {
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

/** A string that holds a JSON array or object, parsed; anything else unchanged. */
export function parseMaybeJson(v: unknown): unknown {
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

/** An exact quote of a value: the string itself or its JSON text, clipped to 300 characters. */
export function quoteOf(v: unknown): string {
  return clip(typeof v === "string" ? v : JSON.stringify(v) ?? String(v), 300);
}

const MAIN_KEYS = new Set(["text", "body", "response", "output", "content", "html"]);

/** The main text of a node: its `text`/`body`/`response`/`output`/`content`/`html` string, else its longest string. */
export function mainText(leaves: Leaf[]): Leaf | null {
  if (!leaves.length) return null;
  const named = leaves.find((l) => typeof l.key === "string" && MAIN_KEYS.has(l.key));
  if (named) return named;
  let best = leaves[0];
  for (const l of leaves) if (l.text.length > best.text.length) best = l;
  return best;
}

/** The task message: a `message` node of role/agent user or human (the text rules skip it). */
export function isTaskNode(n: BundleNode): boolean {
  if (n.type !== "message") return false;
  const c = n.content;
  const role = isRec(c) && typeof c.role === "string" ? c.role.toLowerCase() : "";
  const agent = (n.agent ?? "").toLowerCase();
  return role === "user" || role === "human" || agent === "user" || agent === "human";
}
