/**
 * The observed partial order of boundary records (issue 21 item 4): which boundary calls were in
 * flight at the same time, and which calls a replayed request may be matched against.
 *
 * While recording, one counter ("tick") advances at every boundary begin and every boundary end;
 * each record stores `meta.observed = { start, end }` (ticks; `end` absent when the call never
 * completed). Record b is a *recorded predecessor* of record a when b ended before a began
 * (`b.end < a.start`); two records are *concurrent* when neither is a predecessor of the other.
 * Replay may serve a record once all its recorded predecessors are served ("ready"), so a valid
 * reordering of concurrent agents is not a divergence, and nothing ever overtakes a call that had
 * completed before it began in the recording.
 *
 * Tool records of one parallel group (`meta.parallelGroup`, consecutive seqs: the tool calls one
 * assistant message named) are concurrent with each other even when the MAS ran them one by one
 * (each member's start is taken as the group's first start), as replay always allowed.
 * Records without `meta.observed` (bundles recorded before this field, importers) get the total
 * order of `seq`, except that tool records of one parallel group (`meta.parallelGroup`,
 * consecutive seqs: the tool calls one assistant message named) are concurrent with each other —
 * exactly the rule replay applied before.
 *
 * Pure; O(n log n) to build, O(1) amortized per `isReady`/`serve`.
 */
import type { BoundaryRecord } from "../bundle";

/** Start/end ticks of one record (`end` = Infinity when the call never completed). */
export interface ObservedSpan {
  start: number;
  end: number;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** `meta.observed` of a record when it is well-formed, else null. */
function observedOf(r: BoundaryRecord): ObservedSpan | null {
  const o = isRec(r.meta) ? r.meta.observed : undefined;
  if (!isRec(o) || !Number.isInteger(o.start) || (o.start as number) < 0) return null;
  if (o.end === undefined) return { start: o.start as number, end: Infinity };
  if (!Number.isInteger(o.end) || (o.end as number) <= (o.start as number)) return null;
  return { start: o.start as number, end: o.end as number };
}

/**
 * The spans of all records: `meta.observed` when every record has a well-formed one whose starts
 * increase with seq; otherwise the legacy total order (parallel tool groups concurrent).
 * @returns one span per record, index = seq; `synthesized` tells which rule was used
 */
export function observedSpans(records: readonly BoundaryRecord[]): { spans: ObservedSpan[]; synthesized: boolean } {
  const own = records.map(observedOf);
  if (own.every((s, i) => s !== null && (i === 0 || s.start > own[i - 1]!.start))) {
    // Tool calls named by one assistant message stay a set even when the MAS ran them one by one:
    // every member starts when the group's first member started.
    const spans = (own as ObservedSpan[]).map((s) => ({ ...s }));
    forEachGroup(records, (i, e) => {
      for (let k = i + 1; k <= e; k++) spans[k].start = spans[i].start;
    });
    return { spans, synthesized: false };
  }
  const spans: ObservedSpan[] = [];
  let t = 0;
  forEachGroup(records, (i, e) => {
    const width = e - i + 1;
    for (let k = 0; k < width; k++) spans.push({ start: t + k, end: t + width + k });
    t += 2 * width;
  });
  return { spans, synthesized: true };
}

/** Calls `f(first, last)` for every run of records: a parallel tool group (consecutive tool records with one `meta.parallelGroup`) or a single record. */
function forEachGroup(records: readonly BoundaryRecord[], f: (first: number, last: number) => void): void {
  for (let i = 0; i < records.length; ) {
    const grp = records[i].meta?.parallelGroup;
    let e = i;
    if (records[i].boundary === "tool" && typeof grp === "string") {
      while (e + 1 < records.length && records[e + 1].boundary === "tool" && records[e + 1].meta?.parallelGroup === grp) e++;
    }
    f(i, e);
    i = e + 1;
  }
}

/**
 * Which records are served and which may be served next.
 * Record i is ready when every record that ended before i began is served; the records sorted by
 * end tick make those predecessors a prefix of that list, so readiness is one comparison.
 */
export class ReadyTracker {
  /** Record indices sorted by end tick. */
  private readonly byEnd: number[];
  /** predCount[i] = number of records that ended before record i began. */
  private readonly predCount: Int32Array;
  private readonly served: Uint8Array;
  /** Leading entries of `byEnd` that are all served. */
  private servedPrefix = 0;
  private servedCount = 0;

  constructor(readonly spans: readonly ObservedSpan[]) {
    const n = spans.length;
    this.byEnd = Array.from({ length: n }, (_, i) => i).sort((a, b) => spans[a].end - spans[b].end || a - b);
    const ends = this.byEnd.map((i) => spans[i].end);
    this.predCount = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      // first index in `ends` with end >= start
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ends[mid] < spans[i].start) lo = mid + 1;
        else hi = mid;
      }
      this.predCount[i] = lo;
    }
    this.served = new Uint8Array(n);
  }

  get size(): number {
    return this.spans.length;
  }

  /** Records served so far. */
  get count(): number {
    return this.servedCount;
  }

  isServed(i: number): boolean {
    return this.served[i] === 1;
  }

  /** True when record i is not served and all its recorded predecessors are. */
  isReady(i: number): boolean {
    return this.served[i] === 0 && this.servedPrefix >= this.predCount[i];
  }

  /** Mark record i served. @throws Error when it is already served */
  serve(i: number): void {
    if (this.served[i]) throw new Error(`record ${i} is already served`);
    this.served[i] = 1;
    this.servedCount++;
    while (this.servedPrefix < this.byEnd.length && this.served[this.byEnd[this.servedPrefix]]) this.servedPrefix++;
  }

  /** The unserved recorded predecessors of record i, in seq order. */
  unservedPredecessors(i: number): number[] {
    const out: number[] = [];
    for (let k = this.servedPrefix; k < this.predCount[i]; k++) if (!this.served[this.byEnd[k]]) out.push(this.byEnd[k]);
    return out.sort((a, b) => a - b);
  }

  /** True when record b is a recorded predecessor of record a (b ended before a began). */
  precedes(b: number, a: number): boolean {
    return this.spans[b].end < this.spans[a].start;
  }

  /** Ready records, in seq order (diagnosis only: O(n)). */
  readyRecords(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.spans.length; i++) if (this.isReady(i)) out.push(i);
    return out;
  }

  /** The lowest unserved seq, or -1 when all are served. */
  firstUnserved(): number {
    for (let i = 0; i < this.spans.length; i++) if (!this.served[i]) return i;
    return -1;
  }
}
