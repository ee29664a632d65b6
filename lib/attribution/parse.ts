/**
 * Reading the replies of the three LLM attributors (formats asked for in prompts.ts). An
 * unreadable reply is not an exception: it is the model's answer, counted as a miss, with a
 * `parseError` saying why (the paper counts an unusable prediction as wrong).
 */

const clean = (s: string) => s.replace(/[*`]/g, "").trim();

/**
 * All-at-Once reply: "Agent Name: X", "Step Number: N", "Reason: …" (any order, Markdown
 * emphasis ignored; the first integer after "Step Number:" is the step).
 * @returns agent/step null when missing; `error` names what was missing
 */
export function parseAllAtOnce(reply: string): { agent: string | null; step: number | null; reason: string | null; error: string | null } {
  const text = clean(reply);
  const a = /agent\s*name\s*:\s*([^\n]+)/i.exec(text);
  const s = /step\s*number\s*:\s*\D{0,12}?(\d+)/i.exec(text);
  const r = /reason(?:\s*for\s*mistake)?\s*:\s*([\s\S]+)/i.exec(text);
  const agent = a ? a[1].trim().replace(/[.\s]+$/, "") || null : null;
  const step = s ? Number(s[1]) : null;
  const missing = [agent === null ? "Agent Name" : null, step === null ? "Step Number" : null].filter(Boolean);
  return { agent, step, reason: r ? r[1].trim() : null, error: missing.length ? `no ${missing.join(" and no ")} in the reply` : null };
}

/**
 * Step-by-Step reply: "1. Yes" / "1. No" (or a bare Yes/No first word).
 * @returns "yes" | "no" | null (unreadable: the walk goes on, as in the paper's description)
 */
export function parseStepVerdict(reply: string): "yes" | "no" | null {
  const m = /^\W*(?:1\s*[.)]\s*)?\W*(yes|no)\b/i.exec(clean(reply));
  return m ? (m[1].toLowerCase() as "yes" | "no") : null;
}

/** Step-by-Step reason: the text after "Reason:" (or the whole reply). */
export function parseStepReason(reply: string): string {
  const m = /reason\s*:\s*([\s\S]+)/i.exec(reply);
  return (m ? m[1] : reply).trim();
}

/**
 * Binary Search reply: which half. Both or neither phrase → null (ambiguous; the caller flips a
 * seeded coin, as the paper's description allows a random choice).
 */
export function parseHalf(reply: string): "upper" | "lower" | null {
  const t = reply.toLowerCase();
  const up = t.includes("upper half");
  const low = t.includes("lower half");
  return up === low ? null : up ? "upper" : "lower";
}
