import type { Metadata } from "next";
import { getDb, listQueue } from "@/lib/db";
import { requireViewer } from "@/lib/session";
import { QueueList } from "@/components/queue/queue-list";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "My queue" };

export default async function QueuePage() {
  const viewer = await requireViewer("annotator", "adjudicator");
  const items = await listQueue(getDb(), viewer);
  const count = (s: string) => items.filter((i) => i.status === s).length;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-baseline gap-4">
        <h1 className="text-xl font-semibold">My queue</h1>
        <p className="text-sm text-slate-600" data-testid="queue-progress">
          {count("done")} done · {count("in_progress")} in progress · {count("todo")} to do
          {count("waiting") ? ` · ${count("waiting")} waiting for annotators` : ""}
        </p>
        <p className="text-xs text-slate-500">j / k to move, Enter to open</p>
      </div>
      <QueueList items={items} />
    </div>
  );
}
