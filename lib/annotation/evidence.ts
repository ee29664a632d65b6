/**
 * Evidence quotes: the one matching rule used when a quote is taken in the browser (node panel),
 * when an annotation is submitted or finalized (lib/db/annotations.ts via validateForSubmit) and
 * when annotations are imported. Pure: no React, Next.js or database.
 *
 * The rule (also shown next to the "Quote selection as evidence" button, QUOTE_RULE_HELP):
 * 1. A quote is text from ONE value of the node's content: a string, or a number/boolean as its
 *    JSON text. Key names, JSON quotes, colons, commas and brackets are never part of a quote,
 *    and a quote cannot run from one value into the next.
 * 2. Both the quote and each value are normalized the same way before comparing:
 *    Unicode NFC (a composed "é" U+00E9 equals "e" + U+0301); CRLF and CR become LF; no-break
 *    spaces (U+00A0, U+2007, U+202F) become a space; then every run of whitespace (spaces, tabs,
 *    line breaks) becomes one space, and leading/trailing whitespace is dropped.
 * 3. After normalization the quote must be a substring of the value. Case and every other
 *    character (punctuation inside the value, quotes, zero-width characters) must match exactly.
 * 4. A node cannot carry the same quote twice: two evidence items with the same node id and the
 *    same normalized quote are duplicates.
 */

/** Every string (and number or boolean, as its JSON text) inside a JSON value, in document order. */
export function textLeaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) textLeaves(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) textLeaves(x, out);
  return out;
}

/** User-facing statement of the rule (UI help next to the quote button, and the form). */
export const QUOTE_RULE_HELP =
  "Only the text of one value is quoted (never key names, quotes or brackets). A quote must occur in that value of the node's content; " +
  "when comparing, CRLF counts as LF, a no-break space as a space, any run of whitespace as one space, and Unicode is compared in NFC " +
  "(composed and decomposed accents are equal). Case and punctuation must match. The same quote cannot be added twice for a node.";

const NBSP = /[\u00a0\u2007\u202f]/g;
const WS_RUN = /\s+/g;
/** No character below U+0300 composes or decomposes under NFC, so such text is already NFC. */
const MAY_CHANGE_UNDER_NFC = /[^\u0000-\u02ff]/;

/**
 * The normalized form of a quote or a value (rule 2): NFC, CRLF/CR → LF, no-break spaces → space,
 * whitespace runs → one space, trimmed.
 * @param s any text; @returns the normalized text ("" when `s` is only whitespace)
 */
export function normalizeQuoteText(s: string): string {
  const nfc = MAY_CHANGE_UNDER_NFC.test(s) ? s.normalize("NFC") : s;
  return nfc.replace(/\r\n?/g, "\n").replace(NBSP, " ").replace(WS_RUN, " ").trim();
}

/**
 * Does `quote` occur in one value of the node's content under the rule above?
 * @param content the node's content (any JSON value, as stored)
 * @param quote the quote text (raw, as selected or imported)
 * @returns false for an empty/whitespace-only quote
 */
export function quoteOccursIn(content: unknown, quote: string): boolean {
  const q = normalizeQuoteText(quote);
  if (!q) return false;
  for (const t of textLeaves(content)) {
    if (normalizeQuoteText(t).includes(q)) return true;
  }
  return false;
}

/** An evidence item as stored on an annotation. */
export interface EvidenceQuote {
  nodeId: string;
  quote: string;
}

/** Key of an evidence item for duplicate detection: node id + normalized quote (rule 4). */
export const evidenceKey = (e: EvidenceQuote) => `${e.nodeId}\u0000${normalizeQuoteText(e.quote)}`;

/**
 * Index of the earlier item that `evidence[i]` duplicates (same node, same normalized quote), or -1.
 * @param evidence the annotation's evidence list, in order
 */
export function duplicateOf(evidence: EvidenceQuote[], i: number): number {
  const k = evidenceKey(evidence[i]!);
  for (let j = 0; j < i; j++) if (evidenceKey(evidence[j]!) === k) return j;
  return -1;
}

/** A short, single-line excerpt of a quote for messages ("…" past `max` characters). */
export function quoteExcerpt(quote: string, max = 60): string {
  const s = normalizeQuoteText(quote);
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

export type QuoteCheck = { ok: true; quote: string } | { ok: false; message: string };

/**
 * Check a new evidence quote at the moment it is taken, with the same rule as submission.
 * @param o.nodeId the node quoted; o.content its content (as the API returns it);
 *   o.quote the text taken from the selection; o.existing the annotation's evidence so far
 * @returns `{ok: true, quote}` (the quote trimmed of outer whitespace, otherwise unchanged), or
 *   `{ok: false, message}` naming the node and the quote: empty, not found, or a duplicate.
 */
export function checkNewQuote(o: { nodeId: string; content: unknown; quote: string; existing: EvidenceQuote[] }): QuoteCheck {
  const quote = o.quote.trim();
  if (!normalizeQuoteText(quote)) return { ok: false, message: "Nothing to quote: select text inside a value of this node's content first." };
  if (!quoteOccursIn(o.content, quote))
    return {
      ok: false,
      message: `Not quoted: not found in node "${o.nodeId}": ${quoteExcerpt(quote)}. A quote must be text from one value of the node's content (no key names, quotes or brackets).`,
    };
  const k = evidenceKey({ nodeId: o.nodeId, quote });
  const j = o.existing.findIndex((e) => evidenceKey(e) === k);
  if (j >= 0) return { ok: false, message: `Not quoted: evidence ${j + 1} already quotes ${quoteExcerpt(quote)} from node "${o.nodeId}".` };
  return { ok: true, quote };
}

/**
 * Where the quotes occur in one raw value, for highlighting: half-open [start, end) ranges of
 * UTF-16 offsets into `text`, sorted, overlaps merged. Matching is the rule above (so a quote
 * that differs from the value only in whitespace, no-break spaces or composition is found), and
 * every occurrence is returned.
 * @param text a raw value (string, or a number's text); @param quotes raw quotes
 */
export function findQuoteRanges(text: string, quotes: string[]): Array<[number, number]> {
  const qs = [...new Set(quotes.map(normalizeQuoteText).filter(Boolean))];
  if (!qs.length || !text) return [];
  const { norm, start, end } = normalizeWithMap(text);
  const found: Array<[number, number]> = [];
  for (const q of qs) {
    for (let i = norm.indexOf(q); i >= 0; i = norm.indexOf(q, i + 1)) found.push([start[i]!, end[i + q.length - 1]!]);
  }
  found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const r of found) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * normalizeQuoteText with an offset map: for each character of the normalized text, the raw
 * [start, end) it came from. NFC is applied per base character + combining marks (where
 * composition happens), so the map stays exact; whitespace runs map to the whole raw run. (Only
 * conjoining Hangul jamo, which compose across base characters, can match the rule without being
 * marked.)
 */
function normalizeWithMap(raw: string): { norm: string; start: number[]; end: number[] } {
  const start: number[] = [];
  const end: number[] = [];
  let norm = "";
  const chunks: Array<[string, number]> = [];
  const nfc = MAY_CHANGE_UNDER_NFC.test(raw);
  if (nfc) {
    // A base character with its combining marks (where NFC composes). Intl.Segmenter would also
    // join Hangul jamo, but iterating it is quadratic in V8 on long strings (500 s for 100 KB).
    for (const m of raw.matchAll(/\r\n|\P{M}\p{M}*|\p{M}+/gsu)) chunks.push([m[0], m.index]);
  } else {
    for (let i = 0; i < raw.length; i++) chunks.push([raw[i]!, i]);
  }
  let inWs = false;
  for (const [seg, at] of chunks) {
    const isWs = /^\s+$/.test(seg);
    if (isWs) {
      if (!norm.length) continue; // leading whitespace is dropped
      if (inWs) {
        end[end.length - 1] = at + seg.length;
        continue;
      }
      inWs = true;
      norm += " ";
      start.push(at);
      end.push(at + seg.length);
      continue;
    }
    inWs = false;
    const n = nfc ? seg.normalize("NFC") : seg;
    for (let k = 0; k < n.length; k++) {
      norm += n[k];
      start.push(at);
      end.push(at + seg.length);
    }
  }
  if (inWs) {
    norm = norm.slice(0, -1);
    start.pop();
    end.pop();
  }
  return { norm, start, end };
}

/** One value-text portion touched by a selection, as read from the DOM (see components/trace/selection-quote.ts). */
export interface SelectedSegment {
  /** Which value (e.g. its JSON path). */
  valueKey: string;
  /** Offset of the portion's first character within the value (a long value is shown in portions). */
  offset: number;
  /** The portion's text. */
  text: string;
  /** Selected part of `text`: [start, end). */
  start: number;
  end: number;
}

export type SelectionQuote = { ok: true; quote: string; valueKey: string } | { ok: false; message: string };

/**
 * The quote a selection gives: only value text counts (key names, quotes, brackets and fold
 * toggles are not in any segment). Inside one value, the selected characters in order; a
 * selection over two or more values, or with a gap inside one value, is refused.
 * @param segments the selected value portions, in any order
 */
export function quoteFromSegments(segments: SelectedSegment[]): SelectionQuote {
  const parts = segments.filter((s) => s.end > s.start).map((s) => ({ ...s, from: s.offset + s.start, to: s.offset + s.end }));
  if (!parts.length) return { ok: false, message: "Nothing to quote: the selection holds no value text (key names, quotes and brackets are not quoted). Select text inside a value." };
  const values = [...new Set(parts.map((p) => p.valueKey))];
  if (values.length > 1)
    return { ok: false, message: `Not quoted: the selection covers ${values.length} values (${values.slice(0, 3).join(", ")}${values.length > 3 ? ", …" : ""}). Quote from one value at a time.` };
  parts.sort((a, b) => a.from - b.from);
  let quote = "";
  let at = parts[0]!.from;
  for (const p of parts) {
    if (p.from > at) return { ok: false, message: `Not quoted: the selection in ${p.valueKey} is not continuous text (characters ${at}–${p.from} are not shown). Show all of the value, then select again.` };
    const from = Math.max(p.from, at);
    if (p.to > from) quote += p.text.slice(from - p.offset, p.end);
    at = Math.max(at, p.to);
  }
  const trimmed = quote.trim();
  if (!trimmed) return { ok: false, message: "Nothing to quote: only whitespace is selected." };
  return { ok: true, quote: trimmed, valueKey: values[0]! };
}
