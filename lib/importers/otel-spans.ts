/**
 * Shared core of the OpenTelemetry importers (Langfuse trace exports and OTLP/JSON): one internal
 * span list, mapped onto a replay bundle v1 (the bundle v1 spec) exactly once.
 *
 * Data flow: an adapter (otel-langfuse.ts, otel-otlp.ts) turns its input shape into an
 * {@link OtelTrace} (spans with flat attributes whose JSON-string values are already parsed);
 * {@link traceToCase} checks the tree and the times, orders the spans, and builds nodes, edges,
 * boundary records, task/config/outcome, source and reference labels.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Mapping to an
 * event-dependency graph" and §"Things to handle"; OpenInference and OTel GenAI semantic
 * conventions for the attribute names. See otel.md for the mapping in plain words.
 */
import { buildBundle, type BundleEdge, BundleValidationError, type NodeDraft, type NodeType, type RecordDraft } from "../bundle";
import { formatDurationNs } from "../duration";
import { checkSpans, dedupeSpans } from "./otel-checks";
import { type ChatMessage, type ChatToolCall, finalText, messageText, normalizeMessages } from "./otel-messages";
import { AGENT_NAME_KEYS, cmpBig, inputMessagesOf, masOf, nsToMs, outputMessagesOf, requestModelOf, temperatureOf, toolArgumentsOf, toolCallIdAttr, toolNameOf, toolsOf } from "./otel-span-readings";
import type { OtelBundleSource, OtelSpan, OtelTrace, SpanCategory, TraceResult } from "./otel-types";
import { type ArgumentsNote, asText, clean, isRec, jsonSafe, oneLine, parseJsonValue, type Rec, str, unflattenIndexed } from "./otel-values";
import { findLoneSurrogate } from "./parse";
import type { ImportWarning, ReferenceLabel } from "./types";

const NODE_TYPE: Record<SpanCategory, NodeType> = {
  agent: "agent_action",
  llm: "llm_call",
  tool: "tool_call",
  span: "agent_action",
};

/** A span tree with more levels than this gets a `deep-span-tree` warning naming its depth. */
export const DEEP_SPAN_TREE = 100;

/** The request normalization stored in `config.replay.normalization`. */
export const OTEL_NORMALIZATION =
  "otel-import/v1: llm request = {model, messages (role, content, name, tool_calls[{name, arguments}]; ids, tool_call_id and timestamps dropped), tools?, temperature?}; tool request = {name, arguments}";

interface Item {
  kind: "span" | "result" | "call" | "final";
  span: OtelSpan | null;
  t: bigint;
  depth: number;
  tie: string;
  sub: number;
  /** kind "call": a tool call named in `span`'s (an LLM's) output that no tool span ran. */
  call?: NamedCall;
}

/** A tool call named in an LLM span's output messages: message index, call index, the call as written. */
interface NamedCall {
  message: number;
  index: number;
  call: ChatToolCall;
}

/**
 * Map one trace onto a replay bundle.
 *
 * Nodes: one per (deduplicated) span — AGENT and plain SPAN/CHAIN spans -> agent_action,
 * LLM/GENERATION -> llm_call, TOOL -> tool_call plus a tool_result holding its output — and one
 * final_result. Order: start time (clamped to the parent's), then depth, then id; tool_result at
 * its tool's end time; final_result last. Edges: containment (control), tool_call -> tool_result
 * (data), consecutive siblings that do not overlap in time (control), tool-call-id data flow
 * (producing generation -> tool_call, tool_result -> first consuming generation), last
 * generation -> final_result (data). Records: one llm record per llm_call with input messages and
 * output, one tool record per tool_call, in observed order.
 *
 * Imperfect spans are repaired, not rejected (dedupeSpans, checkSpans): duplicate ids, orphans,
 * all-zero parents, cycles, skewed and open spans, unresolved links, non-object tool arguments;
 * each repair is an ImportWarning on the case and in `source.importWarnings`, and a marker in the
 * span node's `content.importWarnings`. Linear in the number of spans, no recursion.
 *
 * @returns `{ok: true, value}` with the case and its warnings, or `{ok: false, failure}` naming
 *   every fault with its JSON path (a missing/unparseable start time, a lone surrogate) or the
 *   bundle validation issues. Never throws.
 */
export function traceToCase(trace: OtelTrace): TraceResult {
  const where = `${trace.fileName}#traceId=${trace.traceId}`;
  const notes = [...trace.notes];
  const deduped = dedupeSpans(trace.spans);
  // Copies: checkSpans repairs parent ids in place.
  const spans = deduped.spans.map((s) => ({ ...s }));
  const warnings: ImportWarning[] = [...(trace.warnings ?? []), ...deduped.warnings];
  if (spans.length === 0) {
    return { ok: false, failure: { where, errors: [{ path: "$", message: `trace ${trace.traceId} has no spans` }] } };
  }
  // Text that cannot be hashed or stored (a lone UTF-16 surrogate): name the innermost path.
  const unhashable = spans.map((s) => (s.raw !== undefined ? findLoneSurrogate(s.raw, s.path) : null)).filter((x) => x !== null);
  if (unhashable.length > 0) return { ok: false, failure: { where, errors: unhashable } };
  const checked = checkSpans(spans);
  if (checked.errors.length > 0) return { ok: false, failure: { where, errors: checked.errors } };
  warnings.push(...checked.warnings);
  const marks = checked.marks;
  const mark = (s: OtelSpan, text: string) => marks.set(s.id, [...(marks.get(s.id) ?? []), text]);

  // Tree: depth and start clamped to the parent's start (so the order is a linear extension).
  const { depth, effStart, topo, clamped } = spanTree(spans, checked.start);
  if (clamped > 0) notes.push(`${clamped} span(s) start before their parent: ordered at the parent's start`);
  // A span tree deeper than any agent run nests (a runaway recursion, a broken parent chain) is
  // reported with its depth, on the case and on the deepest span's node (issue 20 item 11).
  let deepest: OtelSpan | null = null;
  for (const s of topo) if (!deepest || depth.get(s.id)! > depth.get(deepest.id)!) deepest = s;
  const levels = deepest ? depth.get(deepest.id)! + 1 : 0;
  if (deepest && levels > DEEP_SPAN_TREE) {
    const n = levels.toLocaleString("en-US");
    warnings.push({ kind: "deep-span-tree", path: deepest.paths.parentId, message: `span tree is ${n} levels deep (deepest span ${deepest.id}); more than ${DEEP_SPAN_TREE} levels` });
    mark(deepest, `span tree depth ${n}: deepest span`);
  }

  const fileIndex = new Map(spans.map((s, i) => [s.id, i]));
  if (spans.some((s) => s.parentId !== null && fileIndex.get(s.parentId)! > fileIndex.get(s.id)!)) {
    notes.push("spans are listed out of tree order (a child before its parent); tree rebuilt from parent ids");
  }

  // Observed order.
  const items: Item[] = [];
  for (const s of spans) {
    items.push({ kind: "span", span: s, t: effStart.get(s.id)!, depth: depth.get(s.id)!, tie: s.id, sub: 0 });
    if (s.category === "tool") {
      const end = checked.end.get(s.id)!;
      const t = end < effStart.get(s.id)! ? effStart.get(s.id)! : end;
      items.push({ kind: "result", span: s, t, depth: depth.get(s.id)!, tie: s.id, sub: 1 });
    }
  }
  const byTime = (a: Item, b: Item) => cmpBig(a.t, b.t) || a.depth - b.depth || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0) || a.sub - b.sub;
  items.sort(byTime);

  // Per-span readings.
  const unflat = new Map(spans.map((s) => [s.id, unflattenIndexed(s.attributes)]));
  const inMsgs = new Map<string, ChatMessage[] | null>();
  const outMsgs = new Map<string, ChatMessage[] | null>();
  for (const s of spans) {
    if (s.category !== "llm") continue;
    inMsgs.set(s.id, inputMessagesOf(s, unflat.get(s.id)!));
    outMsgs.set(s.id, outputMessagesOf(s, unflat.get(s.id)!));
  }
  const spansInOrder = items.filter((it) => it.kind === "span").map((it) => it.span!);
  // Rank of each span in the observed order (the tool-call nodes added below do not change it).
  const rank = new Map(spansInOrder.map((s, i) => [s.id, i]));
  const llmInOrder = spansInOrder.filter((s) => s.category === "llm");

  // Tool call ids: from the attribute, else inferred from the generation whose output holds a
  // call to this tool with the same arguments (openai-agents).
  const callIdOf = new Map<string, { id: string; source: "attribute" | "inferred" }>();
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

  // Every tool call named in an LLM's output is a tool_call node (issue 20 item 10): the tool span
  // that ran it (same call id; else, for a span without one, a later tool span of the same name
  // with the same arguments, else of the same name), or, when no tool span ran it (a framework
  // refuses arguments that are not JSON), a node of its own right after the LLM, holding the
  // arguments exactly as the message wrote them.
  const idLess = spansInOrder.filter((s) => s.category === "tool" && !callIdOf.has(s.id));
  let unrun = 0;
  for (const g of llmInOrder) {
    const end = checked.end.get(g.id)!;
    const t = end < effStart.get(g.id)! ? effStart.get(g.id)! : end;
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
    open.forEach((nc, k) => {
      items.push({ kind: "call", span: g, t, depth: depth.get(g.id)!, tie: g.id, sub: 2 + k, call: nc });
      unrun++;
      if (nc.call.argumentsNote)
        warnings.push({ kind: "tool-arguments-not-object", path: g.path, message: `span ${g.id}: tool call ${nc.index} of output message ${nc.message} (${nc.call.name ?? "?"}): arguments ${nc.call.argumentsNote}: kept verbatim as text` });
    });
  }
  if (unrun > 0) {
    items.sort(byTime);
    notes.push(`${unrun} tool call(s) named in an LLM's output with no tool span that ran them: each is a tool_call node (executed: false) after its LLM`);
  }
  items.push({ kind: "final", span: null, t: 0n, depth: 0, tie: "", sub: 0 });

  const pad = (i: number) => String(i).padStart(4, "0");
  const typeOf = (it: Item): NodeType =>
    it.kind === "final" ? "final_result" : it.kind === "result" ? "tool_result" : it.kind === "call" ? "tool_call" : NODE_TYPE[it.span!.category];
  const ids = items.map((it, i) => `${typeOf(it)}_${pad(i)}`);
  const spanNode = new Map<string, string>();
  const resultNode = new Map<string, string>();
  items.forEach((it, i) => {
    if (it.kind === "span") spanNode.set(it.span!.id, ids[i]);
    if (it.kind === "result") resultNode.set(it.span!.id, ids[i]);
  });
  const pos = new Map(ids.map((id, i) => [id, i]));
  const byIdFirst = new Set(spans.filter((s) => !s.duplicateOf).map((s) => s.id));

  // Agent: the span's own agent-name attribute, else its name if it is an AGENT span, else its
  // parent's agent. Computed parents first (topo order), so deep chains stay linear.
  const agentMemo = new Map<string, string | null>();
  for (const s of topo) {
    let a: string | null = null;
    for (const k of AGENT_NAME_KEYS) {
      a = str(s.attributes[k]);
      if (a) break;
    }
    if (!a && s.category === "agent") a = s.name;
    if (!a && s.parentId !== null) a = agentMemo.get(s.parentId) ?? null;
    agentMemo.set(s.id, a);
  }
  const agentOf = (s: OtelSpan): string | null => agentMemo.get(s.id) ?? null;


  // Edges.
  const edgeMap = new Map<string, BundleEdge>();
  const addEdge = (from: string, to: string, kind: "data" | "control") => {
    if (from === to || pos.get(from)! >= pos.get(to)!) return false;
    const key = `${from}->${to}`;
    const prev = edgeMap.get(key);
    if (!prev || (prev.kind === "control" && kind === "data")) edgeMap.set(key, { from, to, kind });
    return true;
  };
  for (const s of spansInOrder) if (s.parentId !== null) addEdge(spanNode.get(s.parentId)!, spanNode.get(s.id)!, "control");
  for (const s of spansInOrder) if (s.category === "tool") addEdge(spanNode.get(s.id)!, resultNode.get(s.id)!, "data");
  const siblingGroups = new Map<string, OtelSpan[]>();
  for (const s of spansInOrder) {
    const k = s.parentId ?? "\u0000root";
    const g = siblingGroups.get(k);
    if (g) g.push(s);
    else siblingGroups.set(k, [s]);
  }
  for (const group of siblingGroups.values()) {
    for (let i = 1; i < group.length; i++) {
      const a = group[i - 1];
      const b = group[i];
      if (checked.end.get(a.id)! <= checked.start.get(b.id)!) addEdge(spanNode.get(a.id)!, spanNode.get(b.id)!, "control");
    }
  }
  const dataFlow: Array<{ from: string; to: string; callId: string }> = [];
  for (const s of spansInOrder) {
    const cid = callIdOf.get(s.id)?.id;
    if (!cid) continue;
    const callNode = spanNode.get(s.id)!;
    const resNode = resultNode.get(s.id)!;
    const producer = llmInOrder.find((g) =>
      (outMsgs.get(g.id) ?? []).some((m) => (m.tool_calls ?? []).some((tc) => tc.id === cid)),
    );
    if (producer && addEdge(spanNode.get(producer.id)!, callNode, "data"))
      dataFlow.push({ from: spanNode.get(producer.id)!, to: callNode, callId: cid });
    const consumer = llmInOrder.find(
      (g) =>
        pos.get(spanNode.get(g.id)!)! > pos.get(resNode)! &&
        (inMsgs.get(g.id) ?? []).some((m) => m.role === "tool" && m.tool_call_id === cid),
    );
    if (consumer && addEdge(resNode, spanNode.get(consumer.id)!, "data"))
      dataFlow.push({ from: resNode, to: spanNode.get(consumer.id)!, callId: cid });
  }

  // Unrun tool calls: producing generation -> call (data); call -> the first later generation whose
  // input answers its call id (a framework's error message in place of a result).
  items.forEach((it, i) => {
    if (it.kind !== "call") return;
    const from = spanNode.get(it.span!.id)!;
    addEdge(from, ids[i], "data");
    const cid = it.call!.call.id;
    if (cid) dataFlow.push({ from, to: ids[i], callId: cid });
    const consumer = cid
      ? llmInOrder.find((g) => pos.get(spanNode.get(g.id)!)! > i && (inMsgs.get(g.id) ?? []).some((m) => m.role === "tool" && m.tool_call_id === cid))
      : undefined;
    if (consumer && addEdge(ids[i], spanNode.get(consumer.id)!, "data")) dataFlow.push({ from: ids[i], to: spanNode.get(consumer.id)!, callId: cid! });
  });

  // Final result: trace output, else the root's output, else the last generation's output.
  const firstRoot = spansInOrder.find((s) => s.parentId === null) ?? null;
  const lastLlm = llmInOrder.length > 0 ? llmInOrder[llmInOrder.length - 1] : null;
  let finalFrom: string;
  let finalOutput: unknown;
  if (trace.traceOutput !== null && trace.traceOutput !== undefined) {
    finalFrom = "trace.output";
    finalOutput = trace.traceOutput;
  } else if (firstRoot && firstRoot.output !== null && firstRoot.output !== undefined) {
    finalFrom = "root.output";
    finalOutput = firstRoot.output;
  } else if (lastLlm && lastLlm.output !== null && lastLlm.output !== undefined) {
    finalFrom = "last_generation.output";
    finalOutput = lastLlm.output;
  } else {
    finalFrom = "none";
    finalOutput = null;
    notes.push("no trace output, root output or generation output: final_result is empty");
  }
  const finalProducer = lastLlm ?? firstRoot;
  const finalId = ids[ids.length - 1];
  if (finalProducer) addEdge(spanNode.get(finalProducer.id)!, finalId, "data");

  // Span links: references only (never parent edges); a link to a span not in this trace is an
  // unresolved reference.
  const linksOf = new Map<string, Array<Rec>>();
  for (const s of spansInOrder) {
    if (!s.links || s.links.length === 0) continue;
    linksOf.set(
      s.id,
      s.links.map((l) => {
        const target = (l.traceId === null || l.traceId === trace.traceId) && byIdFirst.has(l.spanId) ? spanNode.get(l.spanId)! : null;
        if (target !== null) return { traceId: l.traceId, spanId: l.spanId, nodeId: target };
        mark(s, `unresolved link: span ${l.spanId} not in trace`);
        warnings.push({ kind: "unresolved-link", path: `${s.path}.links`, message: `span ${s.id}: link to span ${l.spanId} (trace ${l.traceId ?? "?"}) which is not in this trace: kept as an unresolved reference` });
        return { traceId: l.traceId, spanId: l.spanId, nodeId: null, unresolved: true };
      }),
    );
  }
  const argsOf = new Map<string, { value: unknown; note?: ArgumentsNote }>();
  for (const s of spansInOrder) {
    if (s.category !== "tool") continue;
    const a = toolArgumentsOf(s);
    argsOf.set(s.id, a);
    if (a.note)
      warnings.push({ kind: "tool-arguments-not-object", path: s.path, message: `span ${s.id}: tool-call arguments ${a.note}: kept verbatim as text` });
  }
  const durationOf = (s: OtelSpan) => {
    const ns = checked.end.get(s.id)! - checked.start.get(s.id)!;
    return { durationNs: ns.toString(), duration: formatDurationNs(ns) };
  };

  // Nodes.
  const nodes: NodeDraft[] = items.map((it, i) => {
    const id = ids[i];
    if (it.kind === "final") {
      const text = finalOutput === null ? "" : finalText(finalOutput);
      return clean({
        id,
        type: "final_result" as const,
        agent: finalProducer ? (agentOf(finalProducer) ?? undefined) : undefined,
        label: oneLine(text || "(no output)"),
        content: jsonSafe({ from: finalFrom, text, output: finalOutput }),
      });
    }
    const s = it.span!;
    const agent = agentOf(s) ?? undefined;
    if (it.kind === "call") {
      const { call: tc, message, index } = it.call!;
      const name = tc.name ?? "?";
      return clean({
        id,
        type: "tool_call" as const,
        agent,
        label: oneLine(`${name}(${asText(tc.arguments)}) · not run`),
        content: jsonSafe({
          tool: clean({ name: tc.name, arguments: tc.arguments ?? null, argumentsNote: tc.argumentsNote, callId: tc.id, callIdSource: tc.id ? "message" : null }),
          namedBy: { nodeId: spanNode.get(s.id)!, spanId: s.duplicateOf?.spanId ?? s.id, message, call: index },
          executed: false,
          note: "named in the LLM's output; no tool span in the trace ran it",
        }),
      });
    }
    const errorInfo = s.status.error ? errorOf(s) : undefined;
    const common = {
      spanId: s.duplicateOf?.spanId ?? s.id,
      parentSpanId: checked.declaredParent.get(s.id) ?? null,
      traceId: s.traceId,
      name: s.name,
      kind: s.kind,
      startTime: s.startTime,
      endTime: s.endTime ?? null,
      ...durationOf(s),
      ...s.extra,
      importWarnings: marks.get(s.id),
      duplicateOf: s.duplicateOf,
      links: linksOf.get(s.id),
    };
    if (it.kind === "result") {
      const cid = callIdOf.get(s.id);
      const outText = s.output === null || s.output === undefined ? "" : asText(s.output);
      return clean({
        id,
        type: "tool_result" as const,
        agent,
        label: oneLine(`${toolNameOf(s)} → ${errorInfo ? `error: ${errorInfo.message ?? ""}` : outText || "(no output)"}`),
        content: jsonSafe({ tool: toolNameOf(s), callId: cid?.id ?? null, spanId: s.duplicateOf?.spanId ?? s.id, output: s.output ?? null }),
        status: errorInfo ? ("error" as const) : undefined,
        error: errorInfo,
      });
    }
    const attrs = { ...unflat.get(s.id)! };
    let content: Rec;
    let label: string;
    if (s.category === "tool") {
      for (const k of ["output.value", "output.mime_type", "gen_ai.tool.call.result"]) delete attrs[k];
      const cid = callIdOf.get(s.id);
      const args = argsOf.get(s.id)!;
      content = clean({
        ...common,
        tool: clean({
          name: toolNameOf(s),
          arguments: args.value ?? null,
          argumentsNote: args.note,
          callId: cid?.id ?? null,
          callIdSource: cid?.source ?? null,
        }),
        input: s.input ?? null,
        status: s.status.code || s.status.message ? { code: s.status.code, message: s.status.message } : undefined,
        attributes: attrs,
        events: s.events.length > 0 ? s.events : undefined,
        scope: s.scope ?? undefined,
      });
      label = `${toolNameOf(s)}(${asText(args.value)})`;
    } else {
      const isLlm = s.category === "llm";
      content = clean({
        ...common,
        model: s.model ?? undefined,
        usage: s.usage ?? undefined,
        input: s.input ?? null,
        output: s.output ?? null,
        messages: isLlm ? { input: inMsgs.get(s.id) ?? [], output: outMsgs.get(s.id) ?? [] } : undefined,
        status: s.status.code || s.status.message ? { code: s.status.code, message: s.status.message } : undefined,
        attributes: attrs,
        events: s.events.length > 0 ? s.events : undefined,
        scope: s.scope ?? undefined,
      });
      label = isLlm ? llmLabel(s, outMsgs.get(s.id) ?? []) : s.name;
    }
    return clean({
      id,
      type: typeOf(it),
      agent,
      label: oneLine(label || s.name || s.id),
      content: jsonSafe(content),
      status: errorInfo ? ("error" as const) : undefined,
      error: errorInfo,
    });
  });

  // Records, in observed order.
  const records: RecordDraft[] = [];
  for (const s of spansInOrder) {
    const latencyMs = nsToMs(checked.end.get(s.id)! - checked.start.get(s.id)!);
    const latencyNs = (checked.end.get(s.id)! - checked.start.get(s.id)!).toString();
    if (s.category === "llm") {
      const msgs = inMsgs.get(s.id);
      if (!msgs || msgs.length === 0 || s.output === null || s.output === undefined) continue;
      const tools = toolsOf(s, unflat.get(s.id)!);
      records.push({
        nodeId: spanNode.get(s.id)!,
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
        nodeId: spanNode.get(s.id)!,
        boundary: "tool",
        request: jsonSafe({ name: toolNameOf(s), arguments: argsOf.get(s.id)!.value ?? null }),
        response: jsonSafe(s.output ?? null),
        meta: jsonSafe(
          clean({ latencyMs, latencyNs, spanId: s.id, callId: callIdOf.get(s.id)?.id, status: s.status.error ? "error" : undefined }),
        ) as Rec,
      });
    }
  }

  // Task, config, labels, source.
  const prompt = promptOf(llmInOrder, inMsgs, trace.traceInput, firstRoot);
  const firstLlm = llmInOrder[0] ?? null;
  const { mas, scope } = masOf(spansInOrder);
  const referenceLabels: ReferenceLabel[] = trace.humanLabels.map((h) => ({
    source: trace.dataset,
    annotator: h.annotator,
    nodeId: h.observationId !== null ? (spanNode.get(h.observationId) ?? null) : finalId,
    agent: null,
    failureModes: [],
    reason: h.reason,
    extra: { ...h.extra, target: h.observationId !== null ? "observation" : "trace output (final_result)" },
  }));
  const source: OtelBundleSource = {
    dataset: trace.dataset,
    file: trace.fileName,
    recordKey: trace.traceId,
    subset: null,
    traceSha256: trace.traceSha256,
    notes,
    ...(warnings.length > 0 ? { importWarnings: warnings } : {}),
    ...(trace.dataset === "langfuse" ? { scores: trace.scores } : {}),
    ...trace.sourceExtra,
  };
  const sourceJson = jsonSafe(source) as OtelBundleSource;
  const labelsJson = jsonSafe(referenceLabels) as ReferenceLabel[];
  const temperature = firstLlm ? temperatureOf(firstLlm) : undefined;
  try {
    const bundle = buildBundle({
      id: trace.bundleId,
      task: jsonSafe(
        clean({
          id: trace.traceId,
          benchmark: null,
          name: trace.name ?? firstRoot?.name ?? null,
          prompt,
          reference: trace.reference,
        }),
      ) as { prompt: string },
      initialState: {},
      config: jsonSafe(
        clean({
          mas,
          model: firstLlm ? requestModelOf(firstLlm) : null,
          temperature,
          instrumentation: scope ? { scope: scope.name, version: scope.version } : undefined,
          replay: { normalization: OTEL_NORMALIZATION },
          ...trace.configExtra,
        }),
      ) as Rec,
      nodes,
      edges: [...edgeMap.values()],
      order: ids,
      records,
      outcome: { passed: null, evaluator: trace.dataset, details: { dataFlow } },
      extra: { source: sourceJson, referenceLabels: labelsJson },
    });
    return { ok: true, value: { bundle, source: sourceJson, referenceLabels: labelsJson, warnings } };
  } catch (err) {
    // Text that cannot be hashed (a lone surrogate): name its path in the input file.
    const bad = trace.rawValue !== undefined ? findLoneSurrogate(trace.rawValue) : null;
    if (bad) return { ok: false, failure: { where, errors: [bad] } };
    if (err instanceof BundleValidationError) {
      return { ok: false, failure: { where, errors: err.issues.map((i) => ({ path: i.path, message: i.message })) } };
    }
    return { ok: false, failure: { where, errors: [{ path: "$", message: err instanceof Error ? err.message : String(err) }] } };
  }
}

function canonicalArgs(v: unknown): string {
  const p = parseJsonValue(v);
  const sortKeys = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sortKeys)
      : isRec(x)
        ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])]))
        : x;
  return JSON.stringify(sortKeys(p) ?? null);
}

function errorOf(s: OtelSpan): { type: string; message: string } {
  const ex = s.events.find((e) => e.name === "exception");
  const type = str(ex?.attributes["exception.type"]) ?? str(s.attributes["exception.type"]) ?? "error";
  const message =
    s.status.message ?? str(ex?.attributes["exception.message"]) ?? str(s.attributes["exception.message"]) ?? "";
  return { type, message };
}

function llmLabel(s: OtelSpan, out: ChatMessage[]): string {
  const model = requestModelOf(s) ?? s.name;
  const calls = out.flatMap((m) => m.tool_calls ?? []);
  if (calls.length > 0) return `${model} → ${calls.map((c) => `${c.name ?? "?"}(${asText(c.arguments)})`).join(", ")}`;
  const text = [...out].reverse().map(messageText).find((t) => t);
  return `${model}: ${text ?? asText(s.output)}`;
}

function promptOf(
  llms: OtelSpan[],
  inMsgs: Map<string, ChatMessage[] | null>,
  traceInput: unknown,
  root: OtelSpan | null,
): string {
  for (const g of llms) {
    const u = (inMsgs.get(g.id) ?? []).find((m) => m.role === "user" && messageText(m));
    if (u) return messageText(u)!;
  }
  for (const v of [traceInput, root?.input]) {
    if (v === null || v === undefined) continue;
    if (typeof v === "string") return v;
    const u = (normalizeMessages(v, "user") ?? []).find((m) => m.role === "user" && messageText(m));
    return messageText(u) ?? asText(v);
  }
  return "";
}

/**
 * The span tree, breadth-first from the roots (no recursion, linear in the number of spans): each
 * span's depth and its start clamped to its parent's (so the observed order is a linear extension).
 * @param start each span's own start (checkSpans)
 * @returns depths, clamped starts, the spans parents first (`topo`) and how many starts were clamped
 */
function spanTree(spans: readonly OtelSpan[], start: ReadonlyMap<string, bigint>) {
  const children = new Map<string, OtelSpan[]>();
  for (const s of spans) {
    if (s.parentId === null) continue;
    const list = children.get(s.parentId);
    if (list) list.push(s);
    else children.set(s.parentId, [s]);
  }
  const depth = new Map<string, number>();
  const effStart = new Map<string, bigint>();
  const topo: OtelSpan[] = spans.filter((s) => s.parentId === null);
  let clamped = 0;
  for (const r of topo) {
    depth.set(r.id, 0);
    effStart.set(r.id, start.get(r.id)!);
  }
  for (let i = 0; i < topo.length; i++) {
    const p = topo[i];
    for (const c of children.get(p.id) ?? []) {
      depth.set(c.id, depth.get(p.id)! + 1);
      let st = start.get(c.id)!;
      if (st < effStart.get(p.id)!) {
        st = effStart.get(p.id)!;
        clamped++;
      }
      effStart.set(c.id, st);
      topo.push(c);
    }
  }
  return { depth, effStart, topo, clamped };
}
