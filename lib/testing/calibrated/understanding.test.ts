/**
 * Issue 20 item 7: the calibrated world's recovery depends on what the guidance says about the
 * case's true failure (its cause and its node), not on our prompt templates' wording. Paraphrases
 * that name the right cause recover as often as the template (checked by classification and by the
 * world's own draws at the repair boundary B); a template naming the wrong cause, or the right
 * cause at the wrong node, recovers only as a generic nudge.
 */
import { describe, expect, test } from "vitest";
import { annotatedNodeGuidance } from "../../experiments/prompts";
import { suspiciousNodeGuidance } from "../../symptoms";
import { wilsonInterval } from "../../agreement";
import type { ChatRequest } from "../scripted-openai";
import { itemOf, type CalibratedCategory } from "./catalogue.mjs";
import { calibratedResponder, type Decision } from "./policy";
import { classifyGuidance, classifyTaskExtra, DEFAULT_TRUTH, namedCauses } from "./truth";
import { generateSuite } from "./world";

/** Paraphrases: none uses a template sentence, a category code, a category name or a repair signal. */
const PARAPHRASES: Record<CalibratedCategory, string[]> = {
  C1: [
    "The Clerk's report has a placeholder where the unit price should be. Read the item's price tiers and use the price for this quantity.",
    "Heads up: the number from the Clerk was never filled in ([insert unit price] is literally in the text). Check the tiered pricing.",
    "The clerk left a placeholder in its FACT line instead of a real price.",
  ],
  C2: [
    "The Clerk repeated the same lookup twice and then gave up; the second lookup did return the price — use it.",
    "Our clerk is stuck in a loop on the catalogue query. Take the price the lookup already returned.",
    "The clerk keeps repeating an identical lookup request without making progress.",
  ],
  C3: [
    "The Clerk's lookup failed with NotFound because the item was renumbered; look it up under its new sku.",
    "The catalogue lookup returned an error (404) — the sku has changed. Retry with the new number.",
    "The clerk's tool call failed and the team went on with an assumed price.",
  ],
  C4: [
    "The Clerk answered from the old flyer without calling the lookup tool; get the current price.",
    "The clerk never used the catalogue tool — that price is from memory, unverified.",
    "The Clerk did not call lookup before reporting the price.",
  ],
};
const WRONG: Record<CalibratedCategory, CalibratedCategory> = { C1: "C3", C2: "C4", C3: "C1", C4: "C2" };
const itemFor = (c: CalibratedCategory) => itemOf({ C1: 104, C2: 105, C3: 106, C4: 107 }[c]);

describe("the world understands the cause, not the template", () => {
  for (const c of ["C1", "C2", "C3", "C4"] as const) {
    const item = itemFor(c);
    test(`${c}: every paraphrase naming the cause is specific; the wrong cause, or the right one at the Solver, is a nudge`, () => {
      expect(item.category).toBe(c);
      for (const p of PARAPHRASES[c]) expect(classifyGuidance(p, c, item.sku), p).toBe("specific");
      // the same paraphrases read for a task of another category name the wrong cause there
      for (const p of PARAPHRASES[WRONG[c]]) expect(classifyGuidance(p, c, item.sku), p).toBe("nudge");
      // templates: right category specific, wrong category nudge
      expect(classifyGuidance(annotatedNodeGuidance("n1", c), c, item.sku)).toBe("specific");
      expect(classifyGuidance(annotatedNodeGuidance("n1", WRONG[c]), c, item.sku)).toBe("nudge");
      expect(classifyGuidance(suspiciousNodeGuidance("n1", [c], ['"x"']), c, item.sku)).toBe("specific");
      expect(classifyGuidance(suspiciousNodeGuidance("n1", [WRONG[c]], ['"x"']), c, item.sku)).toBe("nudge");
      // quoted evidence is not a claim: a wrong-category template quoting the right symptom stays a nudge
      expect(classifyGuidance(suspiciousNodeGuidance("n1", [WRONG[c]], [`"${PARAPHRASES[c][0]}"`]), c, item.sku)).toBe("nudge");
    });
  }

  test("the node: the right cause blamed on the Solver (calculator) only is the wrong node", () => {
    expect(classifyGuidance("The Solver used a placeholder price in its calculator expression.", "C1", itemFor("C1").sku)).toBe("nudge");
    expect(classifyGuidance("The Clerk handed the Solver a placeholder price.", "C1", itemFor("C1").sku)).toBe("specific");
  });

  test("namedCauses reads codes, names and mechanisms; rule ids and quotes are not claims", () => {
    expect([...namedCauses("Confirmed runtime symptoms: C1, C3.")].sort()).toEqual(["C1", "C3"]);
    expect([...namedCauses('rule C2.repeated-action fired on "NotFound"')]).toEqual([]);
    expect([...namedCauses("Repeated or stalled progress")]).toEqual(["C2"]);
  });

  test("task level: a critic feedback paraphrasing the right cause is task-specific, a wrong one task-generic", () => {
    const item = itemFor("C3");
    expect(classifyTaskExtra(`Critic feedback: ${PARAPHRASES.C3[0]}`, item.sku, "C3")).toBe("task-specific");
    expect(classifyTaskExtra(`Critic feedback: ${PARAPHRASES.C1[0]}`, item.sku, "C3")).toBe("task-generic");
  });

  test("the world's draws at B: paraphrases recover as often as the template (0.85), a wrong-cause template like a nudge (0.40)", () => {
    const task = generateSuite(13).find((t) => t.item.category === "C1")!;
    const decisions: Decision[] = [];
    const respond = calibratedResponder({ seed: 13, session: "understanding", truth: DEFAULT_TRUTH, onDecision: (d) => decisions.push(d) });
    // B for C1: the Clerk's call that writes the placeholder (after its lookup), where resolveTarget maps the symptom agent_action
    const clerkAtB = (guidance: string, user: string): ChatRequest => ({
      model: "calibrated-model",
      user,
      messages: [
        { role: "system", content: "You are the Clerk of a two-agent team." },
        { role: "user", content: `Task: ${task.prompt}` },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: JSON.stringify({ sku: task.item.sku }) } }] },
        { role: "tool", tool_call_id: "call_1", content: JSON.stringify({ status: "success", sku: task.item.sku, unit_price: null, price_tiers: task.item.tiers, currency: "EUR" }) },
        { role: "user", content: guidance },
      ],
    });
    const N = 400;
    const rate = (texts: string[], tag: string) => {
      decisions.length = 0;
      for (let i = 0; i < N; i++) respond(clerkAtB(texts[i % texts.length], `${tag}-${i}`));
      expect(decisions.every((d) => d.position === "B")).toBe(true);
      return decisions.filter((d) => d.hit).length;
    };
    const inside = (x: number, p: number) => {
      const [lo, hi] = wilsonInterval(x, N, 3.29)!; // 99.9%
      return lo <= p && p <= hi;
    };
    const template = rate([suspiciousNodeGuidance("agent_action_0001", ["C1"], ['"[insert unit price]"'])], "t");
    const para = rate(PARAPHRASES.C1, "p");
    const wrong = rate([annotatedNodeGuidance("agent_action_0001", "C3")], "w");
    expect(inside(template, 0.85), `template ${template}/${N}`).toBe(true);
    expect(inside(para, 0.85), `paraphrases ${para}/${N}`).toBe(true);
    expect(inside(wrong, 0.4), `wrong cause ${wrong}/${N}`).toBe(true);
    expect(Math.abs(para - template)).toBeLessThan(0.1 * N);
  });
});
