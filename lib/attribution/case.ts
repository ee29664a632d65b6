/**
 * An {@link AttributionCase} from an imported Who&When replay bundle (lib/importers/who-and-when.ts):
 * one node `msg_<i>` per `history[i]`, in order, so step i is node i. Agent identity is the
 * message's `role` in Hand-Crafted and its `name` in Algorithm-Generated (the benchmark's own
 * convention: the paper's code indexes agents by "role" if hand-crafted else "name").
 */
import type { ReplayBundle } from "../bundle";
import type { AttributionCase, AttributionStep, Subset } from "./types";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** A bundle that is not an attribution case (names what is missing). */
export class AttributionCaseError extends Error {
  constructor(
    readonly caseId: string,
    message: string,
  ) {
    super(`case "${caseId}": ${message}`);
    this.name = "AttributionCaseError";
  }
}

/**
 * Build the case.
 * @param bundle a Who&When bundle (`source.subset`, `referenceLabels` with source
 *   "who_and_when", nodes with content `{role, name, text}`)
 * @throws AttributionCaseError when the subset is unknown or a node has no text/role
 */
export function attributionCaseFromBundle(bundle: ReplayBundle): AttributionCase {
  const extra = bundle as unknown as Rec; // buildBundle spreads `extra` (source, referenceLabels) into the top level
  const source = isRec(extra.source) ? extra.source : {};
  const subset = source.subset;
  if (subset !== "Hand-Crafted" && subset !== "Algorithm-Generated") throw new AttributionCaseError(bundle.id, `source.subset is ${JSON.stringify(subset ?? null)}, expected Hand-Crafted or Algorithm-Generated`);
  const hc = subset === "Hand-Crafted";
  const steps: AttributionStep[] = bundle.graph.nodes.map((n, index) => {
    const c = isRec(n.content) ? n.content : {};
    if (typeof c.role !== "string" || typeof c.text !== "string") throw new AttributionCaseError(bundle.id, `node ${n.id}: content.role and content.text must be strings`);
    const agent = hc ? c.role : typeof c.name === "string" ? c.name : c.role;
    return { index, nodeId: n.id, agent, text: c.text };
  });
  const labels = Array.isArray(extra.referenceLabels) ? extra.referenceLabels.filter(isRec) : [];
  const ww = labels.find((l) => l.source === "who_and_when");
  const stepIdx = ww && typeof ww.nodeId === "string" ? steps.findIndex((s) => s.nodeId === ww.nodeId) : -1;
  const task: Rec = isRec(bundle.task) ? bundle.task : {};
  const ref: Rec = isRec(task.reference) ? task.reference : {};
  const gt = ref.ground_truth;
  return {
    caseId: bundle.id,
    subset: subset as Subset,
    question: typeof task.prompt === "string" ? task.prompt : "",
    groundTruth: gt === null || gt === undefined ? null : typeof gt === "string" ? gt : JSON.stringify(gt),
    steps,
    reference: { agent: ww && typeof ww.agent === "string" ? ww.agent : null, step: stepIdx >= 0 ? stepIdx : null },
    bundle,
  };
}

/** "Orchestrator (thought)" → "Orchestrator"; other names unchanged (trimmed). */
export function baseAgent(name: string): string {
  const t = name.trim();
  return t.replace(/\s*\([^)]*\)\s*$/, "").trim() || t;
}

/**
 * Is the predicted agent the labelled one? Case-insensitive, after trimming, Markdown emphasis
 * removed and a Magentic-One role suffix "(…)" dropped on both sides (the label says
 * "Orchestrator", the log's role "Orchestrator (thought)").
 */
export function agentMatches(predicted: string | null, reference: string | null): boolean {
  if (predicted === null || reference === null) return false;
  const norm = (s: string) => baseAgent(s.replace(/[*`]/g, "")).toLowerCase();
  return norm(predicted) === norm(reference);
}
