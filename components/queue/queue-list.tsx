"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { caseHref } from "@/lib/case-links";
import { Badge, type BadgeTone } from "@/components/ui/badge";

export interface QueueItem {
  assignmentId: string;
  role: "annotator" | "adjudicator";
  status: "todo" | "in_progress" | "done" | "waiting";
  bundleId: string;
  taskPrompt: string;
  benchmark: string | null;
  mas: string | null;
  nodeCount: number;
  submittedInitials?: number;
}

const TONE: Record<QueueItem["status"], BadgeTone> = { todo: "slate", in_progress: "amber", done: "green", waiting: "blue" };
const LABEL: Record<QueueItem["status"], string> = { todo: "to do", in_progress: "in progress", done: "done", waiting: "waiting" };

/** The viewer's assignments; keyboard j/k moves the cursor, Enter opens the case. */
export function QueueList({ items }: { items: QueueItem[] }) {
  const router = useRouter();
  const first = items.findIndex((i) => i.status === "todo" || i.status === "in_progress");
  const [cursor, setCursor] = useState(first < 0 ? 0 : first);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).tagName === "INPUT") return;
      if (e.key === "j" || e.key === "ArrowDown") setCursor((c) => Math.min(items.length - 1, c + 1));
      else if (e.key === "k" || e.key === "ArrowUp") setCursor((c) => Math.max(0, c - 1));
      else if (e.key === "Enter" && items[cursor]) router.push(caseHref(items[cursor].bundleId));
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [items, cursor, router]);
  if (items.length === 0) return <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">Nothing assigned to you yet.</p>;
  return (
    <ol className="divide-y divide-slate-100 rounded border border-slate-200 bg-white" data-testid="queue">
      {items.map((q, i) => (
        <li key={q.assignmentId} aria-current={i === cursor ? "true" : undefined} className={i === cursor ? "bg-blue-50" : ""} data-status={q.status}>
          <Link href={caseHref(q.bundleId)} className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm">
            <Badge tone={TONE[q.status]}>{LABEL[q.status]}</Badge>
            <Badge tone={q.role === "adjudicator" ? "violet" : "slate"}>{q.role}</Badge>
            <span className="font-mono text-xs text-blue-700">{q.bundleId}</span>
            <span className="min-w-0 flex-1 truncate text-slate-700">{q.taskPrompt}</span>
            {q.role === "adjudicator" ? <span className="text-xs text-slate-500">{q.submittedInitials}/3 submitted</span> : null}
          </Link>
        </li>
      ))}
    </ol>
  );
}
