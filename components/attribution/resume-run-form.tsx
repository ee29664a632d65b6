"use client";
/**
 * "Resume" of an attribution run stopped at its budget, cancelled, or with failed jobs: the same run with new
 * caps — prefilled with twice the old ones (empty: no cap) — posted as {action: "resume", name,
 * maxCalls, maxTokens} to /api/experiments/attribution; the page then follows the workers.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ErrorText } from "./new-run-form";
import { postAttribution } from "./post";

const input = "rounded border border-slate-300 px-2 py-1 text-sm";

export function ResumeAttributionRunForm({ name, budget, spent, reason }: { name: string; budget: { maxCalls: number | null; maxTokens: number | null }; spent: { httpCalls: number; tokens: number }; reason: string }) {
  const router = useRouter();
  const twice = (cap: number | null) => (cap === null ? "" : String(cap * 2));
  const [maxCalls, setMaxCalls] = useState(twice(budget.maxCalls));
  const [maxTokens, setMaxTokens] = useState(twice(budget.maxTokens));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function resume() {
    setBusy(true);
    setError(null);
    const num = (s: string) => (s.trim() ? Number(s) : null);
    const r = await postAttribution({ action: "resume", name, maxCalls: num(maxCalls), maxTokens: num(maxTokens) });
    if (r.ok) router.refresh();
    else setError(r.error);
    setBusy(false);
  }

  return (
    <div className="flex flex-col gap-2 rounded border border-amber-200 bg-amber-50 p-3" data-testid="resume-attribution">
      <p className="text-xs text-slate-700">
        {reason} Spent so far: {spent.httpCalls} calls, {spent.tokens} tokens. Resume the same run with these caps (done jobs are kept, failed ones retried, queued ones run):
      </p>
      <div className="flex flex-wrap items-end gap-3 text-xs text-slate-600">
        <label className="flex flex-col">
          Max calls
          <input name="resumeMaxCalls" type="number" min={1} className={`${input} w-28`} value={maxCalls} onChange={(e) => setMaxCalls(e.target.value)} placeholder="no cap" />
        </label>
        <label className="flex flex-col">
          Max tokens
          <input name="resumeMaxTokens" type="number" min={1} className={`${input} w-32`} value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} placeholder="no cap" />
        </label>
        <button type="button" onClick={resume} disabled={busy} className="rounded bg-amber-700 px-3 py-1.5 text-sm text-white disabled:opacity-50" data-testid="resume-attribution-button">
          Resume
        </button>
      </div>
      {error ? <ErrorText error={error} /> : null}
    </div>
  );
}
