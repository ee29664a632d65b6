/**
 * Suspicious-node detection (Algorithm 3) and anchor selection (eq. 21–34, Algorithm 4) over a
 * replay bundle: the rule pass (scan.ts, a loop over the catalogue of rules.ts), then features,
 * scores and the anchor of the nodes where a rule fired.
 */
import { RULE_BY_ID } from "./rules";
import { scanRules, type RuleScan } from "./scan";
import { eta, scoreNode, THETA, TIER_CONFIDENCE } from "./scores";
import type { DetectionResult, JudgeVerdict, NodeFeatures, NodeSymptoms } from "./types";
import type { ReplayBundle } from "../bundle";

export { scanRules, SymptomInputError } from "./scan";
export type { RuleScan, TriggeredNode } from "./scan";

/**
 * Features, scores and the anchor (eq. 21–34, Algorithm 4) for the triggered nodes of a scan.
 * @param verdicts judge verdicts by node id (absent = rules only: L_v = L_v^r and c̃_LLM = c_r)
 * @param judge "none" or the judge model id
 */
export function finalizeDetection(scan: RuleScan, verdicts: ReadonlyMap<string, JudgeVerdict> | null = null, judge = "none"): DetectionResult {
  const n = scan.nodeCount;
  const out: NodeSymptoms[] = [];
  let anchor: string | null = null;
  let anchorNode: string | null = null;
  for (const t of scan.triggered) {
    const v = verdicts?.get(t.node.id);
    const confirmed = v ? t.triggered.filter((k) => v.confirmed.includes(k)) : t.triggered.slice();
    let cl = 0;
    let crr = 0;
    let local = false;
    for (const r of t.rules) {
      if (!confirmed.includes(r.category)) continue;
      const conf = TIER_CONFIDENCE[r.tier];
      if (conf > crr) crr = conf;
      if (r.tier !== "propagated") {
        local = true;
        if (conf > cl) cl = conf;
      }
    }
    const features: NodeFeatures = {
      cl,
      cr: crr,
      Ip: confirmed.length > 0 && !local ? 1 : 0,
      rho: n > 1 ? t.position / (n - 1) : 0,
      Ia: t.node.type === "agent_action" || t.node.type === "tool_call" ? 1 : 0,
      If: t.node.type === "final_result" ? 1 : 0,
      eta: eta(t.node.type),
    };
    const cLLM = v ? Math.min(1, Math.max(0, v.confidence)) : crr;
    const scores = confirmed.length ? scoreNode(features, confirmed, cLLM) : { Sr: 0, Ss: 0, cMix: 0, cf: 0 };
    const eligible = confirmed.length > 0 && scores.cf >= THETA;
    out.push({ id: t.node.id, type: t.node.type, position: t.position, rules: t.rules, triggered: t.triggered, categories: confirmed, runtimeFailure: t.runtimeFailure, features, cLLM, ...scores, eligible, boundary: t.boundary });
    if (eligible && anchorNode === null) {
      if (!scan.replayable) anchorNode = t.node.id;
      else if (t.boundary) {
        anchor = t.boundary;
        anchorNode = t.node.id;
      }
    }
  }
  return { bundleId: scan.bundleId, threshold: THETA, judge, mode: verdicts ? "rules + judge" : "rules only", anchor, anchorNode, replayable: scan.replayable, nodes: out, nodeCount: n };
}

/**
 * Rules-only detection (no judge): Table 10 rules, S(v), features, S_r/S_s/c_mix/c_f and the anchor.
 * c̃_LLM(v) is c_r(v) (README §"Without a judge"). Deterministic; O(nodes + edges + content).
 * @throws SymptomInputError for a bundle whose order/edges name unknown nodes
 */
export function detectSymptoms(bundle: ReplayBundle): DetectionResult {
  return finalizeDetection(scanRules(bundle));
}

/** Rule info (category, tier, Table 10 clause) of a rule id, or undefined. */
export function ruleInfo(id: string) {
  return RULE_BY_ID.get(id);
}
