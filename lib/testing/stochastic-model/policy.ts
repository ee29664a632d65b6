/**
 * Test support for the seeded stochastic model server: the agent policy. Given a protocol-neutral
 * {@link Conversation}, it decides what a believable tool-using model would do next, so that
 * unmodified frameworks run real multi-step loops against it:
 *
 * 1. `tool_choice: none`, or no tools offered → answer.
 * 2. Function tools (everything that is not a hand-off) not yet called in this conversation →
 *    call them: all in one reply when parallel tool calls are allowed, else the first one.
 *    Arguments are filled from each tool's JSON Schema (strings from the task: a place name for
 *    `city`/`location`, the task itself for `query`/`task`/`question`/`input`/`request`; numbers
 *    from the task's digits or random; enums picked at random).
 * 3. Hand-off tools (`transfer_to_*`) not yet taken → take one: the most relevant to the task
 *    (shared words between the task and the tool's name/description), ties broken at random.
 * 4. Otherwise answer: a text naming the test model and summarising the tool results so far.
 *
 * Randomness (filler words, argument values, tie breaks) comes from the caller's seeded `Rng`;
 * the decision itself (call / hand off / answer) depends on the conversation only. Every answer
 * starts with {@link TEST_MODEL_TAG} so its output says it is a test model.
 */
import type { Conversation, OfferedTool, Turn } from "./conversation";

/** The model name the server reports, and the tag every answer text starts with. */
export const STOCHASTIC_MODEL = "seeded-stochastic-test-model";
export const TEST_MODEL_TAG = `[${STOCHASTIC_MODEL}]`;

/** A seeded source of integers in [lo, hi] (inclusive). */
export interface Rng {
  int(lo: number, hi: number): number;
}

/** What the model does: a text, tool calls, or both. Ids are assigned by the wire layer. */
export interface Decision {
  text: string;
  calls: Array<{ name: string; arguments: string }>;
}

const HANDOFF = /^transfer_to_/i;
/** An answer of this model quoted back (a subagent's answer as a tool result): the tag and filler are dropped. */
const TAGGED = /^\[seeded-stochastic-test-model\] [A-Za-z ]+: /;
const PLACES = ["Paris", "Lisbon", "Oslo", "Kyoto", "Quito"];
const FILLER = ["In short", "To sum up", "Putting it together", "All in all", "Overall"];
const WORDS = (s: string) => new Set(s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2));

/** The task: the first user text (the framework's input), else the last user text. */
export function taskOf(turns: Turn[]): string {
  const users = turns.filter((t): t is Extract<Turn, { kind: "user" }> => t.kind === "user" && t.text.trim() !== "");
  return users[0]?.text ?? "";
}

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.int(0, xs.length - 1)];
}

/** A capitalised word of the task that is not its first word (a place or name), or a random place. */
function placeOf(task: string, rng: Rng): string {
  const words = task.split(/[^A-Za-z]+/).filter(Boolean);
  const proper = words.slice(1).filter((w) => /^[A-Z][a-z]+$/.test(w) && !["What", "How", "The", "And", "Then", "Use"].includes(w));
  return proper[0] ?? pick(rng, PLACES);
}

function valueFor(key: string, schema: Record<string, unknown>, task: string, rng: Rng): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (Array.isArray(schema.enum) && schema.enum.length) return pick(rng, schema.enum);
  if (type === "number" || type === "integer") {
    const nums = (task.match(/\d+(\.\d+)?/g) ?? []).map(Number);
    const used = nums.length ? nums[rng.int(0, nums.length - 1)] : rng.int(1, 40);
    return type === "integer" ? Math.round(used) : used;
  }
  if (type === "boolean") return rng.int(0, 1) === 1;
  if (type === "array") return [];
  if (type === "object") return argumentsFor({ parameters: schema }, task, rng);
  const k = key.toLowerCase();
  if (/city|location|place|town|country|destination/.test(k)) return placeOf(task, rng);
  if (/query|task|question|input|request|prompt|topic|text|message/.test(k)) return task;
  if (/expr|formula/.test(k)) {
    const nums = task.match(/\d+/g) ?? ["2", "3"];
    return `${nums[0]} * ${nums[1] ?? "2"}`;
  }
  return `${k}-${rng.int(1, 999)}`;
}

/** Arguments for a tool, filled from its JSON Schema (every listed property). */
export function argumentsFor(tool: Pick<OfferedTool, "parameters">, task: string, rng: Rng): Record<string, unknown> {
  const schema = (tool.parameters ?? {}) as { properties?: Record<string, Record<string, unknown>> };
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(schema.properties ?? {})) out[key] = valueFor(key, sub ?? {}, task, rng);
  return out;
}

function relevance(tool: OfferedTool, task: string): number {
  const t = WORDS(task);
  let n = 0;
  for (const w of WORDS(`${tool.name.replace(/_/g, " ")} ${tool.description}`)) if (t.has(w) && !["transfer", "agent", "the", "and"].includes(w)) n++;
  return n;
}

/** An answer text: the tag, a filler phrase, the task and what the tools returned. */
function answer(conv: Conversation, rng: Rng): Decision {
  const names = new Map(conv.turns.filter((t) => t.kind === "call").map((t) => [t.id, t.name]));
  const results = conv.turns
    .filter((t): t is Extract<Turn, { kind: "result" }> => t.kind === "result")
    .filter((r) => !/^transfer_/i.test(names.get(r.id) ?? ""))
    .map((r) => `${names.get(r.id) ?? "tool"} said ${r.text.replace(TAGGED, "").replace(/\s+/g, " ").slice(0, 160)}`);
  for (const t of conv.turns) if (t.kind === "assistant" && t.text && results.length < 6) results.push(`${t.name ?? "an agent"} said ${t.text.replace(TAGGED, "").replace(/\s+/g, " ").slice(0, 120)}`);
  const task = taskOf(conv.turns).replace(/\s+/g, " ").slice(0, 200);
  const body = results.length ? `${results.join("; ").replace(/[.\s]+$/, "")}.` : `my answer to "${task}" is ${rng.int(2, 99)}.`;
  return { text: `${TEST_MODEL_TAG} ${pick(rng, FILLER)}: ${body}`, calls: [] };
}

/** The next move for this conversation (see the module doc for the rule). */
export function decide(conv: Conversation, rng: Rng): Decision {
  if (conv.toolChoice.type === "none" || conv.tools.length === 0) return answer(conv, rng);
  const task = taskOf(conv.turns);
  const called = new Set(conv.turns.filter((t) => t.kind === "call").map((t) => t.name));
  let offered = conv.tools;
  if (conv.toolChoice.type === "tool") {
    const name = conv.toolChoice.name;
    offered = conv.tools.filter((t) => t.name === name);
  }
  const functions = offered.filter((t) => !HANDOFF.test(t.name) && !called.has(t.name));
  if (functions.length) {
    const chosen = conv.parallelToolCalls ? functions : functions.slice(0, 1);
    return { text: "", calls: chosen.map((t) => ({ name: t.name, arguments: JSON.stringify(argumentsFor(t, task, rng)) })) };
  }
  const handoffs = offered.filter((t) => HANDOFF.test(t.name) && !called.has(t.name));
  if (handoffs.length) {
    const best = Math.max(...handoffs.map((t) => relevance(t, task)));
    const top = handoffs.filter((t) => relevance(t, task) === best);
    const t = pick(rng, top);
    return { text: "", calls: [{ name: t.name, arguments: JSON.stringify(argumentsFor(t, task, rng)) }] };
  }
  if (conv.toolChoice.type === "required" || conv.toolChoice.type === "tool") {
    const t = offered[0] ?? conv.tools[0];
    return { text: "", calls: [{ name: t.name, arguments: JSON.stringify(argumentsFor(t, task, rng)) }] };
  }
  return answer(conv, rng);
}
