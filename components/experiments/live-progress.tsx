"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { methodLabel } from "@/lib/experiments";
import { Badge } from "@/components/ui/badge";
import { Progress, STATUS_TONE } from "./experiment-list";

export interface LiveProgressState {
  status: string;
  done: number;
  rows: number;
  /** per method: attempts by status */
  byMethod: Record<string, Record<string, number>>;
  used?: { calls: number; tokens: number } | null;
}

const FINAL = ["finished", "cancelled", "budget-exhausted"];
const POLL_MS = 2000;

/**
 * Live progress of a running experiment: polls the JSON API (`GET /api/experiments/<id>`) every
 * 2 s and refreshes the page (so the tables are recomputed) when the status changes; stops
 * polling once the experiment is final.
 */
export function LiveProgress({ experimentId, initial }: { experimentId: string; initial: LiveProgressState }) {
  const router = useRouter();
  const [state, setState] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (FINAL.includes(state.status)) return;
    let stopped = false;
    const t = setInterval(async () => {
      try {
        const res = await fetch(`/api/experiments/${encodeURIComponent(experimentId)}`, { cache: "no-store" });
        if (!res.ok) throw new Error(`GET /api/experiments/${experimentId}: ${res.status}`);
        const j = await res.json();
        const e = (j.experiment ?? j) as { status?: string; progress?: { done?: number; rows?: number; byMethod?: LiveProgressState["byMethod"]; used?: LiveProgressState["used"] } };
        if (stopped || typeof e.status !== "string") return;
        const next: LiveProgressState = { status: e.status, done: e.progress?.done ?? 0, rows: e.progress?.rows ?? 0, byMethod: e.progress?.byMethod ?? {}, used: e.progress?.used ?? null };
        setError(null);
        setState((prev) => {
          if (prev.status !== next.status || prev.done !== next.done) router.refresh();
          return next;
        });
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(t);
    };
  }, [experimentId, state.status, router]);
  return (
    <div className="flex flex-col gap-2 text-sm" data-testid="live-progress" data-status={state.status}>
      <div className="flex flex-wrap items-center gap-3">
        <Badge tone={STATUS_TONE[state.status] ?? "slate"}>
          <span data-testid="experiment-status">{state.status}</span>
        </Badge>
        <Progress done={state.done} rows={state.rows} />
        {state.used ? (
          <span className="text-xs text-slate-600">
            {state.used.calls} call(s) · {state.used.tokens} token(s) used
          </span>
        ) : null}
        {!FINAL.includes(state.status) ? <span className="text-xs text-slate-500">updating every {POLL_MS / 1000} s</span> : null}
      </div>
      {Object.keys(state.byMethod).length ? (
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600">
          {Object.entries(state.byMethod).map(([m, c]) => (
            <li key={m}>
              {methodLabel(m)}:{" "}
              {Object.entries(c)
                .filter(([k, v]) => v && k !== "planned")
                .map(([k, v]) => `${v} ${k}`)
                .join(", ") || "—"}
            </li>
          ))}
        </ul>
      ) : null}
      {error ? (
        <p role="alert" className="text-xs text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
