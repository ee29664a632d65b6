/**
 * Suspicious-node detection of a stored case (lib/symptoms, rules only), cached in memory per
 * bundle hash, and the earliest-node check of issue 12 item 5.
 *
 * Blindness: detection output is a label. Callers decide who may see the full result
 * (see `maySeeSymptoms`); the earliest-node check returns only the warnings for the chosen node
 * and categories, which the issue allows in the annotation form (it names an upstream rule hit
 * only after the annotator chose a node and a category of that rule).
 */
import { detectSymptoms, EarliestCheckError, earliestNodeWarnings, symptomLayer, type Category, type DetectionResult, type EarliestWarning, type SymptomLayer } from "../symptoms";
import { exportBundle, getCaseBundleHash, mayViewerSeeSymptoms, type Db } from "../db";
import type { Viewer } from "../annotation";
import type { ReplayBundle } from "../bundle";

const MAX_CACHED = 64;
/** bundle hash → graph + detection (insertion order = age; the oldest is dropped past MAX_CACHED). */
const cache = new Map<string, { graph: ReplayBundle["graph"]; detection: DetectionResult }>();

/**
 * Rules-only detection of a case, with its graph. Cached per bundle hash (a re-imported identical
 * bundle hits the cache).
 * @returns null when no such case
 */
export async function caseDetection(db: Db, caseId: string): Promise<{ graph: ReplayBundle["graph"]; detection: DetectionResult } | null> {
  const hash = await getCaseBundleHash(db, { caseId });
  if (!hash) return null;
  const hit = cache.get(hash);
  if (hit) return hit;
  const bundle = await exportBundle(db, { caseId });
  if (!bundle) return null;
  const entry = { graph: bundle.graph, detection: detectSymptoms(bundle) };
  cache.set(hash, entry);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
  return entry;
}

/**
 * The earliest-node warnings for a chosen failure node of a case (lib/symptoms earliestNodeWarnings).
 * @returns null when no such case
 * @throws EarliestCheckError when the node is not in the case
 */
export async function caseEarliestCheck(
  db: Db,
  caseId: string,
  o: { node: string; categories: Category[]; evidence: Array<{ nodeId: string; quote: string }> },
): Promise<EarliestWarning[] | null> {
  const d = await caseDetection(db, caseId);
  if (!d) return null;
  return earliestNodeWarnings({ graph: d.graph, detection: d.detection, chosenNode: o.node, categories: o.categories, evidence: o.evidence });
}

/**
 * The earliest-node warnings for an annotation's fields (what the form shows for that tuple), to
 * record with it at submit/finalize. Undefined when no node is chosen or the node is not in the
 * case (validation reports that separately).
 */
export async function warningsForFields(
  db: Db,
  caseId: string,
  f: { nodeId: string | null; categories: Category[]; evidence: Array<{ nodeId: string; quote: string }> },
): Promise<EarliestWarning[] | undefined> {
  if (!f.nodeId) return undefined;
  try {
    return (await caseEarliestCheck(db, caseId, { node: f.nodeId, categories: f.categories, evidence: f.evidence })) ?? undefined;
  } catch (e) {
    if (e instanceof EarliestCheckError) return undefined;
    throw e;
  }
}

/**
 * The symptom layer of a case for this viewer, or null when the viewer may not see detector
 * output (an annotator before submitting, unless their assignment is assisted: lib/annotation
 * canSeeSymptoms) or there is no such case. Blindness is enforced here, on the server: callers
 * pass the result to the client as is.
 */
export async function symptomLayerFor(db: Db, viewer: Viewer, caseId: string): Promise<SymptomLayer | null> {
  if (!(await mayViewerSeeSymptoms(db, viewer, caseId))) return null;
  const d = await caseDetection(db, caseId);
  if (!d) return null;
  return symptomLayer(d.detection);
}
