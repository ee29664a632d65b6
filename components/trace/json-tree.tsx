"use client";

import { createContext, Fragment, memo, useContext, useMemo, useState } from "react";
import { findQuoteRanges, quoteOccursIn } from "@/lib/annotation/evidence";
import { detectInlineMedia, type InlineMedia } from "@/lib/media/inline-media";

const LONG_STRING = 2_000;
const MANY_ITEMS = 200;
/** Levels drawn as nested tree items; a value deeper than this is shown as one line of compact JSON. */
const MAX_TREE_DEPTH = 64;

/**
 * A foldable JSON tree rendered as text (never HTML). Children are rendered only when expanded,
 * long strings and long arrays are cut with a "show all" button, so megabyte payloads stay
 * responsive. Nesting is bounded: below MAX_TREE_DEPTH (64) levels a value is shown as compact JSON
 * text (cut like a long string), so deep content never recurses through the component tree.
 * The text of every string, number and boolean value sits in a `[data-value-text]` span (with its
 * JSON path in `data-value-key` and the offset of the shown part in `data-value-offset`), so an
 * evidence quote is read from value text only (components/trace/selection-quote.ts).
 * @param expandDepth levels open at first (0 = all collapsed)
 * @param highlight search text to mark (`[data-search-hit]`, case-insensitive, ≥ 2 characters)
 * @param quotes evidence quotes to mark (`[data-evidence-quote]`), matched by the quote rule of
 *   lib/annotation/evidence.ts; branches holding one open (up to 6 levels)
 */
export function JsonTree({ value, expandDepth = 2, label, highlight, quotes }: { value: unknown; expandDepth?: number; label?: string; highlight?: string; quotes?: string[] }) {
  const q = highlight?.trim() ?? "";
  const qs = useMemo(() => quotes ?? NO_QUOTES, [quotes]);
  return (
    <HighlightContext.Provider value={q.length >= 2 ? q : ""}>
      <QuotesContext.Provider value={qs}>
        <div className="font-mono text-xs leading-5" role="tree" aria-label={label ?? "JSON"}>
          <JsonNode name={null} path="$" value={value} depth={0} expandDepth={expandDepth} />
        </div>
      </QuotesContext.Provider>
    </HighlightContext.Provider>
  );
}

const NO_QUOTES: string[] = [];
/** The search text to mark inside strings ("" = none). */
const HighlightContext = createContext("");
/** Evidence quotes to mark inside values (raw quotes as stored). */
const QuotesContext = createContext<string[]>(NO_QUOTES);

/** JSON path of a child: `$.key`, `$["odd key"]`, `$[3]`. */
function childPath(path: string, key: string, isIndex: boolean): string {
  if (isIndex) return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Case-insensitive occurrences of `q` in `text` as [start, end) ranges. */
function searchRanges(text: string, q: string): Array<[number, number]> {
  if (!q) return [];
  const lower = text.toLowerCase();
  const needle = q.toLowerCase();
  const out: Array<[number, number]> = [];
  for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) out.push([i, i + needle.length]);
  return out;
}

/**
 * `text` with search hits wrapped in `<mark data-search-hit>` and evidence quotes in
 * `<mark data-evidence-quote>` (nested where both apply). React text nodes, never HTML.
 * @param evidence ranges of evidence quotes, relative to `text`
 */
function Marked({ text, q, evidence = [] }: { text: string; q: string; evidence?: Array<[number, number]> }) {
  const hits = searchRanges(text, q);
  if (!hits.length && !evidence.length) return <>{text}</>;
  const cuts = [...new Set([0, text.length, ...hits.flat(), ...evidence.flat()])].filter((x) => x >= 0 && x <= text.length).sort((a, b) => a - b);
  const parts: React.ReactNode[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [a, b] = [cuts[k]!, cuts[k + 1]!];
    let node: React.ReactNode = text.slice(a, b);
    if (hits.some(([s, e]) => s <= a && b <= e))
      node = (
        <mark className="rounded bg-amber-300 px-0.5" data-search-hit>
          {node}
        </mark>
      );
    if (evidence.some(([s, e]) => s <= a && b <= e))
      node = (
        <mark className="bg-indigo-200 text-inherit underline decoration-indigo-600 decoration-2" data-evidence-quote title="evidence quote">
          {node}
        </mark>
      );
    parts.push(<Fragment key={a}>{node}</Fragment>);
  }
  return <>{parts}</>;
}

/** Evidence ranges of a whole value clipped to the shown part [offset, offset + length). */
function clip(ranges: Array<[number, number]>, offset: number, length: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [s, e] of ranges) {
    const a = Math.max(s, offset);
    const b = Math.min(e, offset + length);
    if (b > a) out.push([a - offset, b - offset]);
  }
  return out;
}

/**
 * Shown value text: the span an evidence quote is read from. Without a path (compact JSON of a
 * value nested too deeply, which holds keys and punctuation) the text is shown but not quotable.
 */
function ValueText({ path, offset, text, q, evidence }: { path?: string; offset: number; text: string; q: string; evidence: Array<[number, number]> }) {
  if (path === undefined) return <Marked text={text} q={q} />;
  return (
    <span data-value-text="" data-value-key={path} data-value-offset={offset}>
      <Marked text={text} q={q} evidence={clip(evidence, offset, text.length)} />
    </span>
  );
}

const JsonNode = memo(function JsonNode({ name, path, value, depth, expandDepth }: { name: string | null; path: string; value: unknown; depth: number; expandDepth: number }) {
  const isObj = typeof value === "object" && value !== null;
  const q = useContext(HighlightContext);
  if (isObj && depth >= MAX_TREE_DEPTH) return <DeepValue name={name} value={value} />;
  return <JsonBranch name={name} path={path} value={value} depth={depth} expandDepth={expandDepth} isObj={isObj} q={q} />;
});

/** A value past MAX_TREE_DEPTH: its compact JSON as text (or a note when even that fails). */
function DeepValue({ name, value }: { name: string | null; value: unknown }) {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    text = "(nested too deeply to show)";
  }
  return (
    <div role="treeitem" aria-selected={false} className="pl-4" data-deep-value>
      {name !== null ? <span className="text-slate-500">{name}: </span> : null}
      <span className="text-slate-400">(deeper than {MAX_TREE_DEPTH} levels, as JSON) </span>
      <Primitive value={text} />
    </div>
  );
}

function JsonBranch({ name, path, value, depth, expandDepth, isObj, q }: { name: string | null; path: string; value: unknown; depth: number; expandDepth: number; isObj: boolean; q: string }) {
  const quotes = useContext(QuotesContext);
  const containsHit = !!q && isObj && safeIncludes(value, q);
  const containsQuote = isObj && depth < 6 && quotes.some((x) => quoteOccursIn(value, x));
  const [open, setOpen] = useState(depth < expandDepth || (containsHit && depth < 6) || containsQuote);
  const [all, setAll] = useState(false);
  const key = name !== null ? <span className="text-slate-500">{name}: </span> : null;
  if (!isObj) {
    return (
      <div role="treeitem" aria-selected={false} className="pl-4">
        {key}
        <Primitive value={value} path={path} />
      </div>
    );
  }
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value as Record<string, unknown>);
  const shown = all ? entries : entries.slice(0, MANY_ITEMS);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <div role="treeitem" aria-expanded={open} aria-selected={false} className={depth === 0 ? "" : "pl-4"}>
      <button type="button" onClick={() => setOpen(!open)} className="text-left hover:bg-slate-100" aria-label={`${open ? "collapse" : "expand"} ${name ?? "root"}`}>
        <span className="inline-block w-3 text-slate-400">{open ? "▾" : "▸"}</span>
        {key}
        <span className="text-slate-400">{summary}</span>
      </button>
      {open ? (
        <div role="group">
          {shown.map(([k, v]) => (
            <JsonNode key={k} name={k} path={childPath(path, k, Array.isArray(value))} value={v} depth={depth + 1} expandDepth={expandDepth} />
          ))}
          {shown.length < entries.length ? (
            <button type="button" className="pl-4 text-blue-700 underline" onClick={() => setAll(true)}>
              show all {entries.length} items
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** Whether the JSON text of `value` contains `q` (case-insensitive); false if it cannot be serialized. */
function safeIncludes(value: unknown, q: string): boolean {
  try {
    return JSON.stringify(value).toLowerCase().includes(q.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * Inline media (a base64 image, audio, …): a thumbnail for PNG/JPEG/GIF/WebP (an <img> with a
 * data: URL rebuilt from the detected type, which cannot run script), else a placeholder such as
 * "SVG, 3 KB". The base64 text itself is never shown.
 */
function MediaValue({ media }: { media: InlineMedia }) {
  return (
    <span className="inline-flex items-center gap-2 align-middle" data-testid="inline-media" data-kind={media.kind}>
      {media.thumbnailSrc ? (
        // eslint-disable-next-line @next/next/no-img-element -- a data: URL from trace content, not an optimizable asset
        <img src={media.thumbnailSrc} alt={`${media.summary} image`} className="max-h-24 max-w-40 rounded border border-slate-200 object-contain" />
      ) : null}
      <span className="rounded bg-slate-100 px-1 font-sans text-slate-600">
        {media.summary}
        {media.thumbnailSrc ? "" : " (not shown)"} · {media.chars.toLocaleString("en")} chars of base64 hidden
      </span>
    </span>
  );
}

function Primitive({ value, path }: { value: unknown; path?: string }) {
  const [all, setAll] = useState(false);
  const q = useContext(HighlightContext);
  const quotes = useContext(QuotesContext);
  const media = useMemo(() => (typeof value === "string" ? detectInlineMedia(value) : null), [value]);
  const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : null;
  const evidence = useMemo(() => (text !== null && !media && quotes.length ? findQuoteRanges(text, quotes) : []), [text, media, quotes]);
  if (media) return <MediaValue media={media} />;
  if (typeof value === "string") {
    const cut = !all && value.length > LONG_STRING;
    // A long string cut for speed: still show where the search text occurs in it.
    const hitAt = q ? value.toLowerCase().indexOf(q.toLowerCase(), LONG_STRING) : -1;
    const excerptAt = Math.max(LONG_STRING, hitAt - 300);
    const excerpt = cut && hitAt >= 0 ? value.slice(excerptAt, hitAt + q.length + 300) : null;
    const quotedBeyond = cut ? evidence.filter(([s]) => s >= LONG_STRING).length : 0;
    return (
      <span className="trace-text text-emerald-800">
        &quot;<ValueText path={path} offset={0} text={cut ? value.slice(0, LONG_STRING) : value} q={q} evidence={evidence} />
        {cut ? (
          <>
            …&quot;{" "}
            {excerpt !== null ? (
              <span className="block border-l-2 border-amber-400 pl-2 text-slate-700">
                … at character {hitAt.toLocaleString("en")}: <ValueText path={path} offset={excerptAt} text={excerpt} q={q} evidence={evidence} /> …
              </span>
            ) : null}
            {quotedBeyond ? (
              <span className="font-sans text-indigo-800" data-evidence-beyond>
                {quotedBeyond} evidence quote(s) past character {LONG_STRING.toLocaleString("en")}:{" "}
              </span>
            ) : null}
            <button type="button" className="font-sans text-blue-700 underline" onClick={() => setAll(true)}>
              show all {value.length.toLocaleString("en")} chars
            </button>
          </>
        ) : (
          <>&quot;</>
        )}
      </span>
    );
  }
  if (typeof value === "number")
    return (
      <span className="text-blue-800">
        <ValueText path={path} offset={0} text={String(value)} q="" evidence={evidence} />
      </span>
    );
  if (typeof value === "boolean")
    return (
      <span className="text-violet-800">
        <ValueText path={path} offset={0} text={String(value)} q="" evidence={evidence} />
      </span>
    );
  return <span className="text-slate-400">null</span>;
}
