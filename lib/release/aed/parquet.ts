/**
 * Parquet encodings of the AED files and training views (issue 14 item 6), written with
 * hyparquet-writer. Pure: rows in, an ArrayBuffer out (the caller writes the file).
 *
 * - chat views: `messages` (sft-*) or `prompt` / `chosen` / `rejected` (preference) as
 *   LIST<STRUCT<role: UTF8, content: UTF8>> — what Hugging Face `datasets` and pandas/pyarrow read
 *   as a list of `{role, content}` dicts, the same shape as the JSONL;
 * - AED rows and privileged rows: scalar fields as UTF8 columns, nested objects as JSON columns
 *   (Parquet converted type JSON: one JSON text per row, equal to the JSONL's value).
 * Column statistics are off: hyparquet-writer never truncates the min/max of a JSON column, so
 * they would store each long value twice more (a 4,000-node row: 1.0 MB with, 52 KB without), and
 * nothing filters these files by value.
 */
import { parquetWriteBuffer } from "hyparquet-writer";
import type { AedRecord } from "./record";
import type { PrivilegedData } from "./trace";
import type { ChatMessage } from "./views";

type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]["schema"]>[number];

const utf8 = (name: string, required = true): SchemaElement => ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: required ? "REQUIRED" : "OPTIONAL" });
const json = (name: string): SchemaElement => ({ name, type: "BYTE_ARRAY", converted_type: "JSON", repetition_type: "OPTIONAL" });
/** LIST<STRUCT<role, content>> (3-level list, as parquet-format's LogicalTypes.md specifies). */
const chatList = (name: string): SchemaElement[] => [
  { name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", repetition_type: "REQUIRED", num_children: 2 },
  utf8("role"),
  utf8("content"),
];

const KV = (kind: string) => [{ key: "symtrace.kind", value: kind }];

/**
 * A chat view as Parquet.
 * @param columns which chat columns the rows have: ["messages"] or ["prompt", "chosen", "rejected"]
 * @param rows the rows (each has every named column)
 */
export function chatRowsToParquet(columns: string[], rows: Array<Record<string, ChatMessage[]>>, kind: string): ArrayBuffer {
  const schema: SchemaElement[] = [{ name: "root", num_children: columns.length }, ...columns.flatMap(chatList)];
  return parquetWriteBuffer({
    columnData: columns.map((c) => ({ name: c, data: rows.map((r) => r[c]!.map((m) => ({ role: m.role, content: m.content }))) })),
    schema,
    kvMetadata: KV(kind),
    statistics: false,
  });
}

const AED_SCALARS = ["id", "format", "evidenceGrade", "gradeReason", "split", "leakageGroup"] as const;
const AED_OBJECTS = ["source", "trace", "diagnosis", "review", "replay"] as const;

/** AED rows as Parquet: scalar columns as UTF8, nested ones as JSON. */
export function aedRowsToParquet(rows: AedRecord[]): ArrayBuffer {
  const schema: SchemaElement[] = [{ name: "root", num_children: AED_SCALARS.length + AED_OBJECTS.length }, ...AED_SCALARS.map((c) => utf8(c)), ...AED_OBJECTS.map(json)];
  return parquetWriteBuffer({
    columnData: [...AED_SCALARS.map((c) => ({ name: c, data: rows.map((r) => r[c]) })), ...AED_OBJECTS.map((c) => ({ name: c, data: rows.map((r) => JSON.stringify(r[c])) }))],
    schema,
    kvMetadata: KV("symtrace.aed/v1"),
    statistics: false,
  });
}

/** Privileged rows as Parquet (bundleId, taskId as UTF8; reference, outcome, referenceLabels as JSON). */
export function privilegedRowsToParquet(rows: PrivilegedData[]): ArrayBuffer {
  const schema: SchemaElement[] = [{ name: "root", num_children: 5 }, utf8("bundleId"), utf8("taskId", false), json("reference"), json("outcome"), json("referenceLabels")];
  return parquetWriteBuffer({
    columnData: [
      { name: "bundleId", data: rows.map((r) => r.bundleId) },
      { name: "taskId", data: rows.map((r) => r.taskId) },
      { name: "reference", data: rows.map((r) => JSON.stringify(r.reference)) },
      { name: "outcome", data: rows.map((r) => JSON.stringify(r.outcome)) },
      { name: "referenceLabels", data: rows.map((r) => JSON.stringify(r.referenceLabels)) },
    ],
    schema,
    kvMetadata: KV("symtrace.aed.privileged/v1"),
    statistics: false,
  });
}
