/**
 * THE method registry of repair experiments (issue 23 item 2): one line per method — name, level,
 * label, matched-control pairing, the frozen settings block it reads, whether the calibrated world
 * knows its truth — read by the CLI, the jobs, the database layer, the report, the pages and the
 * calibrated checks. Pure, so every layer may import it; the runners (what a method does) are
 * lib/services/experiments/methods, whose `METHODS` map is typed by `MethodName`: a method listed
 * here without a runner (or the reverse) does not compile.
 *
 * Adding a method: its runner file in lib/services/experiments/methods/, one line below, and its
 * entry in `METHODS` there (ARCHITECTURE.md, "Add a method that …").
 */
import type { MethodLevel } from "./types";

/** One method as every layer sees it. */
export interface MethodDescriptor {
  /** Exact name (CLI `--methods`, database, URLs). */
  name: string;
  /** "task": chains of up to k complete attempts, stop at the first pass (seeds/000 §5.3); "node": k independent attempts at one node. */
  level: MethodLevel;
  /** Display label (the paper's names; Node Resample and Generic Nudge are our controls). */
  label: string;
  /** Matched-control pairing (issue 14 item 4): a treatment names its control from the same prefix and boundary. */
  pairing?: { role: "treatment"; control: string } | { role: "control"; treatment: string };
  /** The block of the frozen settings the method reads (resolved with defaults at creation, lib/db `checkSettings`). */
  settings?: "mars";
  /** The calibrated world (lib/testing/calibrated/truth.ts) knows its a-priori pass rate. */
  calibrated: boolean;
}

export const METHOD_CATALOG = [
  { name: "rerun", level: "task", label: "Unguided Full Rerun", calibrated: true },
  { name: "self-reflection", level: "task", label: "Self-Reflection", calibrated: true },
  { name: "critic", level: "task", label: "Critic-Agent", calibrated: true },
  { name: "suspicious-node", level: "node", label: "Suspicious-Node", calibrated: true },
  { name: "annotated-node", level: "node", label: "Annotated-Node", calibrated: true },
  { name: "random-node", level: "node", label: "Random-Node", calibrated: true },
  { name: "last-node", level: "node", label: "Last-Node", calibrated: true },
  { name: "node-resample", level: "node", label: "Node Resample", calibrated: true },
  { name: "nudge", level: "node", label: "Generic Nudge", calibrated: true },
  { name: "correction", level: "node", label: "Proposed Correction", pairing: { role: "treatment", control: "correction-control" }, calibrated: false },
  { name: "correction-control", level: "node", label: "Correction Control", pairing: { role: "control", treatment: "correction" }, calibrated: false },
  { name: "mars", level: "node", label: "MARS (repair search)", settings: "mars", calibrated: false },
] as const satisfies readonly MethodDescriptor[];

/** Method names (exact; CLI and DB). */
export type MethodName = (typeof METHOD_CATALOG)[number]["name"];

/** Every method name, in the paper's order (task level first, then node level and our controls); a non-empty tuple for z.enum. */
export const METHOD_NAMES = METHOD_CATALOG.map((m) => m.name) as unknown as readonly [MethodName, ...MethodName[]];

const BY_NAME: ReadonlyMap<string, MethodDescriptor> = new Map(METHOD_CATALOG.map((m) => [m.name, m as MethodDescriptor]));

/** The descriptor of a method name, or undefined. */
export function methodDescriptor(name: string): MethodDescriptor | undefined {
  return BY_NAME.get(name);
}

/** Whether a string is a method name. */
export function isMethodName(s: string): s is MethodName {
  return BY_NAME.has(s);
}

/** Task-level methods: up to k complete attempts, stop at the first pass (seeds/000 §5.3). */
export const TASK_LEVEL_METHODS: readonly string[] = METHOD_CATALOG.filter((m) => m.level === "task").map((m) => m.name);

/** Display labels by name. */
export const METHOD_LABELS: Readonly<Record<string, string>> = Object.fromEntries(METHOD_CATALOG.map((m) => [m.name, m.label]));

/** The matched-control pair(s) of issue 14 item 4: both arms (treatment: the correction substituted; control: the original request re-executed). */
export const CORRECTION_METHODS: readonly MethodName[] = METHOD_CATALOG.filter((m) => "pairing" in m).map((m) => m.name);

/**
 * Matched controls: treatment → its control. When both run, the default comparisons test the
 * treatment against its control (not the control against the baseline).
 */
export const MATCHED_CONTROLS: Readonly<Record<string, string>> = Object.fromEntries(
  METHOD_CATALOG.flatMap((m) => ("pairing" in m && m.pairing.role === "treatment" ? [[m.name, m.pairing.control]] : [])),
);

/** The methods whose a-priori truth the calibrated world knows (its full experiment), task level first. */
export const CALIBRATED_METHODS: readonly MethodName[] = METHOD_CATALOG.filter((m) => m.calibrated).map((m) => m.name);

/** The label of a method name, or the name itself when unknown. */
export function methodLabel(name: string): string {
  return METHOD_LABELS[name] ?? name;
}

/** Level of a method: from the catalog ("node" for an unknown name); `override` wins. */
export function methodLevel(name: string, override?: Record<string, MethodLevel>): MethodLevel {
  return override?.[name] ?? BY_NAME.get(name)?.level ?? "node";
}

/**
 * Parse a comma-separated method list (CLI `--methods`), order kept, duplicates dropped.
 * @throws Error naming the unknown method and listing the known ones
 */
export function parseMethodList(list: string): MethodName[] {
  const out: MethodName[] = [];
  for (const raw of list.split(",").map((x) => x.trim()).filter(Boolean)) {
    if (!isMethodName(raw)) throw new Error(`unknown method "${raw}" (known: ${METHOD_NAMES.join(", ")})`);
    if (!out.includes(raw)) out.push(raw);
  }
  if (out.length === 0) throw new Error(`no method given (known: ${METHOD_NAMES.join(", ")})`);
  return out;
}
