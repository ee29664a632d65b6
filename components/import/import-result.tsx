import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import type { ImportResult } from "./upload-file";

const STATUS_STYLE = { imported: "text-emerald-700", skipped: "text-slate-500", replaced: "text-amber-700" } as const;
const KNOWN = new Set(["file", "bytes", "imported", "skipped", "replaced", "failed", "ignored", "cases"]);

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

/**
 * Whatever warning fields the import report carries (any key containing "warning"): lists shown
 * item by item, counts and objects as text. Never rendered as HTML.
 */
function Warnings({ report }: { report: ImportResult }) {
  const entries = Object.entries(report).filter(([k]) => !KNOWN.has(k) && /warning/i.test(k));
  if (entries.length === 0) return null;
  return (
    <div data-testid="import-warnings" className="text-amber-800">
      {entries.map(([k, v]) =>
        Array.isArray(v) ? (
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
        ),
      )}
    </div>
  );
}

/** The import report of one uploaded file: counts, each stored case (linked), failures with JSON paths. */
export function ImportResultView({ report }: { report: ImportResult }) {
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
      {report.ignored.length ? <p className="text-slate-500">Not a trace, passed over: {report.ignored.join(", ")}</p> : null}
      <Warnings report={report} />
    </div>
  );
}
