/**
 * Tool calls of an OTel trace (phases of traceToCase, otel-spans.ts): each tool span's call id
 * (attribute, else inferred from the generation that asked for it), its arguments, and the tool
 * calls named in an LLM's output that no tool span ran.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Things to handle" (openai-agents
 * tool spans carry no call id); issue 20 item 10 (calls a framework refused to run).
 */
import type { ChatMessage, ChatToolCall } from "./otel-messages";
import { toolArgumentsOf, toolCallIdAttr, toolNameOf } from "./otel-span-readings";
import type { OtelSpan } from "./otel-types";
import { type ArgumentsNote, isRec, parseJsonValue } from "./otel-values";
import type { ImportWarning } from "./types";

/** A tool call named in an LLM span's output messages: message index, call index, the call as written. */
export interface NamedCall {
  message: number;
  index: number;
  call: ChatToolCall;
}

/** A tool span's call id and where it came from. */
export interface CallId {
  id: string;
  source: "attribute" | "inferred";
}

/**
 * Arguments in one comparable form: JSON text decoded, object keys sorted, then JSON text
 * (`null` for none). Two calls with the same arguments give the same string.
 */
export function canonicalArgs(v: unknown): string {
  const p = parseJsonValue(v);
  const sortKeys = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sortKeys)
      : isRec(x)
        ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])]))
        : x;
  return JSON.stringify(sortKeys(p) ?? null);
}

/**
 * Call ids of the tool spans: from the call-id attribute, else inferred from a generation at or
 * before the tool in the observed order whose output holds a call to this tool with the same
 * arguments and an id not yet taken (the last such call wins; openai-agents).
 * @param spansInOrder the spans in observed order
 * @param llmInOrder the LLM spans in observed order
 * @param rank each span's position in `spansInOrder`
 * @param outMsgs each LLM span's output messages (null: none readable)
 * @returns the call id of each tool span that has one, and every id taken by a tool span
 */
export function inferCallIds(
  spansInOrder: readonly OtelSpan[],
  llmInOrder: readonly OtelSpan[],
  rank: ReadonlyMap<string, number>,
  outMsgs: ReadonlyMap<string, ChatMessage[] | null>,
): { callIdOf: Map<string, CallId>; taken: Set<string> } {
  const callIdOf = new Map<string, CallId>();
  const taken = new Set<string>();
  for (const s of spansInOrder) {
    if (s.category !== "tool") continue;
    const a = toolCallIdAttr(s);
    if (a) {
      callIdOf.set(s.id, { id: a, source: "attribute" });
      taken.add(a);
    }
  }
  for (const s of spansInOrder) {
    if (s.category !== "tool" || callIdOf.has(s.id)) continue;
    const name = toolNameOf(s);
    const args = canonicalArgs(toolArgumentsOf(s).value);
    let best: string | null = null;
    for (const g of llmInOrder) {
      if (rank.get(g.id)! > rank.get(s.id)!) break;
      for (const m of outMsgs.get(g.id) ?? [])
        for (const tc of m.tool_calls ?? [])
          if (tc.id && !taken.has(tc.id) && tc.name === name && canonicalArgs(tc.arguments) === args) best = tc.id;
    }
    if (best) {
      callIdOf.set(s.id, { id: best, source: "inferred" });
      taken.add(best);
    }
  }
  return { callIdOf, taken };
}

/**
 * The tool calls named in an LLM's output that no tool span ran (issue 20 item 10). A call is run
 * by the tool span with its call id (`taken`); else, for a tool span without a call id that comes
 * later in the order, one of the same name with the same arguments (tried first for every call of
 * the output), else of the same name. Each such span runs at most one call.
 * @param llmInOrder the LLM spans in observed order
 * @param spansInOrder the spans in observed order
 * @param callIdOf / taken from {@link inferCallIds}
 * @returns per LLM span (in order, every one, possibly with no calls), its unrun calls in output order
 */
export function unrunCalls(
  llmInOrder: readonly OtelSpan[],
  spansInOrder: readonly OtelSpan[],
  callIdOf: ReadonlyMap<string, CallId>,
  taken: ReadonlySet<string>,
  rank: ReadonlyMap<string, number>,
  outMsgs: ReadonlyMap<string, ChatMessage[] | null>,
): Array<{ llm: OtelSpan; calls: NamedCall[] }> {
  const idLess = spansInOrder.filter((s) => s.category === "tool" && !callIdOf.has(s.id));
  return llmInOrder.map((g) => {
    let open: NamedCall[] = [];
    (outMsgs.get(g.id) ?? []).forEach((m, mi) => (m.tool_calls ?? []).forEach((tc, ci) => (tc.id && taken.has(tc.id) ? null : open.push({ message: mi, index: ci, call: tc }))));
    // Same name and arguments first (for every call of this output), then same name.
    for (const sameArgs of [true, false]) {
      open = open.filter(({ call: tc }) => {
        const ran = idLess.find((s) => rank.get(s.id)! > rank.get(g.id)! && toolNameOf(s) === tc.name && (!sameArgs || canonicalArgs(toolArgumentsOf(s).value) === canonicalArgs(tc.arguments)));
        if (ran) idLess.splice(idLess.indexOf(ran), 1);
        return !ran;
      });
    }
    return { llm: g, calls: open };
  });
}

/**
 * One `tool-arguments-not-object` warning per unrun call whose arguments are not a JSON object
 * (kept verbatim as text), in order; path: the LLM span.
 */
export function unrunCallWarnings(unrun: ReadonlyArray<{ llm: OtelSpan; calls: NamedCall[] }>): ImportWarning[] {
  const warnings: ImportWarning[] = [];
  for (const { llm: g, calls } of unrun)
    for (const nc of calls)
      if (nc.call.argumentsNote)
        warnings.push({ kind: "tool-arguments-not-object", path: g.path, message: `span ${g.id}: tool call ${nc.index} of output message ${nc.message} (${nc.call.name ?? "?"}): arguments ${nc.call.argumentsNote}: kept verbatim as text` });
  return warnings;
}

/**
 * Each tool span's arguments (toolArgumentsOf), and a `tool-arguments-not-object` warning (path:
 * the span) for each whose arguments are not a JSON object, in observed order.
 */
export function toolArguments(spansInOrder: readonly OtelSpan[]): { argsOf: Map<string, { value: unknown; note?: ArgumentsNote }>; warnings: ImportWarning[] } {
  const argsOf = new Map<string, { value: unknown; note?: ArgumentsNote }>();
  const warnings: ImportWarning[] = [];
  for (const s of spansInOrder) {
    if (s.category !== "tool") continue;
    const a = toolArgumentsOf(s);
    argsOf.set(s.id, a);
    if (a.note) warnings.push({ kind: "tool-arguments-not-object", path: s.path, message: `span ${s.id}: tool-call arguments ${a.note}: kept verbatim as text` });
  }
  return { argsOf, warnings };
}
