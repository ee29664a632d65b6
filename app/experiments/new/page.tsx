import type { Metadata } from "next";
import Link from "next/link";
import { getDb, pooledViewGate } from "@/lib/db";
import { METHOD_CATALOG } from "@/lib/experiments/methods";
import { replaySettings } from "@/lib/env";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { NewExperimentForm } from "@/components/experiments/new-experiment-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New experiment" };

/**
 * The New experiment form (issue 22 item 2): cases by filter or by bundle ids, methods, k, seed,
 * budget, and the evaluator and reproduction judge chosen from what the server has configured,
 * after a check that says which cases each evaluator can judge and why the others cannot.
 * Researchers and admins.
 */
export default async function NewExperimentPage() {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "experiments");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const groups = await getDb().case.groupBy({ by: ["sourceDataset"], where: { sourceDataset: { notIn: ["replay", "experiment"] } }, _count: { _all: true }, orderBy: { sourceDataset: "asc" } });
  const datasets = groups.map((g) => ({ name: g.sourceDataset, cases: g._count._all }));
  const r = replaySettings();
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm">
        <Link className="text-blue-700 underline" href="/experiments">
          ← Experiments
        </Link>
      </p>
      <h1 className="text-xl font-semibold">New experiment</h1>
      <p className="text-sm text-slate-600">
        Every arm runs against the server&apos;s endpoint{r.upstream ? <> (<code className="rounded bg-slate-100 px-1">{r.upstream}</code>{r.scripted ? ", the demo's scripted stand-in model" : ""})</> : " — none is configured (SYMTRACE_REPLAY_UPSTREAM), so an experiment cannot start"}. Check the cases first: an
        experiment is refused when its evaluator cannot judge one of them.
      </p>
      <NewExperimentForm datasets={datasets} methods={METHOD_CATALOG.map((m) => ({ name: m.name, label: m.label }))} />
    </div>
  );
}
