/**
 * The calibrated world's known probabilities (the "truth" an experiment's measured rates are
 * checked against, issue 13 item 8) and how the scripted model classifies what it was given.
 *
 * Every task sets a trap (README.md "Traps") that springs on every path that does not recover at B,
 * so every failing run of a task shows the same Table 10 symptom at the same node. The model's only
 * random decision in a run is at the **repair boundary** B, the LLM call the symptom node maps to
 * (lib/replay resolveTarget, the call lib/symptoms' anchor maps to, Algorithm 4: for the C1/C4
 * agent_action the Clerk's call that produced it, for the C2 tool_call / C3 tool_result the Clerk's
 * next call): it recovers with probability `recover[class]`, where the class is what it sees there
 * (nothing, a generic nudge, symptom-specific guidance, or a task text extended by self-reflection /
 * critic). A call after B on a path that did not recover ("late") recovers with `late[class]`.
 * Injections before B change nothing (the trap still springs; B then decides with `none`). Critic
 * and self-reflection calls name the actual mistake with probability
 * `aux.critic` / `aux.reflection`.
 */
import { CATEGORY_INFO } from "../../annotation/protocol";
import { REPAIR_SIGNALS, RERUN_INSTRUCTION, TABLE1_REPAIR_SIGNALS } from "../../experiments/prompts";
import { CATEGORY_MEANING } from "../../symptoms/prompts";
import type { CalibratedCategory } from "./catalogue.mjs";

/** What the model saw at a decision: the injected guidance Δ, else the task's extra text, else nothing. */
export type InjectionClass = "none" | "nudge" | "specific" | "task-generic" | "task-specific";

/** Where in the run a decision is taken: at the repair boundary B, or later on a failing path. */
export type DecisionPosition = "B" | "late";

/** The world's probabilities (all in [0, 1]). */
export interface CalibratedTruth {
  /** P(recovery) at the repair boundary B, by what the model sees there. */
  recover: Record<InjectionClass, number>;
  /** P(recovery) at a call after B whose path has not recovered. */
  late: Record<InjectionClass, number>;
  /** P(a critic / self-reflection call names the actual mistake: "Diagnosis: …"). */
  aux: { critic: number; reflection: number };
}

/**
 * The default truth table (README.md). Per-attempt pass rates that follow from it:
 * fresh run / Unguided Full Rerun / Node Resample 0.10 (a fresh run fails with 0.90), Generic Nudge
 * 0.40, Suspicious-Node and Annotated-Node 0.85, Last-Node 0.05, Critic-Agent 0.6·0.75 + 0.4·0.35
 * = 0.59, Self-Reflection 0.35 (static reflection text) or 0.3·0.75 + 0.7·0.35 = 0.47 (with a
 * reflection call), Random-Node: the mix over the chosen nodes (`expectedNodeRate`).
 */
export const DEFAULT_TRUTH: CalibratedTruth = Object.freeze({
  recover: Object.freeze({ none: 0.1, nudge: 0.4, specific: 0.85, "task-generic": 0.35, "task-specific": 0.75 }),
  late: Object.freeze({ none: 0, nudge: 0.05, specific: 0.3, "task-generic": 0, "task-specific": 0 }),
  aux: Object.freeze({ critic: 0.6, reflection: 0.3 }),
}) as CalibratedTruth;

/** The marker the model starts a specific critic / reflection reply with. */
export const DIAGNOSIS_MARKER = "Diagnosis:";

/** E.1 task-level header lines and the Unguided Full Rerun instruction (lib/experiments/prompts.ts): no information for the model. */
const E1_HEADER_RE = /^(?:Mode|Task id|Benchmark|Start URLs or tools): .*$|^Task:\s*$/gm;
const RERUN_RE = new RegExp(RERUN_INSTRUCTION.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g");
const norm = (s: string) => s.toLowerCase().replace(/[\u2010-\u2015]/g, "-").replace(/\s+/g, " ").replace(/[.\s]+$/, "");
const CATS = ["C1", "C2", "C3", "C4"] as const;

/**
 * What a text can say about each category's failure in this world (README "Traps"): the category's
 * code, its name and meaning (annotation protocol, lib/symptoms), its repair signals (Table 1 and
 * the protocol's form), and the trap's mechanism in plain words — so a paraphrase that names the
 * cause counts like the template, and no template wording is needed.
 */
const CAUSE_WORDS: Record<CalibratedCategory, RegExp> = {
  C1: /placeholder|\[?insert (the )?unit price\]?|price[ _-]?tiers?|tiered pric|quantity tier|fill(ed)? in the (actual )?price|template text instead/i,
  C2: /\brepeat(s|ed|ing)?\b[^.;]{0,40}\b(lookup|call|action|request|query|step|search)|\b(same|identical) (lookup|call|request|query|action)\b|\bloop(s|ed|ing)?\b|\bstall(s|ed|ing)?\b|refresh pending|no new (evidence|information|progress)|made no progress|stuck/i,
  C3: /not ?found|\b404\b|renumber(ed)?|\b(lookup|tool call|tool|call|request)\b[^.;]{0,30}\b(failed|fails|errored|returned an? error|gave an? error)|\b(failed|erroring) (lookup|tool call|call|request)|error (result|response|message)|unresolved (error|condition)|sku (was )?(changed|moved)/i,
  C4: /flyer|without (calling|using|consulting|checking|a|any) (the |a )?(lookup|tool|catalogue)|never (called|used|consulted|looked)|did not (call|use|consult|look)|didn't (call|use|consult|look)|no tool (call|evidence|result)|from memory|unverified|not verified|before (calling|using) (the )?(lookup|tool)/i,
};

/** A text without its evidence: quoted spans and detector rule ids (`C2.repeated-action`) are not claims about the cause. */
const claimOf = (text: string) => text.replace(/"[^"]*"/g, " ").replace(/\bC[1-4]\.[\w.-]+/g, " ");

/** The categories a text says the failure is (quoted spans and rule ids are evidence, not a claim, and are left out). */
export function namedCauses(text: string): Set<CalibratedCategory> {
  const claim = claimOf(text);
  const low = norm(claim);
  const out = new Set<CalibratedCategory>();
  for (const m of claim.matchAll(/\bC([1-4])\b/g)) out.add(`C${m[1]}` as CalibratedCategory);
  for (const c of CATS) {
    const phrases = [CATEGORY_INFO[c].name, CATEGORY_INFO[c].meaning, CATEGORY_MEANING[c], CATEGORY_INFO[c].repair, REPAIR_SIGNALS[c], TABLE1_REPAIR_SIGNALS[c]];
    if (phrases.some((p) => low.includes(norm(p))) || CAUSE_WORDS[c].test(claim)) out.add(c);
  }
  return out;
}

/**
 * Where a text puts the failure: every trap's symptom is at the Clerk (its report, its lookup or
 * the lookup's result; README "Traps"). A text that blames only the Solver (or only the
 * calculator) points at the wrong node.
 */
function pointsElsewhere(text: string): boolean {
  const claim = claimOf(text);
  const clerk = /\bclerk\b|\blookup\b|\bcatalogue\b/i.test(claim);
  return !clerk && /\bsolver\b|\bcalculator\b/i.test(claim);
}

/**
 * Classify an injected guidance text Δ for a task of `category` (the model "understands" it by
 * what it says about the case's true failure, not by our templates' wording; issue 20 item 7):
 * - "" → none;
 * - it names the task's cause ({@link namedCauses}: a code, a category name or meaning, a repair
 *   signal, or the trap's mechanism in any words) and does not put the failure at another node
 *   (only the Solver / calculator) → specific — the Suspicious-Node template whose categories
 *   include the task's, the Annotated-Node template of the task's category, a paraphrase, a
 *   "Diagnosis: …" of this item;
 * - a "Diagnosis: …" naming the task's sku → specific (the critic's own reply);
 * - anything else (CONTROL_GUIDANCE, a generic review, a text naming only other causes) → nudge.
 */
export function classifyGuidance(text: string, category: CalibratedCategory, sku: string): InjectionClass {
  const t = text.trim();
  if (!t) return "none";
  if (t.includes(DIAGNOSIS_MARKER) && t.includes(sku)) return "specific";
  if (namedCauses(t).has(category) && !pointsElsewhere(t)) return "specific";
  return "nudge";
}

/**
 * Classify the extra text a task-level method put around the task: a text naming the item's cause
 * (a "Diagnosis: …" naming the item, or any text naming the task's cause, {@link namedCauses}) →
 * task-specific; nothing but the E.1 header lines (Mode, Task id, Benchmark, an empty "Task:"
 * label) and the Unguided Full Rerun instruction → none; anything else (a previous final answer,
 * the self-reflection instruction, a generic critic review) → task-generic.
 * @param category the task's category (omitted: only a "Diagnosis: …" naming the sku is specific)
 */
export function classifyTaskExtra(extra: string, sku: string, category?: CalibratedCategory): InjectionClass {
  const t = extra.replace(E1_HEADER_RE, "").replace(RERUN_RE, "").trim();
  if (!t) return "none";
  if (t.includes(DIAGNOSIS_MARKER) && t.includes(sku)) return "task-specific";
  return category && namedCauses(t).has(category) && !pointsElsewhere(t) ? "task-specific" : "task-generic";
}

/** Per-attempt pass probabilities of the experiment methods under `truth` (README "Truth table"). */
export function expectedAttemptRates(truth: CalibratedTruth = DEFAULT_TRUTH): Record<string, number> {
  const { recover: r, late: l, aux } = truth;
  const taskMix = (k: number) => k * r["task-specific"] + (1 - k) * r["task-generic"];
  return {
    rerun: r.none,
    "node-resample": r.none,
    nudge: r.nudge,
    "suspicious-node": r.specific,
    "annotated-node": r.specific,
    "last-node": l.nudge,
    critic: taskMix(aux.critic),
    /** static reflection text (no reflection call) */
    "self-reflection": r["task-generic"],
    /** with a reflection LLM call whose reply is put into the task */
    "self-reflection+call": taskMix(aux.reflection),
    freshFail: 1 - r.none,
  };
}

/** pass@k of k independent attempts with per-attempt probability p: 1 − (1 − p)^k (eq. 3). */
export function passAtK(p: number, k: number): number {
  return 1 - (1 - p) ** k;
}

/**
 * P(pass) of ONE node-level attempt that injects guidance of class `cls` at the source node at
 * observed-order position `anchorPos`, given the repair boundary B at position `bPos`: before B
 * the trap springs again and B decides unguided (`recover.none`); at B `recover[cls]`; after B `late[cls]`.
 * (Random-Node's expected rate is the mean of this over the nodes it chose.)
 */
export function expectedNodeRate(anchorPos: number, bPos: number, cls: InjectionClass, truth: CalibratedTruth = DEFAULT_TRUTH): number {
  if (anchorPos < bPos) return truth.recover.none;
  if (anchorPos === bPos) return truth.recover[cls];
  return truth.late[cls];
}
