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
 * in canonical order (RFC 8785: keys sorted, arrays by index; the same id twice gets the same name,
 * so a tool call and its result stay paired). Canonical, not document, order: two requests that
 * differ only in key order and in their invented ids are renamed alike, as their hashes ignore key
 * order too (issue 25 item 5: it also lets the record side be memoized by content). Both sides — the recorded request and the replayed one — are renamed the same way
 * before hashing.
 *
 * If no recorded request contains an invented id, renaming cannot make any request match that
 * did not match before (the renamed request would contain `symtrace:id:0`, which no record does),
 * so the replayer skips it entirely (`needsRenaming`): zero cost for existing bundles.
 *
 * Pure.
 */
import type { BoundaryRecord, StringReplacement } from "../bundle";
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

/** RFC 6901 pointer of `key` in the object at `path`. */
function pointerOf(path: readonly (string | number)[], key: string): string {
  let out = "";
  for (const t of path) out += `/${typeof t === "number" ? t : escapeToken(t)}`;
  return `${out}/${escapeToken(key)}`;
}

/**
 * The renaming of one request's invented ids as lib/bundle `hashJsonReplacing` applies it while
 * hashing (no copy of the request): each string under an id key (`ID_KEYS`) that is not in
 * `produced` becomes `symtrace:id:<n>`, n = order of first occurrence in canonical order (RFC 8785:
 * object keys sorted, arrays by index, depth first), so the names follow from the request's content
 * alone, not from the key order it was built or parsed in. `renameInventedIds` names the same way.
 */
export class CanonicalRenaming implements StringReplacement {
  readonly keys = ID_KEYS;
  /** invented id -> its name, in naming order. */
  readonly names = new Map<string, string>();
  private readonly hitsAtStart: number;

  /**
   * @param produced ids recorded responses produced (kept verbatim)
   * @param hits when given, one entry per renamed value is appended (`rule: "rename"`)
   */
  constructor(
    private readonly produced: ReadonlySet<string>,
    private readonly hits: MaskedValue[] | null = null,
  ) {
    this.hitsAtStart = hits ? hits.length : 0;
  }

  replace(value: string, key: string, path: readonly (string | number)[]): string {
    if (this.produced.has(value)) return value;
    let name = this.names.get(value);
    if (name === undefined) this.names.set(value, (name = `${PREFIX}${this.names.size}`));
    if (this.hits) this.hits.push({ pointer: pointerOf(path, key), rule: "rename", from: value, to: name });
    return name;
  }

  restart(): void {
    this.names.clear();
    if (this.hits) this.hits.length = this.hitsAtStart;
  }
}

/**
 * Rename the invented ids of one request (copy on write), naming them as {@link CanonicalRenaming}
 * does (canonical order).
 * @param hits when given, every renamed value is appended (`rule: "rename"`), in canonical order
 * @returns the renamed request, or `request` itself when it has no invented id
 */
export function renameInventedIds(request: unknown, produced: ReadonlySet<string>, hits: MaskedValue[] | null = null): unknown {
  const renaming = new CanonicalRenaming(produced, hits);
  const path: (string | number)[] = [];
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
      for (const k of Object.keys(o).sort()) {
        const x = o[k];
        let n: unknown = x;
        if (typeof x === "string") {
          if (ID_KEYS.has(k)) n = renaming.replace(x, k, path);
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
