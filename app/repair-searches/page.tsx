import type { Metadata } from "next";
import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { getDb, listRepairSearches, pooledViewGate } from "@/lib/db";
import { fmtScore } from "@/lib/repair-search/view";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { Badge } from "@/components/ui/badge";
import { STATUS_TONE } from "@/components/repair-search/status";
import { StartSearchForm } from "@/components/repair-search/start-search-form";
import { replaySettings } from "@/lib/env";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Repair searches" };

/** Repair searches (issue 15, MARS), newest first; `?caseId=` keeps one source case's. Researchers and admins. */
export default async function RepairSearchesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "repair-searches");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const q = await searchParams;
  const caseId = typeof q.caseId === "string" && q.caseId ? q.caseId : undefined;
  const list = await listRepairSearches(getDb(), { sourceCaseId: caseId, limit: 200 });
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Repair searches</h1>
      <p className="text-sm text-slate-600">
        Search-based repair (seeds/002, MARS) of one failed case: a tree of verified replay bundles. Start one below (from a case&apos;s searches), with{" "}
        <code className="rounded bg-slate-100 px-1">POST /api/repair-searches</code> or <code className="rounded bg-slate-100 px-1">npm run symtrace -- repair-search …</code>.
        {caseId ? (
          <>
            {" "}
            Showing one case&apos;s searches · <Link className="text-blue-700 underline" href="/repair-searches">all</Link>
          </>
        ) : null}
      </p>
      {caseId ? <StartSearchForm caseId={caseId} scripted={replaySettings().scripted} /> : null}
      <section className="rounded border border-slate-200 bg-white p-4">
        {list.length === 0 ? (
          <p className="text-sm text-slate-600" data-testid="no-searches">No repair searches{caseId ? " for this case" : ""} yet.</p>
        ) : (
          <table className="w-full text-left text-sm" data-testid="repair-search-list">
            <thead className="text-xs text-slate-500">
              <tr>
                <th className="py-1">Search</th>
                <th>Status</th>
                <th>Source case</th>
                <th>Iterations</th>
                <th>Nodes</th>
                <th>Best r</th>
                <th>Evaluator</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {list.map((s) => (
                <tr key={s.id} data-repair-search={s.id}>
                  <td className="py-1">
                    <Link className="font-mono text-blue-700 underline" href={`/repair-searches/${encodeURIComponent(s.id)}`}>
                      {s.id}
                    </Link>
                  </td>
                  <td>
                    <Badge tone={STATUS_TONE[s.status] ?? "slate"}>{s.status}</Badge>
                    {s.error ? (
                      <span className="trace-text block max-w-xs truncate text-xs text-red-700" title={s.error} data-field="error">
                        {s.error}
                      </span>
                    ) : null}
                  </td>
                  <td>
                    <Link className="font-mono text-xs text-blue-700 underline" href={caseHref(s.sourceBundleId)}>
                      {s.sourceBundleId}
                    </Link>
                  </td>
                  <td>{s.state ? `${s.state.iteration} / ${s.state.settings.iterations}` : "—"}</td>
                  <td>{s.state ? s.state.order.length : "—"}</td>
                  <td className="font-mono">{s.state ? fmtScore(s.state.maxR) : "—"}</td>
                  <td>{s.best?.passed === true ? "passed" : s.best?.passed === false ? "failed" : "—"}</td>
                  <td className="text-xs text-slate-600">{new Date(s.createdAt).toISOString().replace("T", " ").slice(0, 16)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
