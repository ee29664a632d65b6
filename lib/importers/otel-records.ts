/**
 * The boundary records of an OTel trace's bundle (a phase of traceToCase, otel-spans.ts): what each
 * LLM call and tool call was asked and answered, for replay.
 *
 * Source: the bundle v1 spec (records); lib/importers/README.md §"Records"; the request
 * normalization is `OTEL_NORMALIZATION` (otel-spans.ts).
 */
import type { RecordDraft } from "../bundle";
import { nsToMs, requestModelOf, type SpanReadings, temperatureOf, toolNameOf, toolsOf } from "./otel-span-readings";
import type { CallId } from "./otel-tool-calls";
import type { OtelSpan } from "./otel-types";
import { type ArgumentsNote, clean, jsonSafe, type Rec } from "./otel-values";

/** What the record phase reads. */
export interface RecordInputs {
  spansInOrder: readonly OtelSpan[];
  spanNode: ReadonlyMap<string, string>;
  /** Checked start and end of each span, ns (checkSpans). */
  start: ReadonlyMap<string, bigint>;
  end: ReadonlyMap<string, bigint>;
  readings: SpanReadings;
  callIdOf: ReadonlyMap<string, CallId>;
  argsOf: ReadonlyMap<string, { value: unknown; note?: ArgumentsNote }>;
}

/**
 * Records in observed order: one `llm` record per LLM span with input messages and an output
 * (request `{model, messages (role, content, name, tool_calls[{name, arguments}]), tools?,
 * temperature?}`, response = the output), one `tool` record per tool span (request `{name,
 * arguments}`, response = the output). Meta: latency in ms (rounded to µs) and ns (decimal string),
 * span id; model and usage (llm); call id and error status (tool).
 */
export function buildRecords(x: RecordInputs): RecordDraft[] {
  const { inMsgs, unflat } = x.readings;
  const records: RecordDraft[] = [];
  for (const s of x.spansInOrder) {
    const latencyMs = nsToMs(x.end.get(s.id)! - x.start.get(s.id)!);
    const latencyNs = (x.end.get(s.id)! - x.start.get(s.id)!).toString();
    if (s.category === "llm") {
      const msgs = inMsgs.get(s.id);
      if (!msgs || msgs.length === 0 || s.output === null || s.output === undefined) continue;
      const tools = toolsOf(s, unflat.get(s.id)!);
      records.push({
        nodeId: x.spanNode.get(s.id)!,
        boundary: "llm",
        request: jsonSafe(
          clean({
            model: requestModelOf(s),
            messages: msgs.map((m) =>
              clean({
                role: m.role,
                content: m.content,
                name: m.name,
                tool_calls: m.tool_calls?.map((tc) => ({ name: tc.name, arguments: tc.arguments })),
              }),
            ),
            tools,
            temperature: temperatureOf(s),
          }),
        ),
        response: jsonSafe(s.output),
        meta: jsonSafe(clean({ latencyMs, latencyNs, model: s.model ?? undefined, usage: s.usage ?? undefined, spanId: s.id })) as Rec,
      });
    } else if (s.category === "tool") {
      records.push({
        nodeId: x.spanNode.get(s.id)!,
        boundary: "tool",
        request: jsonSafe({ name: toolNameOf(s), arguments: x.argsOf.get(s.id)!.value ?? null }),
        response: jsonSafe(s.output ?? null),
        meta: jsonSafe(
          clean({ latencyMs, latencyNs, spanId: s.id, callId: x.callIdOf.get(s.id)?.id, status: s.status.error ? "error" : undefined }),
        ) as Rec,
      });
    }
  }
  return records;
}
