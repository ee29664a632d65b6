"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { isFailedStatus } from "@/lib/bundle/schema";
import { memo, useEffect, useMemo, useRef } from "react";
import { timingCells, traceStartNs, type GraphNodeLite } from "@/lib/layout";
import { NODE_TYPE_TONE, Badge } from "@/components/ui/badge";
import { ImportWarningBadge } from "./import-warning-badge";

const ROW = 40;

/**
 * The observed order as a virtualized list (thousands of rows): type, agent, short label, status,
 * and start (offset from the trace's first start), duration and tokens where the trace has them.
 * Clicking a row selects the node; an outside selection scrolls its row into view.
 */
export function Timeline({
  nodes,
  selectedId,
  matches,
  onSelect,
  marks,
}: {
  nodes: GraphNodeLite[];
  selectedId: string | null;
  matches: Set<string>;
  onSelect: (id: string) => void;
  marks?: Map<string, string[]>;
}) {
  const parent = useRef<HTMLDivElement>(null);
  // TanStack Virtual is not React-Compiler-safe; this project does not use the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({ count: nodes.length, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 12 });
  const zero = useMemo(() => traceStartNs(nodes.map((n) => n.timing)), [nodes]);
  const selectedIndex = selectedId ? nodes.findIndex((n) => n.id === selectedId) : -1;
  useEffect(() => {
    if (selectedIndex >= 0) v.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, v]);
  return (
    <div ref={parent} className="h-full overflow-auto" data-testid="timeline" role="listbox" aria-label="Timeline: nodes in observed order">
      <div style={{ height: v.getTotalSize(), position: "relative" }}>
        {v.getVirtualItems().map((item) => {
          const n = nodes[item.index];
          return (
            <TimelineRow
              key={n.id}
              n={n}
              top={item.start}
              isSelected={n.id === selectedId}
              isMatch={matches.has(n.id)}
              onSelect={onSelect}
              marks={marks?.get(n.id)}
              zero={zero}
            />
          );
        })}
      </div>
    </div>
  );
}

const TimelineRow = memo(function TimelineRow({
  n,
  top,
  isSelected,
  isMatch,
  onSelect,
  marks,
  zero,
}: {
  n: GraphNodeLite;
  zero: string | null;
  top: number;
  isSelected: boolean;
  isMatch: boolean;
  /** Called with the node id and its row (observed-order position). */
  onSelect: (id: string, orderIndex: number) => void;
  marks?: string[];
}) {
  const t = timingCells(n.timing, zero);
  return (
    <div
      role="option"
      aria-selected={isSelected}
      data-node-id={n.id}
      data-order-index={n.orderIndex}
      data-match={isMatch || undefined}
      onClick={() => onSelect(n.id, n.orderIndex)}
      style={{ position: "absolute", top, left: 0, right: 0, height: ROW }}
      className={`flex cursor-pointer flex-col justify-center border-b border-slate-100 px-2 text-xs ${
        isSelected ? "bg-blue-100" : isMatch ? "bg-amber-50" : "hover:bg-slate-50"
      }`}
    >
      <span className="flex items-center gap-1.5">
        <span className="w-8 text-right tabular-nums text-slate-400">{n.orderIndex}</span>
        <Badge tone={NODE_TYPE_TONE[n.type] ?? "slate"}>{n.type}</Badge>
        <span className="truncate text-slate-600" title={n.agent ?? ""}>
          {n.agent ?? ""}
        </span>
        {isFailedStatus(n.status) ? <Badge tone="red">{n.status}</Badge> : null}
        <ImportWarningBadge warnings={n.warnings} />
        {marks?.map((m) => (
          <span key={m} className="rounded bg-indigo-600 px-1 text-[10px] font-semibold text-white" data-mark={m}>
            {m}
          </span>
        ))}
        {t.start || t.duration || t.tokens ? (
          <span className="ml-auto flex shrink-0 gap-1.5 tabular-nums text-[10px] text-slate-500">
            {t.start ? (
              <span data-testid="timeline-start" title={`started ${t.startTitle}`}>
                {t.start}
              </span>
            ) : null}
            {t.duration ? (
              <span data-testid="timeline-duration" title="duration">
                {t.duration}
              </span>
            ) : null}
            {t.tokens ? (
              <span data-testid="timeline-tokens" title={t.tokensTitle}>
                {t.tokens}
              </span>
            ) : null}
          </span>
        ) : null}
        {isMatch ? <span className="ml-auto rounded bg-amber-300 px-1 text-[10px] font-semibold">match</span> : null}
      </span>
      <span className="truncate pl-9.5 text-slate-800" title={`${n.id}: ${n.label ?? ""}`}>
        {n.label ?? n.id}
        {n.label ? <span className="ml-2 font-mono text-[10px] text-slate-400">{n.id}</span> : null}
      </span>
    </div>
  );
});

/**
 * The timeline of a large (windowed) trace (issue 16): the observed order as a virtualized list of
 * `count` rows, of which only the loaded windows have content (`getRow`); rows scrolled into view
 * are asked for (`needRows`, fetched by the inspector in blocks) and show a placeholder until
 * their window arrives. Start offsets are from `timeZeroNs` (the case's time origin). Clicking a
 * row selects the node; an outside selection scrolls its row into view.
 */
export function WindowedTimeline({
  count,
  getRow,
  needRows,
  selected,
  matches,
  onSelect,
  marks,
  timeZeroNs,
}: {
  count: number;
  getRow: (row: number) => GraphNodeLite | undefined;
  needRows: (first: number, last: number) => void;
  selected: { id: string; orderIndex: number } | null;
  matches: Set<string>;
  onSelect: (id: string, orderIndex: number) => void;
  marks?: Map<string, string[]>;
  timeZeroNs: string | null;
}) {
  const parent = useRef<HTMLDivElement>(null);
  // start at the selected row (a deep link far down the trace), so the first rows asked for are the loaded ones
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({ count, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 12, initialOffset: () => Math.max(0, (selected?.orderIndex ?? 0) * ROW - 4 * ROW) });
  const items = v.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (count > 0) needRows(first, last);
  }, [first, last, count, needRows]);
  const selectedRow = selected?.orderIndex ?? -1;
  useEffect(() => {
    if (selectedRow >= 0) v.scrollToIndex(selectedRow, { align: "auto" });
  }, [selectedRow, v]);
  return (
    <div ref={parent} className="h-full overflow-auto" data-testid="timeline" data-windowed="true" role="listbox" aria-label="Timeline: nodes in observed order">
      <div style={{ height: v.getTotalSize(), position: "relative" }}>
        {items.map((item) => {
          const n = getRow(item.index);
          if (!n) {
            return (
              <div key={`row-${item.index}`} data-testid="timeline-placeholder" style={{ position: "absolute", top: item.start, left: 0, right: 0, height: ROW }} className="flex items-center border-b border-slate-100 px-2 text-xs text-slate-400">
                <span className="w-8 text-right tabular-nums">{item.index}</span>
                <span className="ml-2">loading…</span>
              </div>
            );
          }
          return (
            <TimelineRow key={n.id} n={n} top={item.start} isSelected={n.id === selected?.id} isMatch={matches.has(n.id)} onSelect={onSelect} marks={marks?.get(n.id)} zero={timeZeroNs} />
          );
        })}
      </div>
    </div>
  );
}
