"use client";

import type { OwnAnnotation, SaveState } from "./use-draft";

/** "Saved 12:01:03", "Saving…", or the conflict / error with what to do. */
export function SaveStatus({ save, onAdopt }: { save: SaveState; onAdopt: (a: OwnAnnotation) => void }) {
  switch (save.kind) {
    case "idle":
      return <span className="text-xs text-slate-500" data-testid="save-status">not saved yet</span>;
    case "saving":
      return <span className="text-xs text-slate-500" data-testid="save-status">saving…</span>;
    case "saved":
      return <span className="text-xs text-emerald-700" data-testid="save-status">saved {save.at}</span>;
    case "error":
      return (
        <span className="text-xs text-red-700" role="alert" data-testid="save-status">
          {save.message}
        </span>
      );
    case "conflict":
      return (
        <span className="flex flex-col items-end gap-1 text-xs text-amber-800" role="alert" data-testid="save-status">
          {save.message}
          {save.current ? (
            <button type="button" className="rounded border border-amber-400 px-2 py-0.5" onClick={() => onAdopt(save.current!)}>
              Load the saved version (drops your unsaved edits)
            </button>
          ) : null}
        </span>
      );
  }
}
