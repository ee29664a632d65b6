/**
 * JSON Schema validation of AED rows (aed-record.schema.json, draft-07) with ajv. Every row the
 * exporter writes passes through `validateAedRecord`; a row that fails is a bug, reported with its
 * JSON paths and never written.
 */
import { Ajv, type ErrorObject } from "ajv";
import schema from "./aed-record.schema.json";

let compiled: ReturnType<Ajv["compile"]> | null = null;

function validator() {
  if (!compiled) compiled = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
  return compiled;
}

/** The schema itself (for writing it beside a release). */
export const AED_RECORD_SCHEMA: unknown = schema;

/**
 * Validate one AED row against aed-record.schema.json.
 * @returns [] when valid, else one `{ path, message }` per violation (path as a JSON path, `$.diagnosis.step.index`)
 */
export function validateAedRecord(row: unknown): Array<{ path: string; message: string }> {
  const v = validator();
  if (v(row)) return [];
  return (v.errors ?? []).map((e: ErrorObject) => ({
    path: "$" + e.instancePath.replace(/\/(\d+)(?=\/|$)/g, "[$1]").replace(/\//g, "."),
    message: `${e.message ?? "invalid"}${e.params && "allowedValues" in e.params ? ` (${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)})` : ""}${e.params && "additionalProperty" in e.params ? `: ${(e.params as { additionalProperty: string }).additionalProperty}` : ""}`,
  }));
}
