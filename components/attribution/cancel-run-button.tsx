"use client";
/**
 * "Cancel" of a running attribution run: posts {action: "cancel", name} to
 * /api/experiments/attribution after a confirmation; no job of the run starts any more, the ones
 * running finish (and count), the queued ones wait for a Resume. The page is then refreshed.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ErrorText } from "./new-run-form";
import { postAttribution } from "./post";

export function CancelAttributionRunButton({ name, queued }: { name: string; queued: number }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function cancel() {
    if (!window.confirm(`Cancel run "${name}"? No job starts any more (${queued} queued); jobs already running finish. Resume continues it later.`)) return;
    setBusy(true);
    setError(null);
    const r = await postAttribution({ action: "cancel", name });
    if (r.ok) router.refresh();
    else setError(r.error);
    setBusy(false);
  }

  return (
    <span className="inline-flex items-center gap-2">
      <button type="button" onClick={cancel} disabled={busy} className="rounded border border-red-300 px-2 py-0.5 text-xs text-red-700 disabled:opacity-50" data-testid="cancel-attribution-button">
        Cancel run
      </button>
      {error ? <ErrorText error={error} /> : null}
    </span>
  );
}
