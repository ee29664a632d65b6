/**
 * Canonical renaming of client-invented ids (issue 21 item 5).
 *
 * Frameworks put ids in their requests that they generate fresh every run: LangGraph's
 * `langgraph-supervisor` writes a hand-back AI message with a new uuid tool-call id
 * (`/messages/5/tool_calls/0/id`) and its tool message (`tool_call_id`); SDKs invent tool-call ids
 * when a provider gives none. Ids a *recorded response* produced (tool-call ids, response ids,
 * Anthropic `tool_use` ids, Responses `call_id`s) are served as recorded on replay and so come
 * back identical; those are kept verbatim, so the link between a response and the request that
 * uses it is still verified. Every other string under an id key (`id`, `tool_call_id`, `call_id`,
 * `tool_use_id`) is renamed to `symtrace:id:<n>`, n = order of first occurrence in the request
 * (document order; the same id twice gets the same name, so a tool call and its result stay
 * paired). Both sides — the recorded request and the replayed one — are renamed the same way
 * before hashing.
 *
 * If no recorded request contains an invented id, renaming cannot make any request match that
 * did not match before (the renamed request would contain `symtrace:id:0`, which no record does),
 * so the replayer skips it entirely (`needsRenaming`): zero cost for existing bundles.
 *
 * Pure.
 */
import type { BoundaryRecord } from "../bundle";
import { escapeToken, type MaskedValue } from "./masks";

/** Keys whose string values are ids. */
export const ID_KEYS: ReadonlySet<string> = new Set(["id", "tool_call_id", "call_id", "tool_use_id"]);

const PREFIX = "symtrace:id:";

function collect(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) {
    for (const x of v) collect(x, out);
  } else if (typeof v === "object" && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === "string") {
        if (ID_KEYS.has(k)) out.add(x);
      } else collect(x, out);
    }
  }
}

/**
 * Every id a recorded response produced: strings under an id key anywhere in the responses
 * (for a recorded stream `{ stream: true, events }`, in each event's JSON `data`).
 */
export function producedIds(records: readonly BoundaryRecord[]): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    const res = r.response as { stream?: unknown; events?: unknown } | null;
    if (res && res.stream === true && Array.isArray(res.events)) {
      for (const e of res.events as { data?: unknown }[]) {
        if (typeof e?.data !== "string" || e.data[0] !== "{") continue;
        try {
          collect(JSON.parse(e.data), out);
        } catch {
          /* not JSON: no ids */
        }
      }
    } else collect(res, out);
  }
  return out;
}

/** True when the request has a string under an id key that is not in `produced`. */
export function hasInventedIds(request: unknown, produced: ReadonlySet<string>): boolean {
  if (Array.isArray(request)) return request.some((x) => hasInventedIds(x, produced));
  if (typeof request === "object" && request !== null) {
    for (const [k, x] of Object.entries(request)) {
      if (typeof x === "string") {
        if (ID_KEYS.has(k) && !produced.has(x)) return true;
      } else if (hasInventedIds(x, produced)) return true;
    }
  }
  return false;
}

/**
 * The names `renameInventedIds` gives the request's invented ids (strings under an id key that are
 * not in `produced`): id -> `symtrace:id:<n>`, in order of first occurrence (its traversal: arrays
 * by index, objects by key order, depth first). Read-only: with lib/bundle `hashJsonReplacing`
 * (keys `ID_KEYS`) it hashes the renamed request without copying it; its keys in order, with the
 * request's content, determine the renamed request (match-cache.ts keys on them).
 * @param hits when given, one entry per renamed value, as `renameInventedIds` appends them
 */
export function renamingOf(request: unknown, produced: ReadonlySet<string>, hits: MaskedValue[] | null = null): Map<string, string> {
  const names = new Map<string, string>();
  if (typeof request === "object" && request !== null) nameIds(request, produced, names, hits, "");
  return names;
}

/** renamingOf's walk (a plain function: it runs for every replayed request); `ptr` = the RFC 6901 pointer of `v`. */
function nameIds(v: object, produced: ReadonlySet<string>, names: Map<string, string>, hits: MaskedValue[] | null, ptr: string): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === "object" && x !== null) nameIds(x, produced, names, hits, hits ? `${ptr}/${i}` : ptr);
    }
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === "string") {
      if (ID_KEYS.has(k) && !produced.has(x)) {
        let name = names.get(x);
        if (name === undefined) names.set(x, (name = `${PREFIX}${names.size}`));
        if (hits) hits.push({ pointer: `${ptr}/${escapeToken(k)}`, rule: "rename", from: x, to: name });
      }
    } else if (typeof x === "object" && x !== null) nameIds(x, produced, names, hits, hits ? `${ptr}/${escapeToken(k)}` : ptr);
  }
}

/**
 * Rename the invented ids of one request (copy on write).
 * @param hits when given, every renamed value is appended (`rule: "rename"`)
 * @returns the renamed request, or `request` itself when it has no invented id
 */
export function renameInventedIds(request: unknown, produced: ReadonlySet<string>, hits: MaskedValue[] | null = null): unknown {
  const names = new Map<string, string>();
  // The path is kept as a stack and joined only on a hit (cheap when hits are collected).
  const path: (string | number)[] = [];
  const pointer = () => path.map((t) => `/${typeof t === "number" ? t : escapeToken(t)}`).join("");
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x !== "object" || x === null) continue;
        path.push(i);
        const n = walk(x);
        path.pop();
        if (n !== x) (copy ??= v.slice())[i] = n;
      }
      return copy ?? v;
    }
    if (typeof v === "object" && v !== null) {
      let copy: Record<string, unknown> | null = null;
      const o = v as Record<string, unknown>;
      for (const k in o) {
        const x = o[k];
        let n: unknown = x;
        if (typeof x === "string") {
          if (ID_KEYS.has(k) && !produced.has(x)) {
            let name = names.get(x);
            if (name === undefined) names.set(x, (name = `${PREFIX}${names.size}`));
            n = name;
            if (hits) {
              path.push(k);
              hits.push({ pointer: pointer(), rule: "rename", from: x, to: name });
              path.pop();
            }
          }
        } else if (typeof x === "object" && x !== null) {
          path.push(k);
          n = walk(x);
          path.pop();
        }
        if (n !== x) (copy ??= { ...o })[k] = n;
      }
      return copy ?? v;
    }
    return v;
  };
  return walk(request);
}
