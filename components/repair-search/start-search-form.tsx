"use client";
/**
 * "Start a repair search" on one case (issue 22 item 1): POST /api/repair-searches with the case and
 * the search parameters a request may set (iterations, K, L, seed); endpoints, selector, judge and
 * evaluator are the server's. On 201 it opens the new search's page; an error is shown as text.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";

export function StartSearchForm({ caseId, scripted }: { caseId: string; scripted: boolean }) {
  const router = useRouter();
  const [iterations, setIterations] = useState("8");
  const [k, setK] = useState("3");
  const [l, setL] = useState("4");
  const [seed, setSeed] = useState("7");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const num = (s: string) => (s.trim() === "" ? undefined : Number(s));
    try {
      const res = await fetch("/api/repair-searches", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ sourceCaseId: caseId, iterations: num(iterations), k: num(k), l: num(l), seed: num(seed) }),
      });
      const body = (await res.json().catch(() => ({}))) as { search?: { id: string }; error?: string; at?: string };
      if (res.status === 201 && body.search) {
        router.push(`/repair-searches/${encodeURIComponent(body.search.id)}`);
        return;
      }
      setError(`${body.error ?? `HTTP ${res.status}`}${body.at ? ` (${body.at})` : ""}`);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  }

  const field = (label: string, value: string, set: (v: string) => void, name: string, min: number) => (
    <label className="flex flex-col text-xs text-slate-600">
      {label}
      <input type="number" min={min} name={name} value={value} onChange={(e) => set(e.target.value)} className="w-24 rounded border border-slate-300 px-2 py-1 text-sm" />
    </label>
  );
  return (
    <form onSubmit={submit} className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4" data-testid="start-search-form">
      <h2 className="text-sm font-semibold">Start a repair search of this case</h2>
      <p className="text-xs text-slate-600">
        MARS (seeds/002) with the server&apos;s endpoint, action selector, judge and evaluator. The selector must be a model that calls tools (OpenAI tool calling).
        {scripted ? " Here every call goes to the demo's scripted stand-in model: the tree is real, the model's answers are scripted." : ""}
      </p>
      <div className="flex flex-wrap items-end gap-3">
        {field("Iterations (N_iter)", iterations, setIterations, "iterations", 1)}
        {field("Children per node (K)", k, setK, "k", 1)}
        {field("Live steps per rollout (L)", l, setL, "l", 1)}
        {field("Seed", seed, setSeed, "seed", 0)}
        <button type="submit" disabled={busy} className="rounded bg-blue-700 px-3 py-1.5 text-sm text-white disabled:opacity-50" data-testid="start-search">
          {busy ? "Starting…" : "Start search"}
        </button>
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-700" data-testid="start-search-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
