/**
 * The attributors (issue 24 item 1), each a plug-in {@link Attributor}: two baselines (Random,
 * Last), the suspicious-node detector of lib/symptoms (rules; rules + judge) and the three LLM
 * methods of Zhang et al. (ICML 2025) §4: All-at-Once, Step-by-Step, Binary Search. Pure: every
 * model call goes through the injected {@link AttributionLlm}.
 */
import { seededIndex } from "../stats";
import { detectSymptoms, detectWithJudge, JudgeReplyError, type SymptomJudge } from "../symptoms";
import { baseAgent } from "./case";
import { parseAllAtOnce, parseHalf, parseStepReason, parseStepVerdict } from "./parse";
import { ALL_AT_ONCE_SYSTEM, allAtOncePrompt, BINARY_SEARCH_SYSTEM, binarySearchPrompt, STEP_BY_STEP_SYSTEM, stepByStepPrompt } from "./prompts";
import type { Attribution, AttributeContext, AttributionCase, AttributionLlm, Attributor, AttributorName, LlmRequest } from "./types";

/** A running tally of one case's calls. */
class Meter {
  calls = 0;
  httpCalls = 0;
  prompt = 0;
  completion = 0;
  constructor(readonly llm: AttributionLlm) {}
  async ask(system: string, user: string): Promise<string> {
    const request: LlmRequest = { model: this.llm.model, temperature: 0, messages: [{ role: "system", content: system }, { role: "user", content: user }] };
    const r = await this.llm.complete(request);
    this.calls++;
    if (!r.cached) this.httpCalls++;
    this.prompt += r.usage.prompt;
    this.completion += r.usage.completion;
    return r.text;
  }
  result(agent: string | null, step: number | null, reason: string | null, parseError: string | null): Attribution {
    return { agent, step, reason, calls: this.calls, httpCalls: this.httpCalls, tokens: { prompt: this.prompt, completion: this.completion }, parseError };
  }
}

const noCost = (agent: string | null, step: number | null, reason: string | null): Attribution => ({ agent, step, reason, calls: 0, httpCalls: 0, tokens: { prompt: 0, completion: 0 }, parseError: null });

function needLlm(ctx: AttributeContext, name: string): AttributionLlm {
  if (!ctx.llm) throw new Error(`attributor ${name} needs an LLM endpoint (none configured)`);
  return ctx.llm;
}

/** Keyed uniform draws (lib/stats seededIndex): the same (seed, case) always draws the same. */
export { seededIndex };

/** Random: a uniform agent among the log's agents and, independently, a uniform step (paper Table 1 "Random"). */
export const randomAttributor: Attributor = {
  name: "random",
  usesLlm: false,
  groundTruthVariants: false,
  async attribute(c, ctx) {
    const agents = [...new Set(c.steps.map((s) => baseAgent(s.agent)))];
    const agent = agents[seededIndex(agents.length, ctx.seed, c.caseId, "agent")];
    const step = seededIndex(c.steps.length, ctx.seed, c.caseId, "step");
    return noCost(agent, step, null);
  },
};

/** Last: the last step and its author (the failure shows at the end). */
export const lastAttributor: Attributor = {
  name: "last",
  usesLlm: false,
  groundTruthVariants: false,
  async attribute(c) {
    const s = c.steps[c.steps.length - 1];
    return noCost(s.agent, s.index, null);
  },
};

function fromDetection(c: AttributionCase, anchorNode: string | null): { agent: string | null; step: number | null } {
  const i = anchorNode === null ? -1 : c.steps.findIndex((s) => s.nodeId === anchorNode);
  return i < 0 ? { agent: null, step: null } : { agent: c.steps[i].agent, step: i };
}

/** The detector of lib/symptoms, rules only: its offline anchor node (first eligible node); none → no answer. */
export const rulesAttributor: Attributor = {
  name: "rules",
  usesLlm: false,
  groundTruthVariants: false,
  async attribute(c) {
    const d = detectSymptoms(c.bundle);
    const p = fromDetection(c, d.anchorNode);
    return noCost(p.agent, p.step, d.anchorNode ? `rules: ${d.nodes.find((n) => n.id === d.anchorNode)?.rules.map((r) => r.id).join(", ") ?? ""}` : null);
  },
};

/**
 * The detector with its semantic judge (lib/symptoms/judge.ts) on the same endpoint: one judge
 * call per triggered node. The judge never sees the ground truth (its redaction rule), so this
 * attributor has no "with ground truth" variant. An unusable judge reply → no answer + parseError.
 */
export const rulesJudgeAttributor: Attributor = {
  name: "rules+judge",
  usesLlm: true,
  groundTruthVariants: false,
  async attribute(c, ctx) {
    const m = new Meter(needLlm(ctx, "rules+judge"));
    const judge: SymptomJudge = { model: m.llm.model, complete: (req) => m.ask(req.messages[0].content, req.messages[1].content) };
    try {
      const d = await detectWithJudge(c.bundle, judge);
      const p = fromDetection(c, d.anchorNode);
      return m.result(p.agent, p.step, null, null);
    } catch (e) {
      if (e instanceof JudgeReplyError) return m.result(null, null, null, e.message);
      throw e;
    }
  },
};

/** All-at-Once (§4): the whole log in one call; the model names agent and step. A step outside the log is no answer. */
export const allAtOnceAttributor: Attributor = {
  name: "all-at-once",
  usesLlm: true,
  groundTruthVariants: true,
  async attribute(c, ctx) {
    const m = new Meter(needLlm(ctx, "all-at-once"));
    const reply = await m.ask(ALL_AT_ONCE_SYSTEM, allAtOncePrompt(c, ctx.withGroundTruth));
    const p = parseAllAtOnce(reply);
    if (p.step !== null && p.step >= c.steps.length) return m.result(p.agent, null, p.reason, `Step Number ${p.step} is past the last step ${c.steps.length - 1}`);
    return m.result(p.agent, p.step, p.reason, p.error);
  },
};

/**
 * Step-by-Step (§4): for t = 0, 1, …: the log up to t, "is step t the decisive error?"; the first
 * Yes gives the step and its author. No Yes at all → no answer (calls = number of steps).
 */
export const stepByStepAttributor: Attributor = {
  name: "step-by-step",
  usesLlm: true,
  groundTruthVariants: true,
  async attribute(c, ctx) {
    const m = new Meter(needLlm(ctx, "step-by-step"));
    let unreadable = 0;
    for (let t = 0; t < c.steps.length; t++) {
      const reply = await m.ask(STEP_BY_STEP_SYSTEM, stepByStepPrompt(c, t, ctx.withGroundTruth));
      const v = parseStepVerdict(reply);
      if (v === null) unreadable++;
      if (v === "yes") return m.result(c.steps[t].agent, t, parseStepReason(reply), null);
    }
    return m.result(null, null, null, `no step was judged the decisive error${unreadable ? ` (${unreadable} unreadable replies)` : ""}`);
  },
};

/**
 * Binary Search (§4): range [lo, hi] = the whole log; mid = lo + ⌊(hi − lo)/2⌋; ask whether the
 * error is in lo..mid ("upper half") or mid+1..hi ("lower half"); recurse until one step is
 * left: that step and its author. An ambiguous reply → a seeded coin (seededIndex). Calls =
 * ⌈log2 n⌉ at most.
 */
export const binarySearchAttributor: Attributor = {
  name: "binary-search",
  usesLlm: true,
  groundTruthVariants: true,
  async attribute(c, ctx) {
    const m = new Meter(needLlm(ctx, "binary-search"));
    let lo = 0;
    let hi = c.steps.length - 1;
    let coins = 0;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const reply = await m.ask(BINARY_SEARCH_SYSTEM, binarySearchPrompt(c, lo, hi, mid, ctx.withGroundTruth));
      let half = parseHalf(reply);
      if (half === null) {
        coins++;
        half = seededIndex(2, ctx.seed, c.caseId, lo, hi) === 0 ? "upper" : "lower";
      }
      if (half === "upper") hi = mid;
      else lo = mid + 1;
    }
    return m.result(c.steps[lo].agent, lo, coins ? `${coins} ambiguous replies decided by a seeded coin` : null, null);
  },
};

/** Every attributor by name. */
export const ATTRIBUTORS: Record<AttributorName, Attributor> = {
  random: randomAttributor,
  last: lastAttributor,
  rules: rulesAttributor,
  "rules+judge": rulesJudgeAttributor,
  "all-at-once": allAtOnceAttributor,
  "step-by-step": stepByStepAttributor,
  "binary-search": binarySearchAttributor,
};
