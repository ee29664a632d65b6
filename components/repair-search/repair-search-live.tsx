"use client";

import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import type { SearchState } from "@/lib/repair-search";
import { fmtScore, treeView, type TreeNodeView } from "@/lib/repair-search/view";
import { Badge } from "@/components/ui/badge";
import { ACTION_LABEL, RepairTree } from "./repair-tree";
import { LIVE_STATUSES, STATUS_TONE } from "./status";

/** What the page and `GET /api/repair-searches/<id>` give the client (dates as ISO strings). */
export interface RepairSearchClientView {
  id: string;
  status: string;
  state: SearchState | null;
  nodeCases: Record<string, string>;
  best: { nodeId: string; score: number | null; passed: boolean | null; caseId: string | null } | null;
  usage: Record<"selector" | "judge" | "mas", { calls: number; tokens: number }> | null;
  error: string | null;
}

const POLL_MS = 1500;

/** Read the polled JSON (the view itself, or wrapped as {repairSearch} / {search}). */
export function readView(j: unknown): RepairSearchClientView | null {
  const o = (j && typeof j === "object" ? ((j as Record<string, unknown>).repairSearch ?? (j as Record<string, unknown>).search ?? j) : null) as Record<string, unknown> | null;
  if (!o || typeof o.id !== "string" || typeof o.status !== "string") return null;
  return {
    id: o.id,
    status: o.status,
    state: (o.state as SearchState | null) ?? null,
    nodeCases: (o.nodeCases as Record<string, string>) ?? {},
    best: (o.best as RepairSearchClientView["best"]) ?? null,
    usage: (o.usage as RepairSearchClientView["usage"]) ?? null,
    error: typeof o.error === "string" ? o.error : null,
  };
}

/**
 * The live part of a repair search's page: status, progress, spend, the tree and the selected node's
 * details. Polls `GET /api/repair-searches/<id>` every 1.5 s while the search is queued or running
 * (the worker saves the state after every iteration) and refreshes the server-rendered parts when
 * the status changes; stops polling once the search is final.
 */
export function RepairSearchLive({ initial, selectedId }: { initial: RepairSearchClientView; selectedId: string | null }) {
  const router = useRouter();
  const [view, setView] = useState(initial);
  const [pollError, setPollError] = useState<string | null>(null);
  const live = LIVE_STATUSES.includes(view.status);
  useEffect(() => {
    if (!live) return;
    let stopped = false;
    const t = setInterval(async () => {
      try {
        const res = await fetch(`/api/repair-searches/${encodeURIComponent(view.id)}`, { cache: "no-store" });
        if (!res.ok) throw new Error(`GET /api/repair-searches/${view.id}: ${res.status}`);
        const next = readView(await res.json());
        if (stopped || !next) return;
        setPollError(null);
        setView((prev) => {
          if (prev.status !== next.status) router.refresh();
          return next;
        });
      } catch (err) {
        setPollError(err instanceof Error ? err.message : String(err));
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(t);
    };
  }, [view.id, live, router]);

  const rows = useMemo(() => (view.state ? treeView(view.state) : []), [view.state]);
  const s = view.state;
  const selected = rows.find((r) => r.id === selectedId) ?? null;
  return (
    <div className="flex flex-col gap-4">
      <section className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4 text-sm" data-testid="search-progress" data-status={view.status}>
        <div className="flex flex-wrap items-center gap-3">
          <Badge tone={STATUS_TONE[view.status] ?? "slate"}>
            <span data-testid="search-status">{view.status}</span>
          </Badge>
          {s ? (
            <span data-testid="search-iterations">
              iteration {s.iteration} / {s.settings.iterations} · {rows.length} node(s)
              {s.stopped ? ` · stopped: ${s.stopped}` : ""}
            </span>
          ) : (
            <span className="text-slate-600">no tree yet</span>
          )}
          {live ? <span className="text-xs text-slate-500">updating every {POLL_MS / 1000} s</span> : null}
        </div>
        {s ? (
          <p className="text-xs text-slate-600" data-testid="search-settings">
            C = {s.settings.c} · K = {s.settings.k} · L = {s.settings.l} · depth ≤ {s.settings.maxDepth}
          </p>
        ) : null}
        {view.usage ?? s?.usage ? <UsageLine usage={(view.usage ?? s?.usage)!} /> : null}
        {s ? (
          <p data-testid="search-best">
            Best: <span className="font-mono">{s.bestId}</span> · r = {fmtScore(s.maxR)}
            {view.best && view.best.passed !== null ? <> · evaluator: {view.best.passed ? "passed" : "failed"}</> : null}
            {" · "}path <span className="font-mono" data-testid="best-path">{rows.filter((r) => r.onBestPath).map((r) => r.id).join(" → ")}</span>
          </p>
        ) : null}
        {view.error ? <p className="trace-text text-red-700" role="alert">{view.error}</p> : null}
        {s && s.coercions.length ? (
          <details className="text-xs text-slate-600">
            <summary>{s.coercions.length} selector repl(ies) coerced</summary>
            <ul className="trace-text list-disc pl-5">
              {s.coercions.map((c, i) => (
                <li key={i}>{c}</li>
              ))}
            </ul>
          </details>
        ) : null}
        {pollError ? (
          <p role="alert" className="text-xs text-red-700">
            {pollError}
          </p>
        ) : null}
      </section>
      {rows.length ? (
        <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="tree-h">
          <h2 id="tree-h" className="mb-2 font-semibold">
            Repair tree
          </h2>
          <p className="mb-2 text-xs text-slate-600">
            N visits · Q/N mean judge score of the subtree · r the judge&apos;s score of the node&apos;s trajectory. The best trajectory is green. Open a node to see its bundle beside the source.
          </p>
          <RepairTree rows={rows} selectedId={selectedId} />
        </section>
      ) : null}
      {selected ? <NodeDetails row={selected} caseId={view.nodeCases[selected.id] ?? null} /> : selectedId ? <p className="text-sm text-amber-800">This search has no node &quot;{selectedId}&quot; (yet).</p> : null}
    </div>
  );
}

function UsageLine({ usage }: { usage: Record<"selector" | "judge" | "mas", { calls: number; tokens: number }> }) {
  const parts = (["selector", "judge", "mas"] as const).map((k) => `${k === "mas" ? "MAS" : k} ${usage[k].calls} call(s) / ${usage[k].tokens} token(s)`);
  return (
    <p className="text-xs text-slate-600" data-testid="search-usage">
      {parts.join(" · ")}
    </p>
  );
}

/** The selected node's numbers, verdict and action; every string is rendered as text. */
function NodeDetails({ row: r, caseId }: { row: TreeNodeView; caseId: string | null }) {
  return (
    <section className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4 text-sm" data-testid="node-details" data-node={r.id}>
      <h2 className="font-semibold">
        Node <span className="font-mono">{r.id}</span> · {ACTION_LABEL[r.action]} · depth {r.depth} · iteration {r.iteration}
        {r.onBestPath ? <span className="ml-2 text-emerald-700">(on the best trajectory)</span> : null}
      </h2>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs">
        <dt className="text-slate-500">N / Q / Q/N</dt>
        <dd className="font-mono" data-field="nq">
          {r.visits} / {r.q.toFixed(2)} / {fmtScore(r.meanQ)}
        </dd>
        {r.uct !== null ? (
          <>
            <dt className="text-slate-500">UCT from parent</dt>
            <dd className="font-mono">{Number.isFinite(r.uct) ? r.uct.toFixed(3) : "∞"}</dd>
          </>
        ) : null}
        <dt className="text-slate-500">judge</dt>
        <dd data-field="verdict">
          {r.score === null ? "not judged" : `r = ${fmtScore(r.score)} · ${r.failureMode}${r.foundSolution ? " · found solution" : ""}`}
        </dd>
        {r.feedback ? (
          <>
            <dt className="text-slate-500">feedback</dt>
            <dd className="trace-text" data-field="feedback">{r.feedback}</dd>
          </>
        ) : null}
        {r.checkpoint ? (
          <>
            <dt className="text-slate-500">checkpoint</dt>
            <dd className="font-mono">{r.checkpoint}</dd>
          </>
        ) : null}
        {r.guidance ? (
          <>
            <dt className="text-slate-500">guidance</dt>
            <dd className="trace-text rounded bg-slate-50 p-1 font-mono" data-field="guidance">{r.guidance}</dd>
          </>
        ) : null}
        {r.storedGuidance && r.storedGuidance !== r.guidance ? (
          <>
            <dt className="text-slate-500">stored guidance</dt>
            <dd className="trace-text font-mono">{r.storedGuidance}</dd>
          </>
        ) : null}
        <dt className="text-slate-500">rollout</dt>
        <dd>
          {r.liveSteps === null ? "not built" : `${r.liveSteps} live LLM step(s)`}
          {r.finished ? " · the MAS run ended" : ""}
        </dd>
        {r.error ? (
          <>
            <dt className="text-slate-500">error</dt>
            <dd className="trace-text text-red-700">{r.error}</dd>
          </>
        ) : null}
      </dl>
      {!caseId ? <p className="text-xs text-slate-600">This node&apos;s bundle is not stored as a case.</p> : null}
    </section>
  );
}
