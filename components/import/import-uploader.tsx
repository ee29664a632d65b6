"use client";

import { useRef, useState } from "react";
import { formatBytes } from "@/lib/bytes";
import { IMPORT_FORMAT_CHOICES } from "./formats";
import { ImportResultView } from "./import-result";
import { uploadFile, type ImportResult } from "./upload-file";

const FORMATS = IMPORT_FORMAT_CHOICES;

type Item = {
  key: number;
  file: File;
  phase: "queued" | "uploading" | "importing" | "done" | "error";
  loaded: number;
  report?: ImportResult;
  error?: string;
};

/**
 * Upload one or many trace files; each is sent in its own request (one after the other) and its
 * result shown as it arrives: upload progress, then "importing…", then the import report.
 */
export function ImportUploader({ maxBytes }: { maxBytes: number }) {
  const [items, setItems] = useState<Item[]>([]);
  const [format, setFormat] = useState<string>("auto");
  const [dragging, setDragging] = useState(false);
  const nextKey = useRef(0);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const input = useRef<HTMLInputElement>(null);

  const patch = (key: number, p: Partial<Item>) => setItems((xs) => xs.map((x) => (x.key === key ? { ...x, ...p } : x)));

  function add(files: FileList | null) {
    if (!files || files.length === 0) return;
    const fmt = format;
    const added: Item[] = Array.from(files).map((file) => ({ key: nextKey.current++, file, phase: "queued", loaded: 0 }));
    setItems((xs) => [...added, ...xs]);
    for (const it of added) enqueue(it, fmt);
    if (input.current) input.current.value = "";
  }

  /** The same file again, as the format chosen for it (a file whose format could not be told). */
  function retry(it: Item, fmt: string) {
    patch(it.key, { phase: "queued", loaded: 0, report: undefined, error: undefined });
    enqueue(it, fmt);
  }

  function enqueue(it: Item, fmt: string) {
    queue.current = queue.current.then(async () => {
      if (it.file.size > maxBytes) {
        patch(it.key, { phase: "error", error: `${it.file.name}: larger than the import limit of ${formatBytes(maxBytes)}; import it with the CLI (npm run symtrace -- import <file>)` });
        return;
      }
      patch(it.key, { phase: "uploading" });
      const out = await uploadFile(
        it.file,
        fmt,
        (loaded) => patch(it.key, { loaded }),
        () => patch(it.key, { phase: "importing", loaded: it.file.size }),
      );
      patch(it.key, out.ok ? { phase: "done", report: out.report } : { phase: "error", error: `${out.status ? `${out.status}: ` : ""}${out.error}` });
    });
  }

  const done = items.filter((x) => x.report);
  const total = (k: "imported" | "skipped" | "replaced") => done.reduce((s, x) => s + (x.report?.[k] ?? 0), 0);
  const failed = done.reduce((s, x) => s + (x.report?.failed.length ?? 0), 0) + items.filter((x) => x.phase === "error").length;

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end gap-4">
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          <span>Format</span>
          <select value={format} onChange={(e) => setFormat(e.target.value)} className="rounded border border-slate-300 px-2 py-1 text-sm">
            {FORMATS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label
          className={`flex min-w-80 flex-1 cursor-pointer flex-col gap-1 rounded border-2 border-dashed px-4 py-3 text-sm ${dragging ? "border-sky-500 bg-sky-50" : "border-slate-300"}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            add(e.dataTransfer.files);
          }}
        >
          <span>Trace files (JSON; drop here or choose; up to {formatBytes(maxBytes)} each)</span>
          <input ref={input} type="file" multiple accept=".json,application/json" aria-label="Trace files" onChange={(e) => add(e.target.files)} className="text-xs" />
        </label>
      </div>
      {items.length ? (
        <p className="text-sm text-slate-700" data-testid="import-summary" role="status">
          {done.length + items.filter((x) => x.phase === "error").length} of {items.length} file{items.length === 1 ? "" : "s"} done: {total("imported")} imported, {total("skipped")} skipped,{" "}
          {total("replaced")} replaced, {failed} failed
        </p>
      ) : null}
      <ul className="flex flex-col gap-2">
        {items.map((it) => (
          <li key={it.key} data-testid="import-file" data-name={it.file.name} data-phase={it.phase} className="rounded border border-slate-200 bg-white p-3">
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <span className="font-mono break-all">{it.file.name}</span>
              <span className="text-xs text-slate-500">{formatBytes(it.file.size)}</span>
              {it.phase === "queued" ? <span className="text-xs text-slate-500">waiting…</span> : null}
              {it.phase === "uploading" ? (
                <>
                  <progress max={it.file.size || 1} value={it.loaded} aria-label={`Uploading ${it.file.name}`} className="h-2 w-48" />
                  <span className="text-xs text-slate-500">uploading {it.file.size ? Math.floor((100 * it.loaded) / it.file.size) : 0}%</span>
                </>
              ) : null}
              {it.phase === "importing" ? <span className="text-xs text-slate-600">importing…</span> : null}
            </div>
            {it.report ? <ImportResultView report={it.report} onRetry={(fmt) => retry(it, fmt)} /> : null}
            {it.error ? (
              <p className="text-xs text-red-700" role="alert">
                {it.error}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
