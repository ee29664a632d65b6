import type { Metadata } from "next";
import { AttributionTable } from "@/components/attribution/attribution-table";
import { CancelAttributionRunButton } from "@/components/attribution/cancel-run-button";
import { FollowAttributionRun } from "@/components/attribution/follow-run";
import { NewAttributionRunForm } from "@/components/attribution/new-run-form";
import { ResumeAttributionRunForm } from "@/components/attribution/resume-run-form";
import { LATER_BEST } from "@/lib/attribution";
import { getDb, pooledViewGate } from "@/lib/db";
import { attributionAppOptions, canCancel, resumeRefusal } from "@/lib/services/attribution/app-start";
import { attributionRunTable, listAttributionRuns } from "@/lib/services/attribution/runs";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Failure attribution" };

/**
 * Failure attribution on Who&When (issue 24): the runs stored in the database (made by `symtrace
 * detect --eval --attribution` or this page's New run form), the table of one (?run=<name>,
 * default the first by name) with its progress — followed while the workers run it — Cancel for a
 * running run, and Resume for a run stopped at its budget, cancelled, or with failed jobs.
 * Researchers and admins.
 */
export default async function AttributionPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "attribution");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const sp = await searchParams;
  const runs = await listAttributionRuns(getDb());
  const name = typeof sp.run === "string" ? sp.run : runs[0]?.name;
  const t = name ? await attributionRunTable(getDb(), name) : null;
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Failure attribution (Who&amp;When)</h1>
      <p className="text-sm text-slate-600">
        Which agent, which step (Zhang et al., ICML 2025). Start a run with the form below (its jobs are run by the app&apos;s workers), or from the command line with{" "}
        <code className="rounded bg-slate-100 px-1">npm run symtrace -- detect --eval --attribution --dir ../shared/datasets/who_and_when_full --run &lt;name&gt;</code> (add{" "}
        <code className="rounded bg-slate-100 px-1">--background</code> to leave the jobs to the workers); published figures: Table 1 of the paper (GPT-4o, with ground truth); {LATER_BEST}.
      </p>
      {runs.length ? (
        <nav className="flex flex-wrap gap-2 text-sm" data-testid="attribution-runs">
          {runs.map((r) => (
            <a key={r.id} href={`/experiments/attribution?run=${encodeURIComponent(r.name)}`} className={r.name === name ? "font-semibold" : "text-blue-700 underline"}>
              {r.name} ({r.progress.done}/{r.progress.total}, {r.status})
            </a>
          ))}
        </nav>
      ) : null}
      {t ? (
        <section className="rounded border border-slate-200 bg-white p-4">
          <p className="mb-2 flex flex-wrap gap-3 text-xs text-slate-500">
            <span>run {t.name}</span>
            <span>model {t.run.plan.model ?? "none (baselines only)"}</span>
            <span>seed {t.run.plan.seed}</span>
            <span>status {t.run.status}</span>
            <span data-testid="attribution-progress">
              {t.progress.finished} of {t.progress.total} jobs finished{t.progress.failed ? `, ${t.progress.failed} failed (retried on rerun)` : ""}
            </span>
            <span>
              spent {t.run.spent.httpCalls} calls, {t.run.spent.tokens} tokens
              {t.run.budget.maxCalls != null || t.run.budget.maxTokens != null ? ` (budget ${t.run.budget.maxCalls ?? "∞"} calls, ${t.run.budget.maxTokens ?? "∞"} tokens)` : ""}
            </span>
            <a className="text-blue-700 underline" href={`/api/experiments/attribution?run=${encodeURIComponent(t.name)}&format=csv`}>
              Download CSV (attribution table)
            </a>
            <FollowAttributionRun active={t.run.progress.running > 0 || (t.run.status === "running" && t.run.progress.queued > 0)} />
            {canCancel(t.run) ? <CancelAttributionRunButton name={t.name} queued={t.run.progress.queued} /> : null}
          </p>
          {resumeRefusal(t.run) === null ? (
            <div className="mb-3">
              <ResumeAttributionRunForm
                name={t.name}
                budget={t.run.budget}
                spent={t.run.spent}
                reason={
                  t.run.status === "budget-exhausted"
                    ? `Stopped at its budget: ${t.run.progress.queued} job(s) not run.`
                    : t.run.status === "cancelled"
                      ? `Cancelled: ${t.run.progress.queued} job(s) not run${t.run.progress.error ? `, ${t.run.progress.error} failed` : ""}.`
                      : `${t.run.progress.error} job(s) failed.`
                }
              />
            </div>
          ) : null}
          <AttributionTable rows={t.rows} />
        </section>
      ) : (
        <p className="text-sm text-slate-600">{name ? `No attribution run named "${name}".` : "No attribution run yet."}</p>
      )}
      <NewAttributionRunForm options={await attributionAppOptions(getDb(), viewer)} />
    </div>
  );
}
