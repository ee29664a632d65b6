/**
 * Licence and origin of each source dataset a release draws cases from (Case.sourceDataset, set by
 * the importers in lib/importers). Facts from each dataset's SOURCE.md, LICENSE and
 * the MAD dataset card; the verbatim MIT texts are in ./license-texts.ts.
 */
import { LANGFUSE_LICENSE, WHO_AND_WHEN_LICENSE } from "./license-texts";

/** What a release says about one source dataset (manifest `licences[]`, datasheet "Distribution"). */
export interface DatasetLicence {
  /** Case.sourceDataset: who_and_when | mad | langfuse | otlp | bundle | replay | … */
  dataset: string;
  /** Human name. */
  name: string;
  /** SPDX identifier, or "unspecified" when the tool cannot know it. */
  licence: string;
  /** Where the data comes from (repository, commit, path, or how it was recorded). */
  origin: string;
  /** Attribution required by the licence, or null. */
  attribution: string | null;
  /** Release-relative path of the verbatim licence text written with the release, or null. */
  licenseFile: string | null;
  /** Anything a re-user must know. */
  note: string | null;
}

/** The Langfuse framework traces shipped in the shared folder (the only Langfuse files whose licence is known). */
export const LANGFUSE_SAMPLE_FILES = ["microsoft-agent-2025-12-17.trace.json", "openai-agents-2025-09-30.trace.json", "pydantic-ai-tools-2025-06-06.trace.json"] as const;

/** Verbatim licence texts by release-relative path (written into the release when a dataset needs one). */
export const LICENSE_FILES: Record<string, string> = {
  "licenses/who_and_when.LICENSE.txt": WHO_AND_WHEN_LICENSE,
  "licenses/langfuse.LICENSE.txt": LANGFUSE_LICENSE,
};

/**
 * The licence entry of one source dataset.
 * @param dataset Case.sourceDataset
 * @param files the source file names of the released cases of this dataset (Case.sourceFile);
 *   for "langfuse" the licence is known only when every file is one of {@link LANGFUSE_SAMPLE_FILES}
 */
export function licenceOf(dataset: string, files: ReadonlyArray<string | null> = []): DatasetLicence {
  switch (dataset) {
    case "who_and_when":
      return {
        dataset,
        name: "Who&When (Zhang et al., ICML 2025, arXiv 2505.00212)",
        licence: "MIT",
        origin: "GitHub ag2ai/Agents_Failure_Attribution, commit f4d2b6da464a826580e59b3a0eae15ea2d642d7c, Who&When/Hand-Crafted and Who&When/Algorithm-Generated (also Hugging Face Kevin355/Who_and_When)",
        attribution: "Copyright (c) 2025 Ming Yin; the MIT licence text must stay with the data",
        licenseFile: "licenses/who_and_when.LICENSE.txt",
        note: "The dataset's own consensus label (mistake agent, step, reason) travels in each bundle as referenceLabels.",
      };
    case "mad":
      return {
        dataset,
        name: "MAST / MAD human-labelled traces (Cemri, Pan, Yang et al., arXiv 2503.13657)",
        licence: "CC-BY-4.0",
        origin: "Hugging Face mcemri/MAD, MAD_human_labelled_dataset.json (copy from GitHub marwantosolve/DEMO, commit cd7ce2fa58e7ad7dee5691788ee2b3fe24684166)",
        attribution: "Cemri et al., MAST/MAD dataset, https://huggingface.co/datasets/mcemri/MAD (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/); changes: records converted to replay bundles",
        licenseFile: null,
        note: "Each bundle carries the dataset's three annotators' failure-mode labels as referenceLabels.",
      };
    case "langfuse": {
      const known = files.length > 0 && files.every((f) => f !== null && (LANGFUSE_SAMPLE_FILES as readonly string[]).includes(f));
      return known
        ? {
            dataset,
            name: "Langfuse framework traces (test fixtures of langfuse/langfuse)",
            licence: "MIT",
            origin: "GitHub langfuse/langfuse, commit 62751446149b702b419a9292ddfc2280cdf74b8c, worker/src/__tests__/chatml/framework-traces/",
            attribution: "Copyright (c) 2023-2026 ClickHouse, Inc.; the MIT licence text must stay with the data",
            licenseFile: "licenses/langfuse.LICENSE.txt",
            note: "Real instrumented agent runs, not failure-annotated by their authors.",
          }
        : {
            dataset,
            name: "Langfuse trace exports",
            licence: "unspecified",
            origin: "Langfuse exports imported into SymTrace Studio (not the shared sample files)",
            attribution: null,
            licenseFile: null,
            note: "The tool cannot know the licence of these traces: the releasing team must state it before publishing.",
          };
    }
    case "otlp":
      return { dataset, name: "OTLP traces", licence: "unspecified", origin: "OpenTelemetry (OTLP) traces received or imported by SymTrace Studio", attribution: null, licenseFile: null, note: "Recorded by the releasing team's own systems: state their licence before publishing." };
    case "replay":
      return { dataset, name: "Replays", licence: "unspecified", origin: "Replays run in SymTrace Studio from another bundle (parent.bundleId)", attribution: null, licenseFile: null, note: "Derived from the parent bundle's data: the parent's licence applies as well." };
    case "bundle":
      return { dataset, name: "Replay bundles", licence: "unspecified", origin: "symtrace.bundle/v1 files recorded with symtrace record or imported as bundles", attribution: null, licenseFile: null, note: "Recorded or supplied by the releasing team: state their licence before publishing." };
    default:
      return { dataset, name: dataset, licence: "unspecified", origin: `imported as source dataset "${dataset}"`, attribution: null, licenseFile: null, note: "Unknown source: state its licence before publishing." };
  }
}
