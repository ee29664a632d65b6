/**
 * User-declared request masks (issue 21 item 5): values a MAS puts in its requests that change
 * every run by design (a timestamp in a prompt, a run id) and that the user declares irrelevant
 * for matching. Stored in the bundle as `config.replay.masks`, a list of
 *
 *   { "pointer": "/messages/0/content" }                      the value there is masked
 *   { "pointer": "/messages/*\/content", "pattern": "\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z" }
 *                                                             regex matches in strings there
 *   { "pattern": "run-[0-9a-f]{8}", "flags": "i" }            regex matches in any string
 *   … "boundary": "llm" | "tool"                              (optional) only that boundary
 *
 * `pointer` is an RFC 6901 JSON pointer into the normalized request; one extension: a segment
 * `*` stands for every array index / object key. A masked value becomes the string `"<masked>"`,
 * a regex match the text `<masked>`; both sides (the recorded request and the replayed one) are
 * masked the same way before hashing, so a mask relaxes exactly what it names and nothing else.
 * Masks never touch the stored records (the bundle keeps the requests as recorded).
 *
 * Pure. Errors name the bundle path (`config.replay.masks[2].pattern: ...`).
 */

/** A mask as stored in `config.replay.masks[i]`. */
export interface ReplayMask {
  pointer?: string;
  pattern?: string;
  /** RegExp flags among `i`, `m`, `s`, `u` (`g` is implied). */
  flags?: string;
  boundary?: "llm" | "tool";
}

/** A validated, compiled mask. */
export interface CompiledMask {
  index: number;
  source: ReplayMask;
  /** Pointer segments (unescaped), null = the whole request. */
  segments: string[] | null;
  regex: RegExp | null;
  boundary: "llm" | "tool" | null;
}

/** One application of a mask or of the id renaming to a request. */
export interface MaskedValue {
  /** Concrete RFC 6901 pointer of the value changed. */
  pointer: string;
  /** `mask[i]` (config.replay.masks[i]) or `rename` (a client-invented id). */
  rule: string;
  /** The value before (a string; for a pointer mask of a non-string, its JSON). */
  from: string;
  /** The value after. */
  to: string;
}

/** Thrown for a malformed `config.replay.masks`. */
export class MaskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MaskError";
  }
}

export const MASKED = "<masked>";
const KEYS = new Set(["pointer", "pattern", "flags", "boundary"]);

/** Unescape one RFC 6901 reference token. */
function unescapeToken(t: string): string {
  return t.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Escape one RFC 6901 reference token. */
export function escapeToken(t: string): string {
  if (!t.includes("~") && !t.includes("/")) return t;
  return t.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Validate and compile `config.replay.masks`.
 * @param value the stored value (undefined/null = no masks)
 * @param where the bundle path used in errors (default `config.replay.masks`)
 * @returns the compiled masks (empty when none)
 * @throws MaskError naming the path: not an array, an entry that is not an object, an unknown key,
 *   neither pointer nor pattern, a pointer not starting with "/" or with a bad "~" escape, an
 *   invalid regular expression, a pattern that matches the empty string, bad flags, a bad boundary
 */
export function compileMasks(value: unknown, where = "config.replay.masks"): CompiledMask[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new MaskError(`${where}: must be an array of masks ({ pointer?, pattern?, flags?, boundary? }), got ${typeof value}`);
  return value.map((m, i) => {
    const at = `${where}[${i}]`;
    if (typeof m !== "object" || m === null || Array.isArray(m)) throw new MaskError(`${at}: must be an object { pointer?, pattern?, flags?, boundary? }`);
    const o = m as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!KEYS.has(k)) throw new MaskError(`${at}.${k}: unknown mask key (known: pointer, pattern, flags, boundary)`);
    if (o.pointer === undefined && o.pattern === undefined) throw new MaskError(`${at}: give a pointer, a pattern, or both`);
    let segments: string[] | null = null;
    if (o.pointer !== undefined) {
      if (typeof o.pointer !== "string") throw new MaskError(`${at}.pointer: must be a string (an RFC 6901 JSON pointer such as "/messages/0/content")`);
      if (o.pointer !== "" && !o.pointer.startsWith("/")) throw new MaskError(`${at}.pointer: "${o.pointer}" is not a JSON pointer (it must start with "/")`);
      if (/~(?![01])/.test(o.pointer)) throw new MaskError(`${at}.pointer: "${o.pointer}" has a "~" not followed by 0 or 1 (RFC 6901 escapes are ~0 and ~1)`);
      segments = o.pointer === "" ? [] : o.pointer.slice(1).split("/").map(unescapeToken);
    }
    let regex: RegExp | null = null;
    if (o.flags !== undefined && (typeof o.flags !== "string" || !/^[imsu]*$/.test(o.flags))) throw new MaskError(`${at}.flags: must be a string of RegExp flags among i, m, s, u`);
    if (o.pattern !== undefined) {
      if (typeof o.pattern !== "string" || o.pattern === "") throw new MaskError(`${at}.pattern: must be a non-empty regular expression string`);
      try {
        regex = new RegExp(o.pattern, `g${(o.flags as string | undefined) ?? ""}`);
      } catch (e) {
        throw new MaskError(`${at}.pattern: invalid regular expression: ${(e as Error).message}`);
      }
      if (new RegExp(`^(?:${o.pattern})$`, (o.flags as string | undefined) ?? "").test("")) throw new MaskError(`${at}.pattern: /${o.pattern}/ matches the empty string, so it would mask nothing meaningful`);
    } else if (o.flags !== undefined) throw new MaskError(`${at}.flags: flags need a pattern`);
    if (o.boundary !== undefined && o.boundary !== "llm" && o.boundary !== "tool") throw new MaskError(`${at}.boundary: must be "llm" or "tool"`);
    return { index: i, source: o as ReplayMask, segments, regex, boundary: (o.boundary as "llm" | "tool" | undefined) ?? null };
  });
}

/** Replace regex matches in every string under `v`; returns the new value (the same one when unchanged). */
function maskStrings(v: unknown, re: RegExp, ptr: string, rule: string, hits: MaskedValue[] | null): unknown {
  if (typeof v === "string") {
    re.lastIndex = 0;
    if (!re.test(v)) return v;
    re.lastIndex = 0;
    const out = v.replace(re, MASKED);
    if (hits) hits.push({ pointer: ptr, rule, from: v, to: out });
    return out;
  }
  if (Array.isArray(v)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const n = maskStrings(v[i], re, `${ptr}/${i}`, rule, hits);
      if (n !== v[i]) (copy ??= v.slice())[i] = n;
    }
    return copy ?? v;
  }
  if (typeof v === "object" && v !== null) {
    let copy: Record<string, unknown> | null = null;
    for (const [k, x] of Object.entries(v)) {
      const n = maskStrings(x, re, `${ptr}/${escapeToken(k)}`, rule, hits);
      if (n !== x) (copy ??= { ...(v as Record<string, unknown>) })[k] = n;
    }
    return copy ?? v;
  }
  return v;
}

/** Apply one mask at segments[d..] under v (copy on write). */
function applyAt(v: unknown, m: CompiledMask, segs: string[], d: number, ptr: string, hits: MaskedValue[] | null): unknown {
  const rule = `mask[${m.index}]`;
  if (d === segs.length) {
    if (m.regex) return maskStrings(v, m.regex, ptr, rule, hits);
    if (v === MASKED) return v;
    if (hits) hits.push({ pointer: ptr, rule, from: typeof v === "string" ? v : JSON.stringify(v), to: MASKED });
    return MASKED;
  }
  const seg = segs[d];
  if (Array.isArray(v)) {
    const idx = seg === "*" ? v.map((_, i) => i) : /^(0|[1-9]\d*)$/.test(seg) && Number(seg) < v.length ? [Number(seg)] : [];
    let copy: unknown[] | null = null;
    for (const i of idx) {
      const n = applyAt(v[i], m, segs, d + 1, `${ptr}/${i}`, hits);
      if (n !== v[i]) (copy ??= v.slice())[i] = n;
    }
    return copy ?? v;
  }
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    const keys = seg === "*" ? Object.keys(o) : Object.prototype.hasOwnProperty.call(o, seg) ? [seg] : [];
    let copy: Record<string, unknown> | null = null;
    for (const k of keys) {
      const n = applyAt(o[k], m, segs, d + 1, `${ptr}/${escapeToken(k)}`, hits);
      if (n !== o[k]) (copy ??= { ...o })[k] = n;
    }
    return copy ?? v;
  }
  return v;
}

/**
 * Apply the masks that concern `boundary` to a (normalized) request.
 * @param hits when given, every change is appended (pointer, rule, before, after)
 * @returns a new value where something was masked (copy on write), else `request` itself
 */
export function applyMasks(request: unknown, masks: readonly CompiledMask[], boundary: "llm" | "tool", hits: MaskedValue[] | null = null): unknown {
  let v = request;
  for (const m of masks) {
    if (m.boundary && m.boundary !== boundary) continue;
    v = applyAt(v, m, m.segments ?? [], 0, "", hits);
  }
  return v;
}
