/**
 * The default scripted "model" for the reference MAS: a `respond` function for
 * `startScriptedOpenAI` (lib/testing/scripted-openai.ts) that drives orchestrator.ts,
 * workflow.ts and conversation.ts through a plausible multi-step run, deterministically
 * from the request content only (no state between requests):
 *
 * - the agent is read from the system prompt ("You are [the] <Name>");
 * - the place, number of adults and children come from the task text;
 * - page paths, prices and opening hours come from tool observations / earlier reports
 *   (markdown blocks whose level-1/2 heading names the place);
 * - the step an agent is at comes from the tool calls already in its conversation.
 *
 * For {@link DEMO_TASK} each MAS searches, fetches two pages with one parallel pair of
 * tool calls, computes the total with the calculator and answers {@link DEMO_FINAL}.
 * (The site also lists a cheaper family ticket (€16.00) that this policy never considers:
 * a realistic, annotatable failure for SymTrace.)
 */
import { messageText, type ChatMessage, type ChatRequest, type ScriptedReply } from "../lib/testing/scripted-openai";

export const DEMO_TASK = "What does entry to Hilltop Gardens cost for 2 adults and 3 children, and what are its Saturday opening hours?";
export const DEMO_FINAL = "For 2 adults and 3 children, entry to Hilltop Gardens costs €21.00 in total (adult €6.00, child €3.00); on Saturday it is open 09:00–18:00.";

interface Call {
  name: string;
  args: Record<string, unknown>;
  observation: unknown;
}

interface Facts {
  place: string | null;
  adults: number | null;
  children: number | null;
  adultPrice: string | null;
  childPrice: string | null;
  hours: [string, string] | null;
  total: number | null;
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === "object") Object.values(v).forEach((x) => strings(x, out));
  return out;
}

/** All readable text of a request: message texts, with tool observations' string fields unpacked. */
function corpus(messages: ChatMessage[]): string {
  return messages.map((m) => (m.role === "tool" ? strings(parseJson(messageText(m))).join("\n") : messageText(m))).join("\n");
}

/** The tool calls already made in this conversation, with their observations. */
function callsSoFar(messages: ChatMessage[]): Call[] {
  const obs = new Map(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, parseJson(messageText(m))]));
  return messages.flatMap((m) =>
    m.role === "assistant"
      ? (m.tool_calls ?? []).map((tc) => ({ name: tc.function.name, args: (parseJson(tc.function.arguments) ?? {}) as Record<string, unknown>, observation: obs.get(tc.id) }))
      : [],
  );
}

function agentOf(req: ChatRequest): string {
  const sys = messageText(req.messages.find((m) => m.role === "system"));
  return /^You are (?:the )?(\w+)/.exec(sys)?.[1] ?? "";
}

function taskOf(req: ChatRequest): string {
  const first = messageText(req.messages.find((m) => m.role === "user"));
  const m = /^Task: ([\s\S]*?)(?:\n\n|$)/.exec(first);
  return (m ? m[1] : first).trim();
}

function lastUser(req: ChatRequest): string {
  const users = req.messages.filter((m) => m.role === "user");
  return messageText(users[users.length - 1]);
}

function factsOf(req: ChatRequest): Facts {
  const task = taskOf(req);
  const place = /\b([A-Z][a-z]+(?: [A-Z][a-z]+)* (?:Gardens|Park))\b/.exec(task)?.[1] ?? null;
  const num = (re: RegExp) => {
    const m = re.exec(task);
    return m ? Number(m[1]) : null;
  };
  const f: Facts = { place, adults: num(/(\d+) adults?/i), children: num(/(\d+) child(?:ren)?/i), adultPrice: null, childPrice: null, hours: null, total: null };
  const calls = callsSoFar(req.messages);
  const text = corpus(req.messages);
  if (place) {
    // Blocks start at level-1/2 markdown headings; keep those whose heading names the place.
    const blocks: string[] = [];
    let cur: string[] | null = null;
    for (const line of text.split("\n")) {
      if (/^#{1,2}\s/.test(line)) {
        cur = line.includes(place) ? [] : null;
        if (cur) blocks.push("");
      }
      if (cur) blocks[blocks.length - 1] += `${line}\n`;
    }
    for (const b of blocks) {
      f.adultPrice ??= /^\s*-?\s*Adult[^€\n]*€\s*(\d+(?:\.\d+)?)/im.exec(b)?.[1] ?? null;
      f.childPrice ??= /^\s*-?\s*Child[^€\n]*€\s*(\d+(?:\.\d+)?)/im.exec(b)?.[1] ?? null;
      const h = /Saturday[^\n]*?(\d{1,2}:\d{2})\s*[–-]\s*(\d{1,2}:\d{2})/.exec(b);
      if (h && !f.hours) f.hours = [h[1], h[2]];
    }
  }
  const calc = calls.filter((c) => c.name === "calculator").map((c) => (c.observation as { result?: unknown } | undefined)?.result).find((r) => typeof r === "number");
  const reported = /TOTAL = (-?\d+(?:\.\d+)?)/.exec(text)?.[1];
  f.total = typeof calc === "number" ? calc : reported !== undefined ? Number(reported) : null;
  return f;
}

const haveSiteFacts = (f: Facts) => f.adultPrice !== null && f.childPrice !== null && f.hours !== null;

function expressionOf(f: Facts): string | null {
  if (f.adults === null || f.children === null || f.adultPrice === null || f.childPrice === null) return null;
  return `${f.adults}*${f.adultPrice} + ${f.children}*${f.childPrice}`;
}

function finalAnswer(f: Facts): string {
  if (!haveSiteFacts(f) || f.total === null) return "I could not determine the answer from the Lindenbrook parks website.";
  return `For ${f.adults} adults and ${f.children} children, entry to ${f.place} costs €${f.total.toFixed(2)} in total (adult €${f.adultPrice}, child €${f.childPrice}); on Saturday it is open ${f.hours![0]}–${f.hours![1]}.`;
}

function factsReport(f: Facts, sources: string[]): string {
  if (!haveSiteFacts(f)) return `I could not find the prices and Saturday opening hours of ${f.place ?? "the place"} on the site.`;
  return [`## ${f.place}`, `- Adult: €${f.adultPrice}`, `- Child: €${f.childPrice}`, `- Saturday: ${f.hours![0]}–${f.hours![1]}`, `Sources: ${sources.join(", ")}`].join("\n");
}

/** WebSurfer / Researcher (and the Assistant's research phase): search, then fetch the top two results in parallel, then report. */
function research(req: ChatRequest, f: Facts): ScriptedReply {
  const calls = callsSoFar(req.messages);
  const search = calls.find((c) => c.name === "search_docs");
  if (!search) return { toolCalls: [{ name: "search_docs", arguments: { query: f.place ? `${f.place} prices opening hours` : taskOf(req) } }] };
  const fetched = calls.filter((c) => c.name === "fetch_page");
  if (fetched.length === 0) {
    const results = ((search.observation as { results?: Array<{ path: string }> } | undefined)?.results ?? []).slice(0, 2);
    if (results.length > 0) return { toolCalls: results.map((r) => ({ name: "fetch_page", arguments: { path: r.path } })) };
  }
  return { content: factsReport(f, fetched.map((c) => String(c.args.path))) };
}

/** Coder / Analyst: one calculator call (expression from the instruction or the facts), then report TOTAL. */
function compute(req: ChatRequest, f: Facts): ScriptedReply {
  const calc = callsSoFar(req.messages).find((c) => c.name === "calculator");
  if (!calc) {
    const expression = /`([^`]+)`/.exec(lastUser(req))?.[1] ?? expressionOf(f);
    if (!expression) return { content: "I cannot compute the total: the prices or the number of visitors are missing." };
    return { toolCalls: [{ name: "calculator", arguments: { expression } }] };
  }
  const result = (calc.observation as { result?: unknown } | undefined)?.result;
  return { content: typeof result === "number" ? `TOTAL = ${result} (expression: ${String(calc.args.expression)})` : "The calculator failed; no total." };
}

function orchestrator(req: ChatRequest, f: Facts): ScriptedReply {
  const last = lastUser(req);
  if (last.includes("Create the task ledger")) {
    return {
      content: [
        `Given facts: the visit is to ${f.place ?? "a park"} for ${f.adults ?? "?"} adults and ${f.children ?? "?"} children.`,
        "Facts to look up: the adult and child entry prices; the Saturday opening hours.",
        "Facts to derive: the total entry cost.",
        "Plan:",
        "1. WebSurfer finds the prices and opening hours on the website.",
        "2. Coder computes the total with the calculator.",
        "3. Answer with the total and the hours.",
      ].join("\n"),
    };
  }
  if (last.includes("Give the final answer")) return { content: finalAnswer(f) };
  const ledger = (satisfied: boolean, next: string, instruction: string, reason: string) => ({
    content: JSON.stringify({ is_request_satisfied: satisfied, is_progress_being_made: true, next_speaker: next, instruction, reason }),
  });
  const surfed = (corpus(req.messages).match(/WebSurfer reported:/g) ?? []).length;
  if (!haveSiteFacts(f) && surfed < 2) return ledger(false, "WebSurfer", `Find the adult and child entry prices and the Saturday opening hours of ${f.place ?? "the place in the task"}.`, "The prices and opening hours are not known yet.");
  const expr = expressionOf(f);
  if (haveSiteFacts(f) && f.total === null && expr) return ledger(false, "Coder", `Compute the total entry cost for ${f.adults} adults and ${f.children} children with the calculator, expression: \`${expr}\``, "The prices are known; the total is not.");
  return ledger(true, "Coder", "", "All facts and the total are known.");
}

function assistant(req: ChatRequest, f: Facts): ScriptedReply {
  const calls = callsSoFar(req.messages);
  if (!calls.some((c) => c.name === "search_docs") || !calls.some((c) => c.name === "fetch_page")) {
    const r = research(req, f);
    if (r.toolCalls) return r;
  }
  const announced = req.messages.some((m) => m.role === "assistant" && !m.tool_calls?.length && messageText(m) !== "");
  if (haveSiteFacts(f) && !announced)
    return { content: `From the pages: adult €${f.adultPrice}, child €${f.childPrice}; on Saturday ${f.place} is open ${f.hours![0]}–${f.hours![1]}. Next I will compute the total with the calculator.` };
  if (haveSiteFacts(f) && f.total === null) {
    const r = compute(req, f);
    if (r.toolCalls) return r;
  }
  return { content: `${finalAnswer(f)}\n\nTERMINATE` };
}

/** The scripted policy: `startScriptedOpenAI({ respond })`. Throws (→ HTTP 500) for an unknown agent. */
export function respond(req: ChatRequest, _n: number): ScriptedReply {
  const f = factsOf(req);
  switch (agentOf(req)) {
    case "Orchestrator":
      return orchestrator(req, f);
    case "WebSurfer":
    case "Researcher":
      return research(req, f);
    case "Coder":
    case "Analyst":
      return compute(req, f);
    case "Writer":
      return { content: finalAnswer(f) };
    case "Assistant":
      return assistant(req, f);
    default:
      throw new Error(`scripted policy: unknown agent in system prompt: ${JSON.stringify(messageText(req.messages[0]).slice(0, 80))}`);
  }
}
