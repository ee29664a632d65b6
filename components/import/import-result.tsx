import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { FormatRetry } from "./format-retry";
import type { ImportResult } from "./upload-file";

const STATUS_STYLE = { imported: "text-emerald-700", skipped: "text-slate-500", replaced: "text-amber-700" } as const;
const KNOWN = new Set(["file", "bytes", "imported", "skipped", "replaced", "failed", "ignored", "cases"]);

/** One import warning `{bundleId, kind, path, message}` as "bundleId path: message". */
function warningItemText(w: unknown): string {
  if (w && typeof w === "object") {
    const o = w as Record<string, unknown>;
    const head = [o.bundleId, o.path].filter((x) => typeof x === "string" && x).join(" ");
    if (typeof o.message === "string") return head ? `${head}: ${o.message}` : o.message;
  }
  return warningText(w);
}

/** One entry of a warning list as text (a string, or an object's file/path/message, else its JSON). */
function warningText(w: unknown): string {
  if (typeof w === "string") return w;
  if (w && typeof w === "object") {
    const o = w as Record<string, unknown>;
    const head = [o.file, o.where, o.path, o.code].filter((x) => typeof x === "string" && x).join(" ");
    if (typeof o.message === "string") return head ? `${head}: ${o.message}` : o.message;
  }
  return JSON.stringify(w);
}

/** The import report's `warnings: {counts: {kind: n}, items: [...]}` (lib/services/import-files), when it has that shape. */
function warningReport(v: unknown): { counts: Record<string, number>; items: unknown[] } | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as { counts?: unknown; items?: unknown };
  return Array.isArray(o.items) && o.counts && typeof o.counts === "object" ? { counts: o.counts as Record<string, number>, items: o.items } : null;
}

/** Nothing to say: an empty list or object, null, 0 or "". */
const isEmpty = (v: unknown) => v === null || v === undefined || v === 0 || v === "" || (Array.isArray(v) ? v.length === 0 : typeof v === "object" && Object.keys(v as object).length === 0);

/**
 * Whatever warning fields the import report carries (any key containing "warning"), shown only
 * when there are some (issue 22 item 6): the import warnings as counts per kind and a list, item by
 * item; other lists item by item, other values as text. Never rendered as HTML.
 */
function Warnings({ report }: { report: ImportResult }) {
  const entries = Object.entries(report).filter(([k, v]) => !KNOWN.has(k) && /warning/i.test(k) && !isEmpty(v) && !(warningReport(v)?.items.length === 0));
  if (entries.length === 0) return null;
  return (
    <div data-testid="import-warnings" className="text-amber-800">
      {entries.map(([k, v]) => {
        const wr = warningReport(v);
        if (wr) {
          const counts = Object.entries(wr.counts).filter(([, n]) => n > 0);
          return (
            <div key={k}>
              <p className="font-medium" data-testid="import-warning-counts">
                {wr.items.length} import warning{wr.items.length === 1 ? "" : "s"}
                {counts.length ? `: ${counts.map(([kind, n]) => `${kind} × ${n}`).join(", ")}` : ""}
              </p>
              <ul className="ml-4 list-disc">
                {wr.items.map((w, i) => (
                  <li key={i} className="font-mono break-all">
                    {warningItemText(w)}
                  </li>
                ))}
              </ul>
            </div>
          );
        }
        return Array.isArray(v) ? (
          v.length ? (
            <div key={k}>
              <p className="font-medium">
                {k}: {v.length}
              </p>
              <ul className="ml-4 list-disc">
                {v.map((w, i) => (
                  <li key={i} className="font-mono break-all">
                    {warningText(w)}
                  </li>
                ))}
              </ul>
            </div>
          ) : null
        ) : (
          <p key={k}>
            {k}: <span className="font-mono break-all">{typeof v === "object" ? JSON.stringify(v) : String(v)}</span>
          </p>
        );
      })}
    </div>
  );
}

/**
 * The import report of one uploaded file: counts, each stored case (linked), failures with JSON
 * paths, warnings when there are some. A file whose format could not be told offers the format
 * choice (`onRetry` imports it again as the chosen format).
 */
export function ImportResultView({ report, onRetry }: { report: ImportResult; onRetry?: (format: string) => void }) {
  const formatNeeded = report.failed.some((f) => f.errors.some((e) => e.code === "format-needed"));
  const counts = `${report.imported} imported · ${report.skipped} skipped · ${report.replaced} replaced · ${report.failed.length} failed`;
  return (
    <div className="flex flex-col gap-1 text-xs">
      <p data-testid="import-counts" className={report.failed.length ? "text-red-700" : "text-slate-700"}>
        {counts}
        {report.ignored.length ? ` · ${report.ignored.length} ignored (not a trace)` : ""}
      </p>
      {report.cases.length ? (
        <ul className="flex flex-col gap-0.5">
          {report.cases.map((c) => (
            <li key={c.caseId} data-testid="import-case" className="flex gap-2">
              <span className={STATUS_STYLE[c.status]}>{c.status}</span>
              <Link href={caseHref(c.bundleId)} className="font-mono break-all text-sky-700 underline">
                {c.bundleId}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {report.failed.length ? (
        <ul className="flex flex-col gap-1" role="alert">
          {report.failed.map((f, i) => (
            <li key={i} data-testid="import-failure">
              <span className="font-mono break-all">{f.file}</span>
              <ul className="ml-4 list-disc">
                {f.errors.map((e, j) => (
                  <li key={j} className="text-red-700">
                    <code className="font-mono">{e.path}</code>: <span className="break-words">{e.message}</span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      ) : null}
      {formatNeeded && onRetry ? <FormatRetry file={report.file} onRetry={onRetry} /> : null}
      {report.ignored.length ? <p className="text-slate-500">Not a trace, passed over: {report.ignored.join(", ")}</p> : null}
      <Warnings report={report} />
    </div>
  );
}
