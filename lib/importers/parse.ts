/**
 * The first step of every importer: parse a file's text as JSON (BOM and NaN literals tolerated,
 * lib/bundle parseJsonText). A file that is not JSON becomes its one ImportFailure; the message
 * names line and column. Never throws.
 */
import { parseJsonText } from "../bundle";
import type { ImportFileResult } from "./types";

export function parseImportText(text: string, fileName: string, opts: { allowNaN?: boolean } = { allowNaN: true }): { value: unknown } | { result: ImportFileResult } {
  try {
    return { value: parseJsonText(text, opts) };
  } catch (e) {
    return { result: { cases: [], failures: [{ where: fileName, errors: [{ path: "$", message: e instanceof Error ? e.message : String(e) }] }] } };
  }
}
