import type { Metadata } from "next";
import Link from "next/link";
import { caseVerdicts, getDb, hiddenDerivedCaseIds, listCaseFacets, listCases } from "@/lib/db";
import { CaseFilters } from "@/components/trace/case-filters";
import { CaseTable } from "@/components/trace/case-table";
import { caseListQuerySchema } from "@/lib/schemas/cases";
import { requireViewer } from "@/lib/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Cases" };

export default async function CasesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer();
  const query = caseListQuerySchema.parse(await searchParams);
  // Reference labels are hidden from annotators (blindness): not even their count.
  const showLabels = viewer.roles.some((r) => r === "admin" || r === "researcher" || r === "adjudicator");
  const db = getDb();
  const [{ total, cases: listed }, facets] = await Promise.all([listCases(db, { ...query, take: 500, exclude: await hiddenDerivedCaseIds(db, viewer) }), listCaseFacets(db)]);
  // One verdict per case, the same as the case header and the replay page show (lib/db outcomes).
  const verdicts = await caseVerdicts(db, listed);
  const cases = listed.map((c) => ({ ...c, outcomePassed: verdicts.get(c.id)!.passed, outcomeVia: verdicts.get(c.id)!.via, outcomeEvaluator: verdicts.get(c.id)!.evaluator }));
  return (
    <div className="flex flex-col gap-4">
      <div className="flex items-baseline justify-between">
        <h1 className="text-xl font-semibold">Cases</h1>
        <div className="flex items-baseline gap-4">
          {viewer.roles.some((r) => r === "admin" || r === "researcher") ? (
            <Link href="/import" className="text-sm text-sky-700 underline">
              Import traces
            </Link>
          ) : null}
          <p className="text-sm text-slate-600" data-testid="case-count">
            {total} case{total === 1 ? "" : "s"}
          </p>
        </div>
      </div>
      <CaseFilters values={query} facets={facets} />
      <CaseTable cases={cases} showLabels={showLabels} />
    </div>
  );
}
