/**
 * Suspicious-node detection of a stored case (lib/symptoms, rules only), cached in memory per
 * bundle hash, and the earliest-node check of issue 12 item 5.
 *
 * Blindness: detection output is a label, gated here by lib/db blindnessGate (`detector`): the
 * symptom layer and the earliest-node check's rule-based warnings reach only viewers who may see
 * the detector layer (issue 20 item 2).
 */
import { detectSymptoms, EarliestCheckError, earliestNodeWarnings, symptomLayer, type Category, type DetectionResult, type EarliestWarning, type SymptomLayer } from "../symptoms";
import { blindnessGate, exportBundle, getCaseBundleHash, mayViewerSeeSymptoms, type Db } from "../db";
import type { Viewer } from "../annotation";
import type { ReplayBundle } from "../bundle";
import { readEnv, type Env } from "../env";

const MAX_CACHED = 64;
/** bundle hash → graph + detection (insertion order = age; the oldest is dropped past MAX_CACHED). */
const cache = new Map<string, { graph: ReplayBundle["graph"]; order: string[]; detection: DetectionResult; windowed?: WindowedSymptoms }>();

/**
 * Rules-only detection of a case, with its graph. Cached per bundle hash (a re-imported identical
 * bundle hits the cache).
 * @returns null when no such case
 */
export async function caseDetection(db: Db, caseId: string): Promise<{ graph: ReplayBundle["graph"]; order: string[]; detection: DetectionResult; windowed?: WindowedSymptoms } | null> {
  const hash = await getCaseBundleHash(db, { caseId });
  if (!hash) return null;
  const hit = cache.get(hash);
  if (hit) return hit;
  const bundle = await exportBundle(db, { caseId });
  if (!bundle) return null;
  const entry = { graph: bundle.graph, order: bundle.order, detection: detectSymptoms(bundle) };
  cache.set(hash, entry);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
  return entry;
}

/**
 * The earliest-node warnings for a chosen failure node of a case, as this viewer may see them
 * (lib/symptoms earliestNodeWarnings; issue 20 item 2). Detector-based warnings (a rule of a
 * chosen category firing upstream) need the blindness gate's `detector`: an annotator before
 * submitting gets them only when the assignment is assisted (then recorded as assisted at submit).
 * Otherwise only the checks of the viewer's own inputs run: evidence quotes lying downstream of
 * the chosen node.
 * @returns `{warnings, detector}` (whether detector-based checks ran), or null when no such case
 * @throws EarliestCheckError when the node is not in the case
 */
export async function caseEarliestCheck(
  db: Db,
  viewer: Viewer,
  caseId: string,
  o: { node: string; categories: Category[]; evidence: Array<{ nodeId: string; quote: string }> },
): Promise<{ warnings: EarliestWarning[]; detector: boolean } | null> {
  const [d, gate] = await Promise.all([caseDetection(db, caseId), blindnessGate(db, viewer, { caseId })]);
  if (!d) return null;
  const detection = gate.detector ? d.detection : { nodes: [] };
  return { warnings: earliestNodeWarnings({ graph: d.graph, detection, chosenNode: o.node, categories: o.categories, evidence: o.evidence }), detector: gate.detector };
}

/**
 * The earliest-node warnings for an annotation's fields (what the form showed this viewer for
 * that tuple: caseEarliestCheck), to record with it at submit/finalize. Undefined when no node is
 * chosen or the node is not in the case (validation reports that separately).
 */
export async function warningsForFields(
  db: Db,
  viewer: Viewer,
  caseId: string,
  f: { nodeId: string | null; categories: Category[]; evidence: Array<{ nodeId: string; quote: string }> },
): Promise<EarliestWarning[] | undefined> {
  if (!f.nodeId) return undefined;
  try {
    return (await caseEarliestCheck(db, viewer, caseId, { node: f.nodeId, categories: f.categories, evidence: f.evidence }))?.warnings ?? undefined;
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

/** Default of SYMTRACE_SYMPTOMS_MAX_NODES: largest case whose symptom layer the windowed inspector gets. */
export const DEFAULT_SYMPTOMS_MAX_NODES = 200_000;

/** Largest case (nodes) the symptom layer is computed for in the app (SYMTRACE_SYMPTOMS_MAX_NODES). */
export function symptomsMaxNodes(env: Env = readEnv()): number {
  return env.SYMTRACE_SYMPTOMS_MAX_NODES ?? DEFAULT_SYMPTOMS_MAX_NODES;
}

/**
 * The symptom layer of a large case as the windowed inspector takes it: the anchor, and for every
 * node where a rule fired its id, observed-order row and c_f (parallel arrays, in observed order).
 * A node's rules and evidence come one node at a time (`windowedSymptomNode`).
 */
export interface WindowedSymptoms {
  mode: SymptomLayer["mode"];
  threshold: number;
  anchor: string | null;
  anchorNode: string | null;
  /** Rows (observed order) of `anchor` / `anchorNode`, or null. */
  anchorRow: number | null;
  anchorNodeRow: number | null;
  ids: string[];
  rows: number[];
  cf: number[];
  nodeCount: number;
}

/** Why the windowed symptom layer is not given: 403 (the viewer may not see detector output), 404, 413 (case over the limit). */
export class SymptomsUnavailable extends Error {
  constructor(
    readonly status: 403 | 404 | 413,
    message: string,
  ) {
    super(message);
  }
}

async function windowedDetection(db: Db, viewer: Viewer, caseId: string, env: Env) {
  if (!(await mayViewerSeeSymptoms(db, viewer, caseId))) throw new SymptomsUnavailable(403, "the symptom layer is hidden from you until you submit (blind annotation)");
  const c = await db.case.findUnique({ where: { id: caseId }, select: { nodeCount: true } });
  if (!c) throw new SymptomsUnavailable(404, "no such case");
  const max = symptomsMaxNodes(env);
  if (c.nodeCount > max) throw new SymptomsUnavailable(413, `the symptom layer is computed for cases up to ${max.toLocaleString("en")} nodes (SYMTRACE_SYMPTOMS_MAX_NODES); this one has ${c.nodeCount.toLocaleString("en")}: use \`npm run symtrace -- detect <bundle id>\``);
  const d = await caseDetection(db, caseId);
  if (!d) throw new SymptomsUnavailable(404, "no such case");
  return d;
}

/**
 * The symptom layer of a windowed case (lib/symptoms rules only, over the whole case: computed on
 * first use and cached per bundle hash, like the small-case layer), or SymptomsUnavailable.
 * Blindness as `symptomLayerFor`.
 * @throws SymptomsUnavailable 403 / 404 / 413 (over SYMTRACE_SYMPTOMS_MAX_NODES, default 200,000)
 */
export async function windowedSymptomsFor(db: Db, viewer: Viewer, caseId: string, env: Env = readEnv()): Promise<WindowedSymptoms> {
  const d = await windowedDetection(db, viewer, caseId, env);
  if (d.windowed) return d.windowed;
  const rowOf = new Map(d.order.map((id, i) => [id, i]));
  const x = d.detection;
  const w: WindowedSymptoms = {
    mode: x.mode,
    threshold: x.threshold,
    anchor: x.anchor,
    anchorNode: x.anchorNode,
    anchorRow: x.anchor ? (rowOf.get(x.anchor) ?? null) : null,
    anchorNodeRow: x.anchorNode ? (rowOf.get(x.anchorNode) ?? null) : null,
    ids: x.nodes.map((n) => n.id),
    rows: x.nodes.map((n) => rowOf.get(n.id) ?? -1),
    cf: x.nodes.map((n) => n.cf),
    nodeCount: x.nodeCount,
  };
  d.windowed = w;
  return w;
}

/**
 * One node's part of a windowed case's symptom layer (what SymptomRules shows): a SymptomLayer
 * holding only that node (none when no rule fired on it).
 * @throws SymptomsUnavailable as windowedSymptomsFor
 */
export async function windowedSymptomNode(db: Db, viewer: Viewer, caseId: string, nodeId: string, env: Env = readEnv()): Promise<SymptomLayer> {
  const d = await windowedDetection(db, viewer, caseId, env);
  const layer = symptomLayer({ ...d.detection, nodes: d.detection.nodes.filter((n) => n.id === nodeId) });
  return layer;
}
