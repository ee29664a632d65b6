"use client";

import Link from "next/link";
import type { ElkNode } from "elkjs/lib/elk.bundled.js";
import { useEffect, useMemo, useState } from "react";
import { fmtScore, treeEdges, treeElkInput, type NodeActionKind, type TreeNodeView } from "@/lib/repair-search/view";
import { Badge, type BadgeTone } from "@/components/ui/badge";

export const CARD_W = 236;
export const CARD_H = 132;

export const ACTION_TONE: Record<NodeActionKind, BadgeTone> = { root: "slate", rollback: "amber", guided_repair: "violet", continuation: "blue" };
export const ACTION_LABEL: Record<NodeActionKind, string> = { root: "source (τ_fail)", rollback: "rollback", guided_repair: "guided repair", continuation: "continuation" };

type Positions = Map<string, { x: number; y: number }>;
type Layout = { key: string; pos: Positions | null; width: number; height: number; error: string | null };

/**
 * ELK (mrtree) positions of the tree's cards, recomputed only when the tree's shape (node ids and
 * parents) changes, not on every poll. ELK runs on the main thread, loaded on demand: a tree has at
 * most N_iter + 1 nodes (76 by default), a few ms of layout. (A Web Worker running elkjs's bundled
 * build, as lib/layout/elk.worker.ts does, never answered in the Playwright run here — likely its
 * worker-mode dispatcher claims the worker's message channel — so this view does not use one.)
 */
function useTreeLayout(rows: readonly TreeNodeView[]): Layout {
  const shape = rows.map((r) => `${r.id}<${r.parentId ?? ""}`).join(",");
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the shape on purpose
  const graph = useMemo(() => treeElkInput(rows, CARD_W, CARD_H), [shape]);
  const [state, setState] = useState<Layout>({ key: "", pos: null, width: 0, height: 0, error: null });
  useEffect(() => {
    let live = true;
    (async () => {
      try {
        const ELK = (await import("elkjs/lib/elk.bundled.js")).default;
        const out: ElkNode = await new ELK().layout(graph as ElkNode);
        if (live) setState({ key: shape, pos: new Map((out.children ?? []).map((c) => [c.id, { x: c.x ?? 0, y: c.y ?? 0 }])), width: out.width ?? 0, height: out.height ?? 0, error: null });
      } catch (e) {
        if (live) setState({ key: shape, pos: null, width: 0, height: 0, error: e instanceof Error ? e.message : String(e) });
      }
    })();
    return () => {
      live = false;
    };
  }, [graph, shape]);
  // the previous layout stays until a grown tree is laid out (new cards wait for their position)
  return state;
}

/**
 * The repair tree (issue 15 item 4): one card per node with N, Q/N, the judge's score and failure
 * mode, the action and its guidance; the best trajectory (root → best node) drawn in green. A card
 * links to `?node=<id>` (its bundle beside the source, below). Guidance is text, never HTML.
 */
export function RepairTree({ rows, selectedId }: { rows: TreeNodeView[]; selectedId: string | null }) {
  const { pos, width, height, error } = useTreeLayout(rows);
  const edges = treeEdges(rows);
  if (!pos) {
    // before the layout (or if ELK fails): the same cards, indented by depth
    return (
      <div data-testid="repair-tree" data-layout={error ? "error" : "pending"} className="flex flex-col gap-2">
        {error ? <p role="alert" className="text-xs text-red-700">Tree layout failed: {error}; showing an indented list.</p> : <p className="text-xs text-slate-500">Laying out the tree…</p>}
        {rows.map((r) => (
          <div key={r.id} style={{ marginLeft: r.depth * 32, width: CARD_W }}>
            <NodeCard row={r} selected={r.id === selectedId} />
          </div>
        ))}
      </div>
    );
  }
  const w = Math.max(width, ...[...pos.values()].map((p) => p.x + CARD_W)) + 8;
  const h = Math.max(height, ...[...pos.values()].map((p) => p.y + CARD_H)) + 8;
  return (
    <div data-testid="repair-tree" data-layout="elk" className="max-h-[70vh] overflow-auto rounded border border-slate-100 bg-slate-50">
      <div className="relative" style={{ width: w, height: h }}>
        <svg className="pointer-events-none absolute inset-0" width={w} height={h} aria-hidden>
          {edges.map((e) => {
            const a = pos.get(e.from);
            const b = pos.get(e.to);
            if (!a || !b) return null;
            const x1 = a.x + CARD_W / 2;
            const y1 = a.y + CARD_H;
            const x2 = b.x + CARD_W / 2;
            const y2 = b.y;
            const my = (y1 + y2) / 2;
            return (
              <path
                key={`${e.from}-${e.to}`}
                data-edge={`${e.from}->${e.to}`}
                data-best={e.best ? "true" : "false"}
                d={`M ${x1} ${y1} V ${my} H ${x2} V ${y2}`}
                fill="none"
                stroke={e.best ? "#059669" : "#cbd5e1"}
                strokeWidth={e.best ? 3 : 1.5}
              />
            );
          })}
        </svg>
        {rows.map((r) => {
          const p = pos.get(r.id);
          if (!p) return null;
          return (
            <div key={r.id} className="absolute" style={{ left: p.x + 4, top: p.y + 4, width: CARD_W }}>
              <NodeCard row={r} selected={r.id === selectedId} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** One tree node: id, action, N, Q/N, score, failure mode, guidance (clamped; full text in the title). */
export function NodeCard({ row: r, selected }: { row: TreeNodeView; selected: boolean }) {
  const border = selected ? "border-blue-600 ring-2 ring-blue-300" : r.onBestPath ? "border-emerald-600 ring-1 ring-emerald-300" : r.error ? "border-red-300" : "border-slate-300";
  return (
    <Link
      href={`?node=${encodeURIComponent(r.id)}`}
      scroll={false}
      data-tree-node={r.id}
      data-best-path={r.onBestPath ? "true" : "false"}
      data-best={r.isBest ? "true" : "false"}
      aria-current={selected ? "true" : undefined}
      className={`flex flex-col gap-1 rounded border bg-white p-2 text-xs shadow-sm hover:bg-slate-50 ${border}`}
      style={{ height: CARD_H - 8 }}
    >
      <span className="flex items-center gap-1">
        <span className="font-mono font-semibold">{r.id}</span>
        <Badge tone={ACTION_TONE[r.action]}>
          <span data-field="action">{ACTION_LABEL[r.action]}</span>
        </Badge>
        {r.isBest ? <Badge tone="green">best</Badge> : null}
        {r.error ? <Badge tone="red">error</Badge> : null}
      </span>
      <span className="flex flex-wrap gap-x-2 font-mono text-slate-700">
        <span>
          N <span data-field="visits">{r.visits}</span>
        </span>
        <span>
          Q/N <span data-field="mean-q">{fmtScore(r.meanQ)}</span>
        </span>
        <span>
          r <span data-field="score">{fmtScore(r.score)}</span>
        </span>
      </span>
      <span className="truncate text-slate-600" data-field="failure-mode">
        {r.failureMode ?? (r.action === "root" ? "not judged" : "—")}
        {r.checkpoint ? ` · @${r.checkpoint}` : ""}
      </span>
      {r.guidance ? (
        <span className="trace-text line-clamp-2 text-slate-800" title={r.guidance} data-field="guidance">
          Δ {r.guidance}
        </span>
      ) : r.error ? (
        <span className="trace-text line-clamp-2 text-red-700" title={r.error}>
          {r.error}
        </span>
      ) : null}
    </Link>
  );
}
