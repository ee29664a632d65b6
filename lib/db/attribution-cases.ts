/**
 * Who&When cases already imported into the database, as a source of an attribution run started
 * from the app (issue 24): how many there are per subset, and their bundles. A run reads every
 * case's reference label (it scores against it), so both go through the all-cases blindness gate
 * (./visibility.ts, like the agreement dashboard and releases): closed while the viewer has an own
 * annotator assignment not yet submitted. The same lock holds for a run over the shipped dataset
 * folders (`attributionRunRefusal`): they hold the same labels.
 */
import { SUBSETS, type Subset } from "../attribution";
import type { ReplayBundle } from "../bundle";
import type { Viewer } from "../annotation";
import { AttributionRunError } from "./attribution-runs";
import { exportBundle } from "./cases";
import type { Db } from "./client";
import { blindnessGate } from "./visibility";

/** The `sourceDataset` of imported Who&When cases. */
export const WHO_AND_WHEN_DATASET = "who_and_when";

/** The database's Who&When cases per subset for this viewer, or why they cannot be used. */
export interface DbWhoWhenCases {
  /** null: usable; else the reason (the blindness gate is closed). */
  refused: string | null;
  /** Subsets with at least one case, in SUBSETS order (empty when refused). */
  subsets: Array<{ subset: Subset; cases: number }>;
}

/**
 * Why this viewer may not start (or resume) an attribution run, whatever its source: a run reads
 * the reference label of every case it scores — the shipped dataset folders hold the same labels as
 * the imported cases — so it is locked while the all-cases gate is closed. Null: allowed.
 */
export async function attributionRunRefusal(db: Db, viewer: Viewer): Promise<string | null> {
  return gateRefusal(db, viewer);
}

async function gateRefusal(db: Db, viewer: Viewer): Promise<string | null> {
  const g = await blindnessGate(db, viewer, { allCases: true });
  return g.references ? null : `a run reads the reference labels of every case: not while you have ${g.openOwn} annotator assignment(s) not yet submitted`;
}

/** How many Who&When cases of each subset are imported (generated cases are not Who&When: their dataset is replay/experiment). */
export async function countDbWhoWhenCases(db: Db, viewer: Viewer): Promise<DbWhoWhenCases> {
  const refused = await gateRefusal(db, viewer);
  if (refused) return { refused, subsets: [] };
  const g = await db.case.groupBy({ by: ["sourceSubset"], where: { sourceDataset: WHO_AND_WHEN_DATASET, sourceSubset: { in: [...SUBSETS] } }, _count: { _all: true } });
  const n = new Map(g.map((x) => [x.sourceSubset, x._count._all]));
  return { refused: null, subsets: SUBSETS.filter((s) => n.get(s)).map((s) => ({ subset: s, cases: n.get(s)! })) };
}

/**
 * The bundles of the imported Who&When cases of `subsets`: the first `limit` of each (all when
 * null) in bundle-id order with numbers compared as numbers (…/2 before …/10, as the dataset's
 * files), exported whole (their reference labels and source included).
 * @throws AttributionRunError invalid at "source" when the viewer's blindness gate is closed
 */
export async function dbWhoWhenBundles(db: Db, viewer: Viewer, subsets: readonly Subset[], limit: number | null): Promise<ReplayBundle[]> {
  const refused = await gateRefusal(db, viewer);
  if (refused) throw new AttributionRunError("invalid", refused, "source");
  const out: ReplayBundle[] = [];
  for (const subset of subsets) {
    const rows = await db.case.findMany({ where: { sourceDataset: WHO_AND_WHEN_DATASET, sourceSubset: subset }, select: { id: true, bundleId: true } });
    rows.sort((a, b) => a.bundleId.localeCompare(b.bundleId, "en", { numeric: true }));
    for (const r of limit === null ? rows : rows.slice(0, limit)) {
      const b = await exportBundle(db, { caseId: r.id });
      if (b) out.push(b);
    }
  }
  return out;
}
