/**
 * Langfuse trace export (`{trace, observations}`) -> the shared span list of otel-spans.ts.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §Format and §"Things to handle":
 * every observation appears twice (slim copy in `trace.observations`, full copy in top-level
 * `observations`); `metadata` is a JSON string holding the OTel `attributes` (values JSON strings
 * again), `resourceAttributes` and `scope`; `input`/`output` are JSON strings (sometimes twice).
 */
import { categoryFromAttributes } from "./otel-span-readings";
import type { HumanLabelDraft, OtelSpan, OtelTrace, SpanCategory } from "./otel-types";
import { arr, isRec, parseAttributeValues, parseJsonValue, str, unwrapJson, type Rec } from "./otel-values";

/**
 * Is this parsed JSON a Langfuse trace export? True for `{trace: {...}, observations: [...]}`
 * (also when only `trace.observations` is present).
 */
export function isLangfuseTraceExport(value: unknown): boolean {
  if (!isRec(value) || !isRec(value.trace)) return false;
  return Array.isArray(value.observations) || Array.isArray(value.trace.observations);
}

const TYPE_CATEGORY: Record<string, SpanCategory> = { AGENT: "agent", GENERATION: "llm", TOOL: "tool" };

/**
 * Read a Langfuse trace export into one {@link OtelTrace}.
 * @param value parsed JSON that passed {@link isLangfuseTraceExport}
 * @returns the trace, or errors with JSON paths when the export is unreadable (no trace id,
 *   an observation that is not an object or has no id)
 */
export function langfuseToTrace(
  value: Rec,
  opts: { fileName: string; traceSha256: string },
): { trace: OtelTrace | null; errors: Array<{ path: string; message: string }> } {
  const errors: Array<{ path: string; message: string }> = [];
  const t = value.trace as Rec;
  const traceId = str(t.id);
  if (!traceId) errors.push({ path: "$.trace.id", message: "trace.id is missing or not a string" });

  // Deduplicate: full top-level copies first, slim trace.observations only for ids not seen.
  const full = arr(value.observations).map((o, i) => ({ o, path: `$.observations[${i}]` }));
  const slim = arr(t.observations).map((o, i) => ({ o, path: `$.trace.observations[${i}]` }));
  // Top-level copies are all kept (a conflicting or identical re-export of one id is resolved by
  // dedupeSpans in otel-checks.ts); a slim copy only fills in an id missing from the top level.
  const seen = new Map<string, { o: Rec; path: string }>();
  const kept: Array<{ o: Rec; path: string }> = [];
  let dupes = 0;
  for (const { o, path } of [...full, ...slim]) {
    if (!isRec(o)) {
      errors.push({ path, message: "observation is not an object" });
      continue;
    }
    const id = str(o.id);
    if (!id) {
      errors.push({ path: `${path}.id`, message: "observation id is missing or not a string" });
      continue;
    }
    const isSlim = path.startsWith("$.trace.");
    if (seen.has(id) && isSlim) dupes++;
    else {
      if (!seen.has(id)) seen.set(id, { o, path });
      kept.push({ o, path });
    }
  }
  if (!traceId || errors.length > 0) return { trace: null, errors };

  const notes: string[] = [];
  if (dupes > 0) notes.push(`${dupes} duplicate observation(s) (slim copies in trace.observations) dropped; full copies kept`);
  const foreign = [...seen.values()].filter(({ o }) => str(o.traceId) && o.traceId !== traceId).length;
  if (foreign > 0) notes.push(`${foreign} observation(s) carry a traceId other than trace.id`);
  let deepest = 0;
  let resource: Rec | null = null;

  const spans: OtelSpan[] = kept.map(({ o, path }) => {
    const meta = unwrapJson(o.metadata);
    deepest = Math.max(deepest, meta.depth);
    const m = isRec(meta.value) ? meta.value : {};
    const attributes = isRec(m.attributes) ? parseAttributeValues(m.attributes) : {};
    const type = str(o.type) ?? "SPAN";
    const fromAttrs = categoryFromAttributes(attributes);
    const category: SpanCategory = TYPE_CATEGORY[type] ?? fromAttrs?.category ?? "span";
    const scope = isRec(m.scope) && str(m.scope.name) ? { name: m.scope.name as string, version: str(m.scope.version) } : null;
    const input = unwrapJson(o.input);
    const output = unwrapJson(o.output);
    deepest = Math.max(deepest, input.depth, output.depth);
    const level = str(o.level);
    const extra: Rec = { observationType: type, level };
    for (const k of ["statusMessage", "modelParameters", "costDetails", "completionStartTime"] as const) {
      const v = o[k];
      if (v !== null && v !== undefined && !(isRec(v) && Object.keys(v).length === 0)) extra[k] = v;
    }
    if (isRec(m.resourceAttributes) && resource === null) resource = m.resourceAttributes;
    for (const [k, v] of Object.entries(m)) if (!["attributes", "resourceAttributes", "scope"].includes(k)) extra[`metadata.${k}`] = v;
    const usage = isRec(o.usageDetails) && Object.keys(o.usageDetails).length > 0 ? o.usageDetails : null;
    return {
      id: str(o.id)!,
      parentId: str(o.parentObservationId),
      traceId: str(o.traceId) ?? traceId,
      name: str(o.name) ?? type,
      category,
      kind: TYPE_CATEGORY[type] ? type : (fromAttrs?.kind ?? type),
      startTime: o.startTime ?? null,
      endTime: o.endTime ?? null,
      attributes,
      status: { error: level === "ERROR", code: level, message: str(o.statusMessage) },
      input: input.value ?? null,
      output: output.value ?? null,
      model: str(o.model),
      usage,
      events: [],
      scope,
      path,
      paths: { parentId: `${path}.parentObservationId`, startTime: `${path}.startTime`, endTime: `${path}.endTime` },
      extra,
      rawJson: JSON.stringify(o),
      raw: o,
      // A TOOL observation's input is its call arguments, as written (decoded by classifyArguments).
      rawArguments: category === "tool" && o.input !== null && o.input !== undefined ? o.input : undefined,
    };
  });
  if (deepest >= 2) notes.push("double-encoded JSON strings in observation metadata/input/output decoded");

  const traceInput = unwrapJson(t.input);
  const traceOutput = unwrapJson(t.output);
  if (traceInput.depth >= 2 || traceOutput.depth >= 2) notes.push("trace.input/output are double-encoded JSON strings; decoded");

  // Scores: machine scores stay in source; human ANNOTATION scores and corrections become labels.
  const scores: unknown[] = [];
  const humanLabels: HumanLabelDraft[] = [];
  const corrections: unknown[] = [];
  let reference: unknown;
  const outputText = typeof traceOutput.value === "string" ? traceOutput.value : null;
  for (const [i, s] of arr(t.scores).entries()) {
    if (!isRec(s)) continue;
    const sc = { ...s, metadata: parseJsonValue(s.metadata) };
    if (s.source === "ANNOTATION") humanLabels.push(humanLabel(sc, `$.trace.scores[${i}]`));
    else scores.push(sc);
  }
  for (const [i, c] of arr(t.corrections).entries()) {
    if (!isRec(c)) continue;
    const cc = { ...c, metadata: parseJsonValue(c.metadata) };
    if (c.source !== "ANNOTATION") {
      corrections.push(cc);
      continue;
    }
    humanLabels.push(humanLabel(cc, `$.trace.corrections[${i}]`));
    const corrected = str(c.longStringValue) ?? str(c.stringValue);
    if (corrected !== null && reference === undefined) {
      reference = { correctedOutput: corrected, from: `trace.corrections[${i}]`, annotator: str(c.authorUserId) };
      if (outputText !== null && corrected === outputText)
        notes.push(`human correction trace.corrections[${i}] is identical to the trace output`);
    }
  }

  const sourceExtra: Rec = { traceName: str(t.name), tags: arr(t.tags) };
  if (corrections.length > 0) sourceExtra.corrections = corrections;
  const configExtra: Rec = {};
  if (resource !== null) configExtra.resource = resource;

  return {
    trace: {
      dataset: "langfuse",
      bundleId: `langfuse/${traceId}`,
      traceId,
      name: str(t.name),
      fileName: opts.fileName,
      traceSha256: opts.traceSha256,
      spans,
      traceInput: traceInput.value ?? null,
      traceOutput: traceOutput.value ?? null,
      scores,
      humanLabels,
      reference,
      notes,
      sourceExtra,
      configExtra,
      rawValue: value,
    },
    errors: [],
  };
}

function humanLabel(s: Rec, path: string): HumanLabelDraft {
  const reason =
    str(s.comment) ?? str(s.longStringValue) ?? str(s.stringValue) ?? (s.value !== null && s.value !== undefined ? String(s.value) : null);
  return {
    annotator: str(s.authorUserId) ?? "langfuse-annotation",
    reason,
    observationId: str(s.observationId),
    extra: {
      path,
      id: s.id ?? null,
      name: s.name ?? null,
      dataType: s.dataType ?? null,
      value: s.value ?? null,
      correctedOutput: str(s.longStringValue) ?? str(s.stringValue),
      comment: s.comment ?? null,
      timestamp: s.timestamp ?? null,
    },
  };
}
