/**
 * Pooled binary Fleiss' κ over (trace, failure mode) items, as for MAST/MAD
 * (datasets/mast_mad/SOURCE.md "Three annotators -> Fleiss' kappa possible").
 */
import { fleissKappa } from "./fleiss";

/** Structural input: an importMad ImportedCase satisfies it (bundle.id + referenceLabels). */
export interface BinaryLabelledCase {
  bundle: { id: string };
  referenceLabels: ReadonlyArray<{
    annotator: string;
    failureModes: ReadonlyArray<{ mode: string; code?: string | null; present: boolean | null }>;
  }>;
}

export interface ExcludedItem {
  /** Case (bundle) id, e.g. "mad/generlazability/18". */
  trace: string;
  /** The full mode string as the dataset writes it. */
  mode: string;
  /** The mode's leading code ("3.2", "FM-1.3") when known. */
  code: string | null;
  /** Annotators whose rating is null (NaN in the source) or missing. */
  missing: string[];
}

export interface PooledBinaryResult {
  /** Items used: (trace, mode) pairs with a boolean from every annotator. */
  items: number;
  raters: number;
  kappa: number | null;
  reason: string | null;
  pBar: number;
  pE: number;
  /** Items where all raters agree. */
  unanimous: number;
  /** Items with present = true from a majority. */
  positives: number;
  /** Items left out because a rating is null or missing: counted and listed, never read as false. */
  excluded: { count: number; items: ExcludedItem[] };
  /** Cases skipped entirely (not `raters` annotators), with the reason. */
  skippedCases: Array<{ trace: string; reason: string }>;
}

/**
 * Binary Fleiss' κ pooled over every (trace, failure mode) item (statistics.md §Agreement, Fleiss 1971),
 * items = one per distinct mode string per case, categories = {present, absent}.
 *
 * @param cases e.g. `importMad(text).cases`; each must have exactly `raters` reference labels
 * @param raters annotators per case (default 3)
 * @returns κ over the complete items; items with any null/missing rating are excluded and listed
 */
export function pooledBinaryFleiss(cases: ReadonlyArray<BinaryLabelledCase>, raters = 3): PooledBinaryResult {
  const rows: number[][] = [];
  const excluded: ExcludedItem[] = [];
  const skippedCases: Array<{ trace: string; reason: string }> = [];
  let unanimous = 0;
  let positives = 0;
  for (const c of cases) {
    const labels = c.referenceLabels;
    if (labels.length !== raters) {
      skippedCases.push({ trace: c.bundle.id, reason: `${labels.length} annotators (${raters} required)` });
      continue;
    }
    const modes: string[] = [];
    const seen = new Set<string>();
    const codes = new Map<string, string | null>();
    const byAnnotator = labels.map((l) => {
      const m = new Map<string, boolean | null>();
      for (const fm of l.failureModes) {
        m.set(fm.mode, fm.present);
        if (!codes.has(fm.mode) || codes.get(fm.mode) == null) codes.set(fm.mode, fm.code ?? null);
        if (!seen.has(fm.mode)) {
          seen.add(fm.mode);
          modes.push(fm.mode);
        }
      }
      return m;
    });
    for (const mode of modes) {
      const missing: string[] = [];
      let yes = 0;
      byAnnotator.forEach((m, i) => {
        const v = m.get(mode);
        if (v === true) yes++;
        else if (v !== false) missing.push(labels[i].annotator);
      });
      if (missing.length > 0) {
        excluded.push({ trace: c.bundle.id, mode, code: codes.get(mode) ?? null, missing });
        continue;
      }
      rows.push([yes, raters - yes]);
      if (yes === 0 || yes === raters) unanimous++;
      if (yes * 2 > raters) positives++;
    }
  }
  const base = { raters, unanimous, positives, excluded: { count: excluded.length, items: excluded }, skippedCases };
  if (rows.length === 0) return { items: 0, kappa: null, reason: "no complete items", pBar: 0, pE: 0, ...base };
  const f = fleissKappa(rows);
  return { items: rows.length, kappa: f.kappa, reason: f.reason, pBar: f.pBar, pE: f.pE, ...base };
}
