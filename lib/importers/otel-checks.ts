/**
 * Checks of a span list before it is mapped: duplicate span ids (`dedupeSpans`), the tree and the
 * times (`checkSpans`).
 */
import { toNanos } from "./otel-span-readings";
import type { OtelSpan } from "./otel-types";
import { asText } from "./otel-values";
import type { ImportWarning } from "./types";

/**
 * Duplicate span ids. A byte-identical re-export of a span (same record text) is dropped and
 * counted; a copy with different content (a failed attempt and its retry sharing one id) is kept
 * as its own span with the deterministic internal id `<id>~<copy>` (2, 3, ...) and
 * `duplicateOf = {spanId, copy, firstAt}`; children naming the id attach to the first copy.
 * @returns the spans in first-seen order and one warning per dropped or conflicting copy
 */
export function dedupeSpans(spans: OtelSpan[]): { spans: OtelSpan[]; warnings: ImportWarning[] } {
  const kept = new Map<string, OtelSpan[]>();
  const taken = new Set(spans.map((s) => s.id));
  const out: OtelSpan[] = [];
  const warnings: ImportWarning[] = [];
  for (const s of spans) {
    const group = kept.get(s.id);
    if (!group) {
      kept.set(s.id, [s]);
      out.push(s);
      continue;
    }
    const same = s.rawJson !== undefined ? group.find((k) => k.rawJson === s.rawJson) : undefined;
    if (same) {
      warnings.push({
        kind: "duplicate-span-identical",
        path: s.path,
        message: `span ${s.id} at ${s.path} is a byte-identical re-export of ${same.path}: deduplicated`,
      });
      continue;
    }
    let copy = group.length + 1;
    while (taken.has(`${s.id}~${copy}`)) copy++;
    const id = `${s.id}~${copy}`;
    taken.add(id);
    const first = group[0];
    const dup: OtelSpan = { ...s, id, duplicateOf: { spanId: s.id, copy, firstAt: first.path } };
    group.push(dup);
    out.push(dup);
    warnings.push({
      kind: "duplicate-span-id-conflict",
      path: s.path,
      message: `span id ${s.id} is used by two different spans, at ${first.path} and at ${s.path} (e.g. a failed attempt and its retry): both kept, the second as node copy ${copy}`,
    });
  }
  return { spans: out, warnings };
}

export interface Checked {
  start: Map<string, bigint>;
  end: Map<string, bigint>;
  /** Parent ids as the source declared them (content.parentSpanId), before repairs. */
  declaredParent: Map<string, string | null>;
  /** Per-span markers shown in node content (`importWarnings`). */
  marks: Map<string, string[]>;
  warnings: ImportWarning[];
  errors: Array<{ path: string; message: string }>;
}

/**
 * Check and repair the span tree and times, in linear time and without recursion. Repairs (each a
 * warning and, on the span, a marker): an all-zero parent id means root; a parent id not in the
 * trace makes the span an extra root ("parent not in trace: <id>"); a parent cycle is broken at
 * its first span in input order; an end before the start becomes the start (zero width, "clock
 * skew"); an end of 0, missing or unreadable is "not ended" (zero width; a Langfuse EVENT without
 * an end is instantaneous, no marker). Mutates `parentId` of the given spans (callers pass copies).
 * @returns times, markers, warnings, and errors only for a span without a readable start time
 */
export function checkSpans(spans: OtelSpan[]): Checked {
  const errors: Checked["errors"] = [];
  const warnings: ImportWarning[] = [];
  const marks = new Map<string, string[]>();
  const mark = (s: OtelSpan, text: string) => marks.set(s.id, [...(marks.get(s.id) ?? []), text]);
  const start = new Map<string, bigint>();
  const end = new Map<string, bigint>();
  const declaredParent = new Map<string, string | null>();
  const byId = new Map<string, OtelSpan>();
  for (const s of spans) if (!byId.has(s.id)) byId.set(s.id, s);
  for (const s of spans) {
    if (s.parentId !== null && /^0+$/.test(s.parentId)) {
      warnings.push({ kind: "zero-parent-id", path: s.paths.parentId, message: `span ${s.id}: parent id ${s.parentId} is all zeros: read as a root` });
      s.parentId = null;
    }
    declaredParent.set(s.id, s.parentId);
    const st = toNanos(s.startTime);
    if (st === null) {
      errors.push({ path: s.paths.startTime, message: `span ${s.id}: start time missing or not a timestamp (${asText(s.startTime) || "empty"})` });
      continue;
    }
    let en: bigint = st;
    const rawEnd = s.endTime;
    const noEnd = rawEnd === null || rawEnd === undefined || rawEnd === "" || rawEnd === 0 || (typeof rawEnd === "string" && /^0+$/.test(rawEnd.trim()));
    if (noEnd) {
      if (s.extra.observationType !== "EVENT") {
        mark(s, "not ended");
        warnings.push({ kind: "not-ended", path: s.paths.endTime, message: `span ${s.id}: no end time (${asText(rawEnd) || "missing"}): marked "not ended", drawn zero-width` });
      }
    } else {
      const e = toNanos(rawEnd);
      if (e === null) {
        mark(s, `not ended (end time is not a timestamp: ${asText(rawEnd)})`);
        warnings.push({ kind: "not-ended", path: s.paths.endTime, message: `span ${s.id}: end time ${asText(rawEnd)} is not a timestamp: marked "not ended", drawn zero-width` });
      } else if (e < st) {
        mark(s, `clock skew: end time ${asText(rawEnd)} before start time ${asText(s.startTime)}; drawn zero-width`);
        warnings.push({ kind: "clock-skew", path: s.paths.endTime, message: `span ${s.id}: end time ${asText(rawEnd)} is before its start time ${asText(s.startTime)}: drawn zero-width` });
      } else en = e;
    }
    start.set(s.id, st);
    end.set(s.id, en);
  }
  for (const s of spans) {
    if (s.parentId !== null && !byId.has(s.parentId)) {
      mark(s, `parent not in trace: ${s.parentId}`);
      warnings.push({ kind: "parent-not-in-trace", path: s.paths.parentId, message: `span ${s.id}: parent span ${s.parentId} is not in trace ${s.traceId}: imported as an extra root` });
      s.parentId = null;
    }
  }
  // Cycles: walk each parent chain once (0 = new, 1 = on the current walk, 2 = done): linear.
  const state = new Map<string, number>();
  const fileIndex = new Map(spans.map((s, i) => [s.id, i]));
  for (const s of spans) {
    const walk: OtelSpan[] = [];
    let cur: OtelSpan | undefined = s;
    while (cur && (state.get(cur.id) ?? 0) === 0) {
      state.set(cur.id, 1);
      walk.push(cur);
      cur = cur.parentId !== null ? byId.get(cur.parentId) : undefined;
    }
    if (cur && state.get(cur.id) === 1) {
      const cyc = walk.slice(walk.indexOf(cur));
      const cut = cyc.reduce((a, b) => (fileIndex.get(b.id)! < fileIndex.get(a.id)! ? b : a));
      const ring = [...cyc.map((x) => x.id), cyc[0].id].join(" -> ");
      mark(cut, `parent chain forms a cycle (${ring}): made a root`);
      warnings.push({ kind: "parent-cycle", path: cut.paths.parentId, message: `span ${cut.id}: parent chain forms a cycle (${ring}): made a root` });
      cut.parentId = null;
    }
    for (const w of walk) state.set(w.id, 2);
  }
  return { start, end, declaredParent, marks, warnings, errors };
}
