"use client";

import { createContext, memo, useContext, useMemo, useState } from "react";
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
 * @param expandDepth levels open at first (0 = all collapsed)
 */
export function JsonTree({ value, expandDepth = 2, label, highlight }: { value: unknown; expandDepth?: number; label?: string; highlight?: string }) {
  const q = highlight?.trim() ?? "";
  return (
    <HighlightContext.Provider value={q.length >= 2 ? q : ""}>
      <div className="font-mono text-xs leading-5" role="tree" aria-label={label ?? "JSON"}>
        <JsonNode name={null} value={value} depth={0} expandDepth={expandDepth} />
      </div>
    </HighlightContext.Provider>
  );
}

/** The search text to mark inside strings ("" = none). */
const HighlightContext = createContext("");

/** `text` with every case-insensitive occurrence of `q` wrapped in <mark> (React text nodes, never HTML). */
function Marked({ text, q }: { text: string; q: string }) {
  if (!q) return <>{text}</>;
  const lower = text.toLowerCase();
  const needle = q.toLowerCase();
  const parts: React.ReactNode[] = [];
  let from = 0;
  for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
    if (i > from) parts.push(text.slice(from, i));
    parts.push(
      <mark key={i} className="rounded bg-amber-300 px-0.5" data-search-hit>
        {text.slice(i, i + needle.length)}
      </mark>,
    );
    from = i + needle.length;
  }
  parts.push(text.slice(from));
  return <>{parts}</>;
}

const JsonNode = memo(function JsonNode({ name, value, depth, expandDepth }: { name: string | null; value: unknown; depth: number; expandDepth: number }) {
  const isObj = typeof value === "object" && value !== null;
  const q = useContext(HighlightContext);
  if (isObj && depth >= MAX_TREE_DEPTH) return <DeepValue name={name} value={value} />;
  return <JsonBranch name={name} value={value} depth={depth} expandDepth={expandDepth} isObj={isObj} q={q} />;
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

function JsonBranch({ name, value, depth, expandDepth, isObj, q }: { name: string | null; value: unknown; depth: number; expandDepth: number; isObj: boolean; q: string }) {
  const containsHit = !!q && isObj && safeIncludes(value, q);
  const [open, setOpen] = useState(depth < expandDepth || (containsHit && depth < 6));
  const [all, setAll] = useState(false);
  const key = name !== null ? <span className="text-slate-500">{name}: </span> : null;
  if (!isObj) {
    return (
      <div role="treeitem" aria-selected={false} className="pl-4">
        {key}
        <Primitive value={value} />
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
            <JsonNode key={k} name={k} value={v} depth={depth + 1} expandDepth={expandDepth} />
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

function Primitive({ value }: { value: unknown }) {
  const [all, setAll] = useState(false);
  const q = useContext(HighlightContext);
  const media = useMemo(() => (typeof value === "string" ? detectInlineMedia(value) : null), [value]);
  if (media) return <MediaValue media={media} />;
  if (typeof value === "string") {
    const cut = !all && value.length > LONG_STRING;
    // A long string cut for speed: still show where the search text occurs in it.
    const hitAt = q ? value.toLowerCase().indexOf(q.toLowerCase(), LONG_STRING) : -1;
    const excerpt = cut && hitAt >= 0 ? value.slice(Math.max(LONG_STRING, hitAt - 300), hitAt + q.length + 300) : null;
    return (
      <span className="trace-text text-emerald-800">
        &quot;<Marked text={cut ? value.slice(0, LONG_STRING) : value} q={q} />
        {cut ? (
          <>
            …&quot;{" "}
            {excerpt !== null ? (
              <span className="block border-l-2 border-amber-400 pl-2 text-slate-700">
                … at character {hitAt.toLocaleString("en")}: <Marked text={excerpt} q={q} /> …
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
  if (typeof value === "number") return <span className="text-blue-800">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="text-violet-800">{String(value)}</span>;
  return <span className="text-slate-400">null</span>;
}
