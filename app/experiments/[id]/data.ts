import "server-only";
import type { ExperimentView } from "@/lib/db";
import { frozenSettingsRecord } from "@/lib/services/experiments/run";

/**
 * The frozen settings as ordered key/value entries for the page: the experiment's identity, arms,
 * k and seed, then the same record every export carries (frozenSettingsRecord).
 */
export function settingsEntries(e: ExperimentView): Array<[string, unknown]> {
  return [
    ["experiment", e.id],
    ["methods", e.methods.join(", ")],
    ["attempts (k)", e.attempts],
    ["seed", e.seed],
    ["cases", e.caseCount],
    ...Object.entries(frozenSettingsRecord(e)).filter(([k]) => k !== "case_bundle_ids"),
    ["case_bundle_ids", e.caseSet.bundleIds.length > 20 ? `${e.caseSet.bundleIds.slice(0, 20).join(" ")} … (${e.caseSet.bundleIds.length})` : e.caseSet.bundleIds.join(" ")],
    ["stop_reason", e.stopReason],
    ["created_by", e.createdBy?.name ?? null],
  ];
}
