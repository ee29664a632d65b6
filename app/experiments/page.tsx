import type { Metadata } from "next";
import Link from "next/link";
import { getDb, listExperiments, pooledViewGate } from "@/lib/db";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { ExperimentList } from "@/components/experiments/experiment-list";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiments" };

/** Repair experiments (issue 13), newest first: name, status, progress, created. Researchers and admins. */
export default async function ExperimentsPage() {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "experiments");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const list = await listExperiments(getDb());
  const rows = list.map((e) => ({
    id: e.id,
    name: e.name,
    status: e.status,
    methods: e.methods,
    caseCount: e.caseCount,
    attempts: e.attempts,
    done: e.progress.done,
    rows: e.progress.rows,
    createdAt: e.createdAt.toISOString(),
    createdBy: e.createdBy?.name ?? null,
  }));
  return (
    <div className="flex flex-col gap-4">
      <div className="flex items-center justify-between">
        <h1 className="text-xl font-semibold">Experiments</h1>
        <Link href="/experiments/new" className="rounded bg-blue-700 px-3 py-1.5 text-sm text-white" data-testid="new-experiment-link">
          New experiment
        </Link>
      </div>
      <p className="text-sm text-slate-600">
        Repair methods compared over the same failed cases under the same budget (seeds/000 §5). Start one with <Link className="text-blue-700 underline" href="/experiments/new">New experiment</Link> or{" "}
        <code className="rounded bg-slate-100 px-1">npm run symtrace -- experiment run …</code>; a finished experiment never changes.
      </p>
      <p className="text-sm">
        <Link className="text-blue-700 underline" href="/experiments/attribution">
          Failure attribution on Who&amp;When
        </Link>{" "}
        — which agent and step caused a failure: the Who&amp;When paper&apos;s attributors and the detector, per subset.
      </p>
      <section className="rounded border border-slate-200 bg-white p-4">
        <ExperimentList rows={rows} />
      </section>
    </div>
  );
}
