/**
 * Importer of MAST / MAD human-labelled traces (Cemri et al., "Why Do Multi-Agent LLM Systems
 * Fail?", HF dataset `mcemri/MAD`, file `MAD_human_labelled_dataset.json`; see
 * the mast_mad dataset notes (SOURCE.md)).
 *
 * A MAD file is a JSON array of records
 * `{round, mas_name, benchmark_name, trace_id, trace: "<one raw string>", annotations: [{"failure mode", annotator_1, annotator_2, annotator_3}]}`.
 * Each record becomes one replay bundle (`mad/<round-slug>/<trace_id>`); the trace string is cut
 * into nodes by a per-MAS splitter (./mad-parsers.ts); the three annotators' per-mode booleans
 * become three ReferenceLabels.
 */
import { createHash } from "node:crypto";
import { buildBundle, BundleValidationError, type BundleEdge, type NodeDraft } from "../bundle";
import { findLoneSurrogate, parseImportText } from "./parse";
import type { BundleSource, ImportFailure, ImportFileResult, ImportedCase, ReferenceFailureMode, ReferenceLabel } from "./types";
import { splitTrace, type ParsedTrace } from "./mad-parsers";

export const MAD_ANNOTATORS = ["annotator_1", "annotator_2", "annotator_3"] as const;

/** `source` of a MAD case: BundleSource plus MAD specifics. */
export interface MadSource extends BundleSource {
  dataset: "mad";
  /** The record's own fields, verbatim (before any swap repair). */
  record: { round: string; mas_name: string; benchmark_name: string; trace_id: number | string };
  /** MAS slug used to split (config.mas) and the splitter that produced the nodes. */
  mas: string;
  splitter: string;
  /** JSON traces: top-level fields that are neither nodes nor evaluator-only (AG2 instance_id, MetaGPT run_id...). */
  traceFields?: Record<string, unknown>;
  /** AG2 `note`: older single-annotator yes/no labels over 22 pre-MAST categories, plus free text. Not a ReferenceLabel. */
  legacyNote?: unknown;
}

// ---------------------------------------------------------------------------------------------
// names

/** MAS names as MAD writes them (lower-cased, non-alphanumerics dropped) -> config.mas slug. */
const MAS_SLUGS: Record<string, string> = {
  ag2: "ag2",
  autogen: "ag2",
  chatdev: "chatdev",
  metagpt: "metagpt",
  appworld: "appworld",
  magentic: "magentic-one",
  magenticone: "magentic-one",
  openmanus: "openmanus",
  hyperagent: "hyperagent",
};

/** Benchmark names seen in MAD (same normalization). */
const KNOWN_BENCHMARKS = new Set(["gaia", "gsmplus", "programdev", "testc", "swebench", "swebenchlite", "mmlu", "olympiadbench", "humaneval"]);

const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/** `"Round 1"` -> `"round-1"`, `"Generlazability"` -> `"generlazability"`. */
export function slugify(s: string): string {
  const t = s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return t === "" ? "unknown" : t;
}

/** config.mas slug of a MAD `mas_name` (ag2, chatdev, metagpt, appworld, magentic-one, openmanus, hyperagent; else its slug). */
export function masSlug(masName: string): string {
  return MAS_SLUGS[norm(masName)] ?? slugify(masName);
}

/**
 * Detect the swapped-fields quirk (SOURCE.md "Things to handle": records 17 and 18 have
 * mas_name "GAIA" and benchmark_name "Magentic"/"OpenManus"): a known benchmark name in
 * `mas_name` and a known MAS name in `benchmark_name`.
 */
export function fieldsSwapped(masName: string, benchmarkName: string): boolean {
  const m = norm(masName);
  const b = norm(benchmarkName);
  return KNOWN_BENCHMARKS.has(m) && !(m in MAS_SLUGS) && b in MAS_SLUGS;
}

/** Leading code of a mode string: `"1.3 Step Repetition..."` -> `"1.3"`, `"FM-1.3 ..."` -> `"FM-1.3"`, else null. */
export function modeCode(mode: string): string | null {
  const m = /^\s*((?:FM-)?\d+(?:\.\d+)*)(?=\s|$|[.:)])/.exec(mode);
  return m ? m[1] : null;
}

/** Lower-case hex sha256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

// ---------------------------------------------------------------------------------------------
// detection

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function looksLikeRecord(v: unknown): boolean {
  if (!isRec(v) || typeof v.trace !== "string" || !Array.isArray(v.annotations)) return false;
  return v.annotations.some((a) => isRec(a) && MAD_ANNOTATORS.every((k) => k in a));
}

/**
 * Detection for `--format auto`.
 * @param value parsed JSON (use `parseJsonText(text, { allowNaN: true })`)
 * @returns true for a MAD record (object with a string `trace` and an `annotations` array whose
 *   items carry annotator_1..annotator_3) or an array holding at least one such record and only
 *   objects (so a file with one broken record is still routed here and reported record by record).
 */
export function isMadFile(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isRec) && value.some(looksLikeRecord);
  return looksLikeRecord(value);
}

// ---------------------------------------------------------------------------------------------
// record checks

interface GoodRecord {
  round: string;
  masName: string;
  benchmarkName: string;
  traceId: number | string;
  trace: string;
  labels: ReferenceLabel[];
}

type Err = { path: string; message: string };

const show = (v: unknown): string => (v === undefined ? "missing" : JSON.stringify(v)?.slice(0, 60) ?? String(v));

/** Check one record; returns the errors (paths from `base`, e.g. `$[3]`) or the parsed record. */
function checkRecord(r: unknown, base: string): { ok: true; rec: GoodRecord } | { ok: false; errors: Err[] } {
  const errors: Err[] = [];
  if (!isRec(r)) return { ok: false, errors: [{ path: base, message: `expected a MAD record object, got ${show(r)}` }] };
  const str = (k: string, allowEmpty = false): string | null => {
    const v = r[k];
    if (typeof v !== "string" || (!allowEmpty && v.trim() === "")) {
      errors.push({ path: `${base}.${k}`, message: `expected a non-empty string, got ${show(v)}` });
      return null;
    }
    return v;
  };
  const round = str("round");
  const masName = str("mas_name");
  const benchmarkName = str("benchmark_name");
  const trace = str("trace", true);
  const tid = r.trace_id;
  let traceId: number | string | null = null;
  if (typeof tid === "number" && Number.isInteger(tid) && tid >= 0) traceId = tid;
  else if (typeof tid === "string" && /^[A-Za-z0-9_.-]+$/.test(tid)) traceId = tid;
  else errors.push({ path: `${base}.trace_id`, message: `expected a non-negative integer, got ${show(tid)}` });

  const labels: ReferenceLabel[] = MAD_ANNOTATORS.map((a) => ({
    source: "mad",
    annotator: a,
    nodeId: null,
    agent: null,
    failureModes: [],
    reason: null,
    extra: {},
  }));
  const anns = r.annotations;
  if (!Array.isArray(anns)) {
    errors.push({ path: `${base}.annotations`, message: `expected an array of {"failure mode", annotator_1..3}, got ${show(anns)}` });
  } else {
    if (anns.length === 0) errors.push({ path: `${base}.annotations`, message: "no annotations" });
    const seen = new Map<string, number>();
    anns.forEach((a, j) => {
      const p = `${base}.annotations[${j}]`;
      if (!isRec(a)) {
        errors.push({ path: p, message: `expected an object, got ${show(a)}` });
        return;
      }
      const mode = a["failure mode"];
      if (typeof mode !== "string" || mode.trim() === "") {
        errors.push({ path: `${p}["failure mode"]`, message: `expected a non-empty string, got ${show(mode)}` });
        return;
      }
      if (seen.has(mode)) {
        errors.push({ path: `${p}["failure mode"]`, message: `duplicate failure mode (first at ${base}.annotations[${seen.get(mode)}])` });
        return;
      }
      seen.set(mode, j);
      const code = modeCode(mode);
      MAD_ANNOTATORS.forEach((k, ai) => {
        const v = a[k];
        // NaN in the source (record 18) is read as null by parseJsonText({ allowNaN: true }).
        if (typeof v === "boolean" || v === null) labels[ai].failureModes.push({ mode, code, present: v } satisfies ReferenceFailureMode);
        else errors.push({ path: `${p}.${k}`, message: `expected true, false or NaN/null, got ${show(v)}` });
      });
    });
  }
  if (errors.length > 0 || round === null || masName === null || benchmarkName === null || trace === null || traceId === null) {
    return { ok: false, errors };
  }
  for (const l of labels) l.extra = { round };
  return { ok: true, rec: { round, masName, benchmarkName, traceId, trace, labels } };
}

// ---------------------------------------------------------------------------------------------
// bundle

/** MAS slugs that have a dedicated splitter in ./mad-parsers.ts. */
const SPLITTER_NAMES: Record<string, true> = { ag2: true, metagpt: true, chatdev: true, "magentic-one": true, appworld: true, openmanus: true, hyperagent: true };

function buildCase(rec: GoodRecord, fileName: string, firstSeen: Map<string, string>): ImportedCase {
  const notes: string[] = [];
  let masName = rec.masName;
  let benchmark = rec.benchmarkName;
  if (fieldsSwapped(rec.masName, rec.benchmarkName)) {
    masName = rec.benchmarkName;
    benchmark = rec.masName;
    notes.push(
      `mas_name/benchmark_name swapped in the source (mas_name "${rec.masName}", benchmark_name "${rec.benchmarkName}"): read as MAS "${masName}" on benchmark "${benchmark}"`,
    );
  }
  const mas = masSlug(masName);
  const roundSlug = slugify(rec.round);
  const id = `mad/${roundSlug}/${rec.traceId}`;
  const traceSha256 = sha256Hex(rec.trace);
  const dup = firstSeen.get(traceSha256);
  if (dup !== undefined) notes.push(`trace text identical to ${dup}`);

  const parsed: ParsedTrace = splitTrace(mas, rec.trace);
  notes.push(...parsed.notes);
  if (parsed.splitter === "generic" && mas in SPLITTER_NAMES && parsed.notes.length === 0) {
    notes.push(`no ${mas} section headers found: whole trace imported as one message node`);
  }

  const pad = (i: number) => `msg_${String(i).padStart(4, "0")}`;
  const nodes: NodeDraft[] = parsed.nodes.map((n, i) => ({
    id: pad(i),
    type: n.type,
    ...(n.agent !== null ? { agent: n.agent } : {}),
    label: n.label || `${n.type} ${i}`,
    content: n.content,
    ...(n.status ? { status: n.status } : {}),
  }));
  const edges: BundleEdge[] = [];
  for (let i = 1; i < nodes.length; i++) edges.push({ from: pad(i - 1), to: pad(i), kind: "control" });
  parsed.nodes.forEach((n, i) => {
    if (n.dataFrom !== undefined && n.dataFrom < i) edges.push({ from: pad(n.dataFrom), to: pad(i), kind: "data" });
  });

  const source: MadSource = {
    dataset: "mad",
    file: fileName,
    recordKey: String(rec.traceId),
    subset: rec.round,
    traceSha256,
    notes,
    record: { round: rec.round, mas_name: rec.masName, benchmark_name: rec.benchmarkName, trace_id: rec.traceId },
    mas,
    splitter: parsed.splitter,
    ...(parsed.traceFields ? { traceFields: parsed.traceFields } : {}),
    ...(parsed.legacyNote !== undefined ? { legacyNote: parsed.legacyNote } : {}),
  };
  const prompt = parsed.prompt && parsed.prompt.trim() !== "" ? parsed.prompt : `${masName} on ${benchmark}, trace ${rec.traceId}`;
  const bundle = buildBundle({
    id,
    task: {
      id: parsed.taskId ?? `trace_${rec.traceId}`,
      benchmark,
      split: null,
      prompt,
      ...(parsed.reference ? { reference: parsed.reference } : {}),
    },
    initialState: {},
    config: { mas, model: parsed.model },
    nodes,
    edges,
    outcome: { passed: parsed.passed, evaluator: "mad" },
    extra: { source, referenceLabels: rec.labels },
  });
  if (dup === undefined) firstSeen.set(traceSha256, id);
  return { bundle, source, referenceLabels: rec.labels };
}

/**
 * Import a MAD file (SOURCE.md "Record format", "Mapping to an event-dependency graph").
 * @param text the file's text (UTF-8; BOM and bare `NaN` literals tolerated)
 * @param opts.fileName basename used in `source.file` and in failure locations
 * @returns one ImportedCase per good record: bundle id `mad/<round-slug>/<trace_id>`, nodes from
 *   the per-MAS splitter (./mad-parsers.ts) with sequential control edges and data edges into
 *   tool results, `referenceLabels` = annotator_1..3 (source "mad", nodeId null, every mode with
 *   `present` true/false/null), `source.traceSha256` and a `source.notes` entry for a repeated
 *   trace text or swapped mas/benchmark fields. A bad record becomes an ImportFailure
 *   (`where` = `<fileName>#trace_id=<id>` or `<fileName>#[<index>]`, errors with JSON paths such as
 *   `$[3].annotations[2].annotator_3`); the other records still import.
 *   Text that is not JSON gives a single failure naming line and column.
 * Never throws.
 */
export function importMad(text: string, opts: { fileName: string }): ImportFileResult {
  const fileName = opts.fileName;
  const cases: ImportedCase[] = [];
  const failures: ImportFailure[] = [];
  const parsed = parseImportText(text, fileName);
  if ("result" in parsed) return parsed.result;
  const value = parsed.value;
  let records: Array<{ r: unknown; base: string; index: number | null }>;
  if (Array.isArray(value)) records = value.map((r, i) => ({ r, base: `$[${i}]`, index: i }));
  else if (isRec(value)) records = [{ r: value, base: "$", index: null }];
  else {
    failures.push({ where: fileName, errors: [{ path: "$", message: `expected a JSON array of MAD records, got ${show(value)}` }] });
    return { cases, failures };
  }
  if (records.length === 0) {
    failures.push({ where: fileName, errors: [{ path: "$", message: "empty array: no MAD records" }] });
    return { cases, failures };
  }

  const firstSeen = new Map<string, string>();
  const ids = new Map<string, string>();
  for (const { r, base, index } of records) {
    const tid = isRec(r) ? r.trace_id : undefined;
    const where =
      (typeof tid === "number" && Number.isInteger(tid)) || (typeof tid === "string" && tid !== "")
        ? `${fileName}#trace_id=${tid}`
        : index !== null
          ? `${fileName}#[${index}]`
          : fileName;
    // Text that cannot be hashed or stored (a lone UTF-16 surrogate): name the innermost path.
    const unhashable = findLoneSurrogate(r, base);
    if (unhashable) {
      failures.push({ where, errors: [unhashable] });
      continue;
    }
    const checked = checkRecord(r, base);
    if (!checked.ok) {
      failures.push({ where, errors: checked.errors });
      continue;
    }
    const rid = `mad/${slugify(checked.rec.round)}/${checked.rec.traceId}`;
    if (ids.has(rid)) {
      failures.push({ where, errors: [{ path: `${base}.trace_id`, message: `duplicate case id ${rid} (first at ${ids.get(rid)})` }] });
      continue;
    }
    try {
      cases.push(buildCase(checked.rec, fileName, firstSeen));
      ids.set(rid, base);
    } catch (err) {
      if (err instanceof BundleValidationError) {
        failures.push({ where, errors: err.issues.map((i) => ({ path: i.path, message: `bundle invalid: ${i.message}` })) });
      } else {
        failures.push({ where, errors: [{ path: base, message: err instanceof Error ? err.message : String(err) }] });
      }
    }
  }
  return { cases, failures };
}
