/**
 * lib/importers: real public trace formats -> replay bundle v1 (validated).
 * Formats: our own bundle; Who&When; MAST/MAD; OpenTelemetry spans (Langfuse exports and
 * OTLP/JSON with OpenInference or GenAI attributes). See lib/importers/README.md for mappings.
 */
import path from "node:path";
import { importBundleFile, isBundleFile } from "./bundle";
import { importWhoWhen, isWhoWhenRecord } from "./who-and-when";
import { importMad, isMadFile } from "./mad";
import { importOtel, isLangfuseTraceExport, isOtlpJson } from "./otel";
import { parseImportText } from "./parse";
import type { ImportFileResult } from "./types";

export * from "./types";
export { importBundleFile, importBundleValue, isBundleFile } from "./bundle";
export { importWhoWhen, isWhoWhenRecord } from "./who-and-when";
export { importMad, isMadFile } from "./mad";
export { importOtel, importOtelValue, isLangfuseTraceExport, isOtlpJson } from "./otel";
export { benchmarkKey, canonicalBenchmark, KNOWN_BENCHMARK_NAMES } from "./benchmark-name";

export const IMPORT_FORMATS = ["auto", "bundle", "whowhen", "mad", "otel"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * Guess a file's format from its parsed content.
 * @returns the format, or null when nothing matches
 */
export function detectFormat(value: unknown): Exclude<ImportFormat, "auto"> | null {
  if (isBundleFile(value)) return "bundle";
  if (isLangfuseTraceExport(value) || isOtlpJson(value)) return "otel";
  if (isWhoWhenRecord(value)) return "whowhen";
  if (isMadFile(value)) return "mad";
  return null;
}

/**
 * Import one file's text in the given (or detected) format. Never throws on bad input: every
 * problem becomes an ImportFailure naming the file (and record) and the JSON path.
 * @param filePath used for the file name and, for Who&When, the subset (parent folder name)
 */
export function importText(text: string, filePath: string, format: ImportFormat = "auto"): ImportFileResult {
  const fileName = path.basename(filePath);
  let fmt = format;
  if (fmt === "auto") {
    const parsed = parseImportText(text, fileName);
    if ("result" in parsed) return parsed.result;
    const detected = detectFormat(parsed.value);
    if (!detected) {
      return {
        cases: [],
        failures: [
          {
            where: fileName,
            errors: [{ path: "$", code: "format-needed", message: "unrecognized format: not a replay bundle, Who&When record, MAD file, Langfuse trace export or OTLP/JSON; choose the format to read it as" }],
          },
        ],
      };
    }
    fmt = detected;
  }
  switch (fmt) {
    case "bundle":
      return importBundleFile(text, { fileName });
    case "whowhen": {
      const parent = path.basename(path.dirname(filePath));
      const subset = parent === "Hand-Crafted" || parent === "Algorithm-Generated" ? parent : undefined;
      return importWhoWhen(text, { fileName, subset });
    }
    case "mad":
      return importMad(text, { fileName });
    case "otel":
      return importOtel(text, { fileName });
  }
}
