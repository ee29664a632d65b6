import type { Metadata } from "next";
import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { caseRowsForViewer, caseVerdicts, getDb, hiddenDerivedCaseIds, listCaseFacets, listCasePage } from "@/lib/db";
import { CaseFilters } from "@/components/trace/case-filters";
import { CaseTable } from "@/components/trace/case-table";
import { caseListQuerySchema } from "@/lib/schemas/cases";
import { requireViewer } from "@/lib/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Cases" };

/**
 * The case list (issue 22 item 3): one page at a time from the server (cursor, page size, total),
 * filters and search kept in the URL across pages; generated cases (replays, experiment attempts,
 * search nodes) are not in the main list unless asked for, but counted and linked under their parent.
 */
export default async function CasesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer();
  const query = caseListQuerySchema.parse(await searchParams);
  // Reference labels are hidden from annotators (blindness): not even their count — the column
  // for those whose role may see labels, and per row withheld where the viewer is blind (lib/db caseRowsForViewer).
  const showLabels = viewer.roles.some((r) => r === "admin" || r === "researcher" || r === "adjudicator");
  const db = getDb();
  const exclude = await hiddenDerivedCaseIds(db, viewer);
  const size = Number(query.size ?? "") || undefined;
  const from = Math.max(1, Number(query.from ?? "1") || 1);
  let page;
  try {
    page = await listCasePage(db, { q: query.q, benchmark: query.benchmark, mas: query.mas, dataset: query.dataset, generated: query.generated === "1", parent: query.parent, cursor: query.cursor, pageSize: size, exclude });
  } catch {
    // An invalid cursor (edited URL): the first page.
    page = await listCasePage(db, { q: query.q, benchmark: query.benchmark, mas: query.mas, dataset: query.dataset, generated: query.generated === "1", parent: query.parent, pageSize: size, exclude });
  }
  const facets = await listCaseFacets(db);
  const { total, cases: listed, nextCursor, generatedCounts, pageSize } = page;
  // One verdict per case, the same as the case header and the replay page show (lib/db outcomes).
  const [verdicts, rows] = await Promise.all([caseVerdicts(db, listed, viewer), caseRowsForViewer(db, viewer, listed)]);
  const cases = rows.map((c) => ({ ...c, outcomePassed: verdicts.get(c.id)!.passed, outcomeVia: verdicts.get(c.id)!.via, outcomeEvaluator: verdicts.get(c.id)!.evaluator }));
  const keep = (o: Record<string, string | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ q: query.q, benchmark: query.benchmark, mas: query.mas, dataset: query.dataset, generated: query.generated, parent: query.parent, size: query.size, ...o })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `/cases?${s}` : "/cases";
  };
  const first = query.cursor ? from : 1;
  const last = first + cases.length - 1;
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
      {query.parent ? (
        <p className="text-sm text-slate-600" data-testid="parent-filter">
          Generated from{" "}
          <Link className="font-mono text-blue-700 underline" href={caseHref(query.parent)}>
            {query.parent}
          </Link>{" "}
          (replays, experiment attempts, search nodes) ·{" "}
          <Link className="text-blue-700 underline" href={keep({ parent: undefined })}>
            all cases
          </Link>
        </p>
      ) : null}
      <CaseFilters values={query} facets={facets} generated={query.generated === "1"} hidden={{ parent: query.parent, size: query.size }} />
      <CaseTable cases={cases} showLabels={showLabels} generatedCounts={generatedCounts} />
      {total > 0 ? (
        <nav className="flex items-center gap-4 text-sm text-slate-600" data-testid="case-pages" aria-label="Pages">
          <span data-testid="case-range">
            {cases.length ? `${first}–${last}` : "0"} of {total}
          </span>
          {query.cursor ? (
            <Link className="text-blue-700 underline" href={keep({})}>
              First page
            </Link>
          ) : null}
          {nextCursor ? (
            <Link className="text-blue-700 underline" href={keep({ cursor: nextCursor, from: String(last + 1) })} data-testid="next-page" rel="next">
              Next {pageSize} →
            </Link>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}
