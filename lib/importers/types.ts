/**
 * Shared types of the importers (lib/importers): each maps one real public trace format onto
 * replay bundle v1 (the bundle v1 spec) and validates the result with lib/bundle.
 *
 * Dataset metadata and the dataset's own human labels travel inside the bundle as two extra
 * top-level keys (unknown keys survive a round trip, spec §format):
 *  - `source`: {@link BundleSource}
 *  - `referenceLabels`: {@link ReferenceLabel}[]  (the dataset's labels, annotator by annotator,
 *    kept apart from our annotators' work by lib/db)
 */
import type { ReplayBundle } from "../bundle";

export type SourceDataset = "bundle" | "who_and_when" | "mad" | "langfuse" | "otlp";

export interface BundleSource {
  dataset: SourceDataset;
  /** File name (basename) the case came from. */
  file: string;
  /** Which record of a multi-record file (MAD trace_id, OTLP traceId). */
  recordKey?: string | null;
  /** Subset inside a dataset: "Hand-Crafted", "Algorithm-Generated", MAD "round". */
  subset?: string | null;
  /** sha256 of the raw trace text, to detect byte-identical duplicates (MAD 3 and 8). */
  traceSha256?: string | null;
  /** Quirks met and repaired on import, in plain words (e.g. "mas_name/benchmark_name swapped"). */
  notes?: string[];
}

export interface ReferenceFailureMode {
  /** The full mode string exactly as the dataset writes it (key on this, not the code). */
  mode: string;
  /** The leading code, e.g. "1.3" or "FM-1.3", when present. */
  code: string | null;
  /** true/false as labelled; null when the dataset has NaN / no value. */
  present: boolean | null;
}

export interface ReferenceLabel {
  /** Dataset that published the label: "who_and_when" | "mad" | "langfuse" ... */
  source: string;
  /** Annotator as the dataset names it ("annotator_1"; "consensus" when only one label exists). */
  annotator: string;
  /** Node the label localizes to (Who&When mistake_step), else null. */
  nodeId: string | null;
  /** Agent the label blames (Who&When mistake_agent), else null. */
  agent: string | null;
  /** Per-mode labels (MAD), else []. */
  failureModes: ReferenceFailureMode[];
  /** Free-text reason (Who&When mistake_reason, a human correction), else null. */
  reason: string | null;
  /** Anything else the dataset says about this label (raw step index, mistake_type, ...). */
  extra: Record<string, unknown>;
}

/**
 * Kinds of imperfect input an importer repaired instead of rejecting (issue 10): each is counted
 * in the import report (`ImportReport.warnings`) and, where it concerns one span, marked in that
 * node's `content.importWarnings`.
 */
export type ImportWarningKind =
  | "duplicate-span-identical"
  | "duplicate-span-id-conflict"
  | "parent-not-in-trace"
  | "zero-parent-id"
  | "parent-cycle"
  | "clock-skew"
  | "not-ended"
  | "unresolved-link"
  | "tool-arguments-not-object"
  | "deep-span-tree";

/** One repaired imperfection: its kind, the JSON path in the input file, and plain words. */
export interface ImportWarning {
  kind: ImportWarningKind;
  path: string;
  message: string;
}

/** One imported case: a valid bundle (with `source` and `referenceLabels` inside it). */
export interface ImportedCase {
  bundle: ReplayBundle;
  source: BundleSource;
  referenceLabels: ReferenceLabel[];
  /** Imperfections repaired on import (also in `source.importWarnings`); absent or [] when none. */
  warnings?: ImportWarning[];
}

/** A record of a file that could not be imported; nothing of it is written. */
export interface ImportFailure {
  /** e.g. "MAD_human_labelled_sample.json#trace_id=18" */
  where: string;
  errors: Array<ImportError>;
}

/**
 * One error of a failed record. `code: "format-needed"` marks a file whose format could not be
 * told (or must be named to be read): the CLI adds "pass --format ...", the import page offers the
 * format choice for that file. The message itself names no CLI flag.
 */
export interface ImportError {
  path: string;
  message: string;
  code?: "format-needed";
}

export interface ImportFileResult {
  cases: ImportedCase[];
  failures: ImportFailure[];
}
