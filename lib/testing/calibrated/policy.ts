/**
 * The calibrated world's scripted, seeded, stochastic "model": a responder for
 * startScriptedOpenAI (../scripted-openai.ts) that plays the two agents of mas/calibrated.ts
 * (Clerk, Solver) and answers critic / self-reflection calls. README.md (this folder) documents
 * the traps, the decision points and the truth table (./truth.ts).
 *
 * Randomness: every decision draws u = uniform(seed, session, sha256(request content), k) where
 * k counts earlier requests with the same content in this world process (and the OpenAI `user`
 * field, when the MAS sends one, is part of the key instead of k). Requests of a run before its
 * first decision are identical in every run of a task, so the k-th rerun of a task draws the k-th
 * sample; a replay's recorded prefix is served by the replay proxy (the model is not called), and
 * only its live calls draw. Everything else in a reply is a pure function of the request (tool
 * call ids included), so recordings are byte-stable.
 */
import { createHash } from "node:crypto";
import { isJudgeRequest, isSelectorRequest, scriptedJudgeReply, scriptedSelectorReply } from "../scripted-mars";
import { messageText, type ChatMessage, type ChatRequest, type ScriptedReply } from "../scripted-openai";
import { ASSUMED_PRICE, cents, parseTask, unitPriceFor, type CalibratedCategory, type CatalogueItem, type ParsedTask } from "./catalogue.mjs";
import { classifyGuidance, classifyTaskExtra, DIAGNOSIS_MARKER, type CalibratedTruth, type DecisionPosition, type InjectionClass } from "./truth";

/** One random decision the model took (kept by the world for tests and analysis). */
export interface Decision {
  /** 0-based task index (from the task text). */
  task: number;
  category: CalibratedCategory;
  agent: "Clerk" | "Solver" | "critic" | "reflection";
  /** B / late for MAS agents; "aux" for critic / reflection calls. */
  position: DecisionPosition | "aux";
  cls: InjectionClass;
  p: number;
  u: number;
  /** recovered (MAS agents) / named the mistake (aux). */
  hit: boolean;
  /** The request's OpenAI `user` field (the MAS sends "symtrace-attempt-<SYMTRACE_ATTEMPT_SEED>"), else null: ties a decision to its experiment attempt. */
  user: string | null;
}

/** Uniform draw in [0, 1) from the SHA-256 of the parts (48 bits). */
export function uniform(...parts: Array<string | number>): number {
  const h = createHash("sha256").update(parts.join("\u0000")).digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/** Hex SHA-256 of the request content that matters to the model (no stream flags, no `user`). */
export function requestKey(req: ChatRequest): string {
  return createHash("sha256").update(JSON.stringify({ model: req.model, messages: req.messages, tools: req.tools ?? null })).digest("hex");
}

export interface PolicyOptions {
  seed: number;
  /** Salt separating the draws of independent worlds with the same seed (e.g. "record" vs "live"). */
  session: string;
  truth: CalibratedTruth;
  /** Called with every decision taken. */
  onDecision?: (d: Decision) => void;
}

interface ToolStep {
  name: string;
  args: Record<string, unknown>;
  obs: Record<string, unknown> | null;
}

const CLERK_RE = /^\s*You are the Clerk\b/;
const SOLVER_RE = /^\s*You are the Solver\b/;
const GOOD_FACT_RE = /^FACT: unit price of K-\d{3}R? = (\d+\.\d{2}) EUR\.$/m;

function toolSteps(messages: ChatMessage[]): ToolStep[] {
  const obsById = new Map<string, string>();
  for (const m of messages) if (m.role === "tool" && typeof m.tool_call_id === "string") obsById.set(m.tool_call_id, messageText(m));
  const out: ToolStep[] = [];
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const tc of m.tool_calls ?? []) {
      let args: Record<string, unknown> = {};
      let obs: Record<string, unknown> | null = null;
      try {
        args = JSON.parse(tc.function.arguments) as Record<string, unknown>;
      } catch {
        /* keep {} */
      }
      const o = obsById.get(tc.id);
      try {
        obs = o === undefined ? null : (JSON.parse(o) as Record<string, unknown>);
      } catch {
        obs = null;
      }
      out.push({ name: tc.function.name, args, obs });
    }
  }
  return out;
}

function callId(key: string, i: number): string {
  return `call_${key.slice(0, 12)}_${i}`;
}

const price2 = (x: number) => x.toFixed(2);

/** The model's reply text when a critic / self-reflection call names the actual mistake. */
export function diagnosisText(item: CatalogueItem): string {
  const why: Record<CalibratedCategory, string> = {
    C1: `the Clerk reported a placeholder instead of the unit price of ${item.sku}; read its price_tiers for the ordered quantity and compute with that price.`,
    C2: `the Clerk repeated the identical lookup of ${item.sku} and then gave up with an assumed price; use the unit_price the lookup returned.`,
    C3: `the lookup of ${item.sku} failed (NotFound: the item was renumbered to ${item.renamed}) and the team assumed a price; look the item up under ${item.renamed}.`,
    C4: `the Clerk answered ${item.sku} from the old flyer without calling lookup; look up the current unit price.`,
  };
  return `${DIAGNOSIS_MARKER} ${why[item.category]}`;
}

/** The generic critic / reflection reply (names no mistake). */
export const GENERIC_REVIEW = "Review: the previous answer may be wrong. Re-check every step against the task requirements before answering again.";

/**
 * Build the responder. Pure in (request, draw index) apart from the per-content counter.
 * @returns `respond(req, n)` for startScriptedOpenAI
 */
export function calibratedResponder(o: PolicyOptions): (req: ChatRequest) => ScriptedReply {
  const seen = new Map<string, number>();
  const draw = (key: string, user: unknown): number => {
    const id = typeof user === "string" && user ? `${key}|user:${user}` : key;
    const k = seen.get(id) ?? 0;
    seen.set(id, k + 1);
    return uniform(o.seed, o.session, id, k);
  };

  return (req: ChatRequest): ScriptedReply => {
    const msgs = Array.isArray(req.messages) ? req.messages : [];
    const key = requestKey(req);
    const sys = messageText(msgs.find((m) => m.role === "system" || m.role === "developer"));
    const users = msgs.filter((m) => m.role === "user");
    const firstUser = messageText(users[0]);
    const last = msgs[msgs.length - 1];
    // Δ: the replay proxy appends guidance as one trailing user message (lib/replay appendGuidance).
    const injected = msgs.length > 2 && last?.role === "user" && last !== users[0] ? messageText(last) : "";
    const agent = CLERK_RE.test(sys) ? "Clerk" : SOLVER_RE.test(sys) ? "Solver" : null;
    // The MAS frames the task as "Task: <task>" (+ "\n\nClerk's report:\n…" for the Solver).
    const task = agent ? parseTask(firstUser.replace(/^Task:\s*/, "").split("\n\nClerk's report:")[0]) : null;

    // A MARS selector / judge call (a repair search pointed at this world): the tests' scripted policy, no draw.
    if (!agent && isSelectorRequest(req)) return scriptedSelectorReply(req);
    if (!agent && isJudgeRequest(req)) return scriptedJudgeReply(req, "Scripted judge of the calibrated world (no model was called): ");
    if (!agent || !task) return auxReply(msgs, key, req.user);

    const item = task.item;
    const cls: InjectionClass = injected ? classifyGuidance(injected, item.category, item.sku) : classifyTaskExtra(task.extra, item.sku, item.category);
    const decide = (position: DecisionPosition): boolean => {
      const p = (position === "B" ? o.truth.recover : o.truth.late)[cls];
      const u = draw(key, req.user);
      const hit = u < p;
      o.onDecision?.({ task: task.index, category: item.category, agent, position, cls, p, u, hit, user: typeof req.user === "string" && req.user ? req.user : null });
      return hit;
    };
    const steps = toolSteps(msgs);
    const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ toolCalls: [{ id: callId(key, 0), name, arguments: args }] });
    return agent === "Clerk" ? clerk(task, steps, call, decide) : solver(task, firstUser, steps, call, decide);
  };

  function auxReply(msgs: ChatMessage[], key: string, user: unknown): ScriptedReply {
    const all = msgs.map(messageText).join("\n");
    const task = parseTask(all);
    if (!task) return { content: GENERIC_REVIEW };
    const kind = /critic/i.test(all) ? "critic" : "reflection";
    const p = o.truth.aux[kind];
    const u = draw(key, user);
    const hit = u < p;
    o.onDecision?.({ task: task.index, category: task.item.category, agent: kind, position: "aux", cls: "none", p, u, hit, user: typeof user === "string" && user ? user : null });
    return { content: hit ? diagnosisText(task.item) : GENERIC_REVIEW };
  }
}

type Call = (name: string, args: Record<string, unknown>) => ScriptedReply;

function fact(sku: string, price: number): string {
  return `FACT: unit price of ${sku} = ${price2(price)} EUR.`;
}

/** The Clerk: looks the item up and reports one FACT line. Traps by category (README "Traps"). */
function clerk(task: ParsedTask, steps: ToolStep[], call: Call, decide: (p: DecisionPosition) => boolean): ScriptedReply {
  const it = task.item;
  const lookups = steps.filter((s) => s.name === "lookup");
  const ok = lookups.filter((s) => s.obs?.status === "success");
  if (lookups.length === 0) {
    // C4 trap: answers from the task's flyer price without calling the tool. B is this call (the
    // call that produces the symptom agent_action, where resolveTarget maps it): recovery looks the item up.
    if (it.category === "C4") {
      if (decide("B")) return call("lookup", { sku: it.sku });
      return { content: `FACT: unit price of ${it.sku} = ${price2(it.flyer)} EUR (from the flyer). Final answer: ${price2(it.flyer)} EUR per unit.` };
    }
    return call("lookup", { sku: it.sku });
  }
  if (it.category === "C3") {
    if (ok.length === 0) {
      // B: the lookup failed (NotFound, renumbered).
      if (decide("B")) return call("lookup", { sku: it.renamed });
      return { content: `FACT: unit price of ${it.sku} = ${price2(ASSUMED_PRICE)} EUR (assumed; the lookup returned no item).` };
    }
    return { content: fact(it.renamed ?? it.sku, it.price) };
  }
  if (it.category === "C2") {
    // C2 trap: repeats the identical lookup once ("refresh pending"), then B.
    if (lookups.length === 1) return call("lookup", { sku: it.sku });
    if (decide("B")) return { content: fact(it.sku, it.price) };
    return { content: `FACT: unit price of ${it.sku} is unconfirmed after two identical lookups; using ${price2(ASSUMED_PRICE)} EUR.` };
  }
  if (it.category === "C1") {
    // C1 trap: the item has price tiers; the report holds a placeholder. B is this call (it produces
    // the symptom agent_action): recovery reports the tier price for the task's quantity.
    if (decide("B")) return { content: fact(it.sku, unitPriceFor(it, task.qty)) };
    return { content: `FACT: unit price of ${it.sku} = [insert unit price] EUR (see the price tiers).` };
  }
  return { content: fact(it.sku, it.price) };
}

/** The Solver: computes qty × price with the calculator and answers "Final answer: <amount>". */
function solver(task: ParsedTask, firstUser: string, steps: ToolStep[], call: Call, decide: (p: DecisionPosition) => boolean): ScriptedReply {
  const it = task.item;
  const report = firstUser.split("Clerk's report:")[1] ?? "";
  const good = GOOD_FACT_RE.exec(report);
  const ownLookup = steps.some((s) => s.name === "lookup" && s.obs?.status === "success");
  const known = ownLookup ? unitPriceFor(it, task.qty) : good ? Number(good[1]) : null;
  const calcs = steps.filter((s) => s.name === "calculator");
  const lastCalc = calcs[calcs.length - 1];
  const answer = (): ScriptedReply => {
    const r = Number(lastCalc.obs?.result);
    return { content: `Final answer: ${Number.isFinite(r) ? price2(cents(r)) : "unknown"}` };
  };
  if (known !== null) {
    const expr = `${task.qty} * ${price2(known)}`;
    if (lastCalc && lastCalc.args.expression === expr && lastCalc.obs?.status === "success") return answer();
    return call("calculator", { expression: expr });
  }
  // Failing path: the report has no usable price (B, at the Clerk, did not recover): every Solver call is late.
  if (decide("late")) return call("lookup", { sku: it.renamed ?? it.sku });
  if (!lastCalc) return call("calculator", { expression: `${task.qty} * ${price2(it.category === "C4" ? it.flyer : ASSUMED_PRICE)}` });
  return answer();
}
