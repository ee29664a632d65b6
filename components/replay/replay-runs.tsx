"use client";

import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { caseHref } from "@/lib/case-links";
import { Badge, type BadgeTone } from "@/components/ui/badge";

export interface RunView {
  id: string;
  status: string;
  targetNodeId: string;
  boundaryNodeId: string | null;
  guidance: string;
  mode: string | null;
  progress: { phase?: string; verified: number; prefixTotal: number | null; liveCalls: number };
  attempt: number;
  sourceBundleId: string;
  resultBundleId: string | null;
  createdBy: { name: string } | null;
  createdAt: string;
  error: { message: string } | null;
  depth?: number;
}

const TONE: Record<string, BadgeTone> = {
  queued: "slate",
  running: "blue",
  completed: "green",
  prefix_verified: "green",
  diverged: "red",
  failed: "red",
  cancelled: "amber",
  interrupted: "amber",
};
const ACTIVE = new Set(["queued", "running"]);
const RETRYABLE = new Set(["interrupted", "failed", "cancelled"]);

/** The case's replays (and replays of replays) with live status and progress; cancel and retry. */
export function ReplayRuns({ caseKey, refreshKey }: { caseKey: string; refreshKey: number }) {
  const [runs, setRuns] = useState<RunView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const r = await fetch(`/api/cases/${caseKey}/replays`);
    const body = (await r.json()) as { runs?: RunView[]; error?: string };
    if (!r.ok) setError(body.error ?? `HTTP ${r.status}`);
    else setRuns(body.runs ?? []);
  }, [caseKey]);
  const active = runs?.some((r) => ACTIVE.has(r.status)) ?? true;
  useEffect(() => {
    let stop = false;
    const tick = async () => {
      if (stop) return;
      await load().catch(() => {});
    };
    void tick();
    const t = setInterval(() => void tick(), active ? 1000 : 5000);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, [load, active, refreshKey]);

  const act = async (id: string, what: "cancel" | "retry") => {
    const r = await fetch(`/api/replays/${id}/${what}`, { method: "POST" });
    if (!r.ok) setError(((await r.json()) as { error?: string }).error ?? `HTTP ${r.status}`);
    await load();
  };

  if (error) return <p role="alert" className="p-3 text-sm text-red-700">{error}</p>;
  if (!runs) return <p className="p-3 text-sm text-slate-500">Loading replays…</p>;
  if (!runs.length) return <p className="p-3 text-sm text-slate-500">No replays yet. Select a node and press &ldquo;Replay from here&rdquo;.</p>;
  return (
    // Newest first: the run just started is at the top, where the dialog leaves you.
    <ol className="flex flex-col gap-2 p-3 text-xs" data-testid="replay-runs" aria-label="Replays, newest first">
      {[...runs].reverse().map((r) => {
        const total = r.progress.prefixTotal;
        const pct = total ? Math.min(100, Math.round((100 * r.progress.verified) / total)) : r.status === "completed" ? 100 : 0;
        return (
          <li key={r.id} className="rounded border border-slate-200 p-2" data-run-id={r.id} data-status={r.status}>
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone={TONE[r.status] ?? "slate"}>{r.status.replace("_", " ")}</Badge>
              {r.mode === "transcript" ? <Badge tone="amber">transcript continuation</Badge> : null}
              <span>
                from <span className="font-mono">{r.targetNodeId}</span>
                {r.boundaryNodeId && r.boundaryNodeId !== r.targetNodeId ? (
                  <>
                    {" "}
                    → <span className="font-mono">{r.boundaryNodeId}</span>
                  </>
                ) : null}
              </span>
              {r.depth ? <span className="text-slate-500">(replay of {r.sourceBundleId})</span> : null}
              {r.attempt > 0 ? <span className="text-slate-500">retry {r.attempt}</span> : null}
            </div>
            <div className="mt-1 flex items-center gap-2" data-testid="replay-progress">
              <div className="h-1.5 w-32 overflow-hidden rounded bg-slate-100" aria-hidden>
                <div className="h-full bg-indigo-500" style={{ width: `${pct}%` }} />
              </div>
              <span>
                prefix {r.progress.verified}/{total ?? "?"} verified · {r.progress.liveCalls} live call(s)
              </span>
            </div>
            <p className="mt-1 truncate text-slate-600" title={r.guidance}>
              Δ: {r.guidance || "(no guidance)"}
            </p>
            {r.error ? <p className="mt-1 text-red-700">{r.error.message}</p> : null}
            <div className="mt-1 flex flex-wrap items-center gap-3 text-slate-500">
              <span>
                {r.createdBy?.name ?? "—"} · {new Date(r.createdAt).toLocaleString()}
              </span>
              <Link href={`/replays/${r.id}`} className="text-blue-700 underline">
                open
              </Link>
              {r.resultBundleId ? (
                <Link href={caseHref(r.resultBundleId)} className="text-blue-700 underline">
                  result case
                </Link>
              ) : null}
              {ACTIVE.has(r.status) ? (
                <button type="button" className="text-red-700 underline" onClick={() => void act(r.id, "cancel")}>
                  cancel
                </button>
              ) : null}
              {RETRYABLE.has(r.status) ? (
                <button type="button" className="text-blue-700 underline" onClick={() => void act(r.id, "retry")}>
                  retry
                </button>
              ) : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
