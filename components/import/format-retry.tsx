"use client";

import { useState } from "react";
import { IMPORT_FORMAT_CHOICES } from "./formats";

/**
 * For a file whose format could not be told (issue 22 item 6): choose the format here and import
 * the same file again as that format (the page's equivalent of the CLI's `--format`).
 */
export function FormatRetry({ file, onRetry }: { file: string; onRetry: (format: string) => void }) {
  const named = IMPORT_FORMAT_CHOICES.filter(([v]) => v !== "auto");
  const [format, setFormat] = useState<string>(named[0][0]);
  return (
    <form
      className="flex flex-wrap items-center gap-2 text-xs"
      data-testid="import-format-retry"
      onSubmit={(e) => {
        e.preventDefault();
        onRetry(format);
      }}
    >
      <label className="flex items-center gap-1">
        <span>Import {file} as</span>
        <select value={format} onChange={(e) => setFormat(e.target.value)} className="rounded border border-slate-300 px-1 py-0.5" aria-label={`Format of ${file}`}>
          {named.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="rounded bg-sky-700 px-2 py-0.5 font-medium text-white hover:bg-sky-600">
        Import again
      </button>
    </form>
  );
}
