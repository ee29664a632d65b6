/**
 * The case list page's query (issue 22 item 3): server-side keyset pagination (cursor, page size,
 * total) over the filters of listCases, with generated cases — replays, repair-search nodes
 * (sourceDataset "replay") and experiment attempts ("experiment") — left out of the main list by
 * default and shown under their parent instead (a count per row; `parent` lists one case's).
 */
import type { Db } from "./client";
import { caseFilterWhere, caseSummarySelect, type ListCasesOptions } from "./cases";

/** Source datasets of cases the app itself produced from another case. */
export const GENERATED_DATASETS = ["replay", "experiment"] as const;

/** Page size bounds: default 40 (the demo page stays well under 200 KB of HTML), at most 200. */
export const CASE_PAGE_SIZE = { default: 40, max: 200 } as const;

export interface CasePageOptions extends Pick<ListCasesOptions, "benchmark" | "mas" | "dataset" | "q"> {
  /** Opaque cursor from a previous page's `nextCursor` (the last row's sort key). */
  cursor?: string | null;
  /** Rows per page (1–200; default 40). */
  pageSize?: number | null;
  /** Include generated cases in the list (default false, unless `dataset` names a generated dataset or `parent` is set). */
  generated?: boolean;
  /** Only the cases generated from this bundle id (parent = it, or id `<it>~…`: replays, attempts, search nodes). */
  parent?: string | null;
  /** Case ids left out for this viewer (lib/db/visibility `hiddenDerivedCaseIds`: derived cases of a case the viewer is blind on). */
  exclude?: Iterable<string>;
}

/** The sort key (dataset, bundle id) of a row as a cursor string (base64url JSON). */
export function encodeCaseCursor(row: { sourceDataset: string; bundleId: string }): string {
  return Buffer.from(JSON.stringify([row.sourceDataset, row.bundleId]), "utf8").toString("base64url");
}

/**
 * The sort key of a cursor.
 * @throws Error "invalid cursor" when it is not one this module wrote
 */
export function decodeCaseCursor(cursor: string): { sourceDataset: string; bundleId: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string") return { sourceDataset: v[0], bundleId: v[1] };
  } catch {
    /* fall through */
  }
  throw new Error(`invalid cursor ${JSON.stringify(cursor.slice(0, 80))}`);
}

/**
 * One page of the case list, ordered by (source dataset, bundle id).
 * @returns `{ total, cases, nextCursor, generatedCounts, pageSize }`: `total` matches the filters
 *   (all pages), `nextCursor` is null on the last page, `generatedCounts[bundleId]` = generated
 *   cases whose parent is that row's bundle or whose id extends it (`<bundle id>~…`; listed with `parent`).
 * @throws Error for an invalid cursor
 */
export async function listCasePage(db: Db, o: CasePageOptions = {}) {
  const pageSize = Math.min(CASE_PAGE_SIZE.max, Math.max(1, Math.floor(o.pageSize ?? CASE_PAGE_SIZE.default)));
  const filters = await caseFilterWhere(db, o);
  const showGenerated = o.generated === true || !!o.parent || (o.dataset ? (GENERATED_DATASETS as readonly string[]).includes(o.dataset) : false);
  const and: Record<string, unknown>[] = [filters];
  if (!showGenerated) and.push({ sourceDataset: { notIn: [...GENERATED_DATASETS] } });
  const excluded = o.exclude ? [...o.exclude] : [];
  if (o.parent) and.push({ OR: [{ parentBundleId: o.parent }, { bundleId: { startsWith: `${o.parent}~` } }] });
  const where = { AND: and };
  const after = o.cursor ? decodeCaseCursor(o.cursor) : null;
  const pageWhere = after ? { AND: [...and, { OR: [{ sourceDataset: { gt: after.sourceDataset } }, { sourceDataset: after.sourceDataset, bundleId: { gt: after.bundleId } }] }] } : where;
  const [total, rows] = await Promise.all([
    db.case.count({ where }),
    db.case.findMany({ where: pageWhere, select: caseSummarySelect, orderBy: [{ sourceDataset: "asc" }, { bundleId: "asc" }], take: pageSize + 1 }),
  ]);
  const cases = rows.slice(0, pageSize);
  const nextCursor = rows.length > pageSize ? encodeCaseCursor(cases[cases.length - 1]) : null;
  // A generated case belongs to the row it was made from: its parent bundle, or — for runs that
  // restart the MAS (task-level attempts, no parent) — the bundle its id extends (`<source>~…`).
  const onPage = new Set(cases.map((c) => c.bundleId));
  const kids = cases.length
    ? await db.case.findMany({
        where: { sourceDataset: { in: [...GENERATED_DATASETS] }, ...(excluded.length ? { id: { notIn: excluded } } : {}), OR: [{ parentBundleId: { in: [...onPage] } }, ...[...onPage].map((b) => ({ bundleId: { startsWith: `${b}~` } }))] },
        select: { bundleId: true, parentBundleId: true },
      })
    : [];
  const generatedCounts: Record<string, number> = {};
  for (const k of kids) {
    const owner = k.parentBundleId && onPage.has(k.parentBundleId) ? k.parentBundleId : k.bundleId.split("~")[0];
    if (onPage.has(owner)) generatedCounts[owner] = (generatedCounts[owner] ?? 0) + 1;
  }
  return { total, cases, nextCursor, generatedCounts, pageSize };
}
