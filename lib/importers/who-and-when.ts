/**
 * Who&When importer (Zhang et al., ICML 2025, "Which Agent Causes Task Failures and When?";
 * data: GitHub ag2ai/Agents_Failure_Attribution, folder `Who&When/`).
 *
 * One JSON file = one record = one failed multi-agent run with one consensus label
 * (mistake_agent, mistake_step, mistake_reason). Two subsets:
 *  - Hand-Crafted: Magentic-One runs; messages `{content, role}` where role is the speaker
 *    ("Orchestrator (thought)", "Orchestrator (-> WebSurfer)", "WebSurfer", "human", ...).
 *  - Algorithm-Generated: CaptainAgent / AG2 group chats; messages `{content, role, name}` where
 *    role is only "user"/"assistant" and `name` is the agent.
 *
 * Mapping (the who_and_when dataset notes (SOURCE.md), "Mapping to an event-dependency graph"):
 * every `history[i]` becomes exactly one node `msg_<i>` (zero-padded), in source order.
 * See who-and-when.md beside this file for the full rules.
 */
import { createHash } from "node:crypto";
import {
  buildBundle,
  BundleValidationError,
  type BundleEdge,
  type NodeDraft,
  type NodeType,
} from "../bundle";
import { findLoneSurrogate, parseImportText } from "./parse";
import type { BundleSource, ImportFailure, ImportFileResult, ReferenceLabel } from "./types";

export type WhoWhenSubset = "Hand-Crafted" | "Algorithm-Generated";

export interface ImportWhoWhenOptions {
  /** File name or path the text came from; its basename (without .json) becomes the bundle id suffix. */
  fileName: string;
  /** Subset, when the caller knows it from the folder name; otherwise inferred from the record's keys. */
  subset?: WhoWhenSubset;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Top-level keys the importer maps; anything else is kept verbatim under the bundle key `sourceExtra`. */
const KNOWN_KEYS = new Set([
  "history",
  "question",
  "ground_truth",
  "question_ID",
  "mistake_agent",
  "mistake_step",
  "mistake_reason",
  "mistake_type",
  "is_corrected",
  "is_correct",
  "level",
  "labels",
  "system_prompt",
]);

/** Magentic-One agents whose reply to a delegation is an observation of a tool (web page, file, terminal). */
const HC_TOOL_AGENTS = new Set(["WebSurfer", "FileSurfer", "ComputerTerminal"]);
/** The AG2 code executor in the Algorithm-Generated subset. */
const AG_TERMINAL = "Computer_terminal";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX64_RE = /^[0-9a-f]{64}$/i;

/**
 * Detect a Who&When record (for `--format auto`).
 * @param value any parsed JSON value
 * @returns true when `value` is an object with a `history` array and at least one of
 *   `mistake_step`, `mistake_agent` or `question` (SOURCE.md §Record format)
 */
export function isWhoWhenRecord(value: unknown): boolean {
  if (!isRec(value) || !Array.isArray(value.history)) return false;
  return "mistake_step" in value || "mistake_agent" in value || "question" in value;
}

interface Msg {
  role: string;
  name: string | null;
  text: string;
  /** Agent shown on the node: Hand-Crafted role without "(...)" suffix, Algorithm-Generated `name`. */
  agent: string;
  /** Hand-Crafted "Orchestrator (-> X)": X. */
  delegateTo: string | null;
  /** Message keys other than content/role/name, kept verbatim. */
  extra: Rec | null;
}

/** "Orchestrator (-> WebSurfer)" -> "Orchestrator"; "WebSurfer" -> "WebSurfer". */
function stripRoleSuffix(role: string): string {
  return role.replace(/\s*\([^)]*\)\s*$/, "").trim() || role;
}

/** "Orchestrator (-> WebSurfer)" -> "WebSurfer", else null. */
function delegationTarget(role: string): string | null {
  const m = /\(\s*->\s*([^)]+?)\s*\)\s*$/.exec(role);
  return m ? m[1] : null;
}

/** Magentic-One "Updated Ledger:\n{json}" -> "Ledger: next → WebSurfer (satisfied: false)", else null. */
function ledgerSummary(text: string): string | null {
  if (!text.startsWith("Updated Ledger:")) return null;
  try {
    const l = JSON.parse(text.slice("Updated Ledger:".length)) as unknown;
    if (!isRec(l)) return null;
    const ans = (k: string) => (isRec(l[k]) ? (l[k] as Rec).answer : undefined);
    const next = ans("next_speaker");
    return `Ledger: next → ${typeof next === "string" ? next : "?"} (satisfied: ${String(ans("is_request_satisfied") ?? "?")})`;
  } catch {
    return null;
  }
}

/** Short single-line label (<= 80 code points) from a message (the text itself stays whole in content). */
function makeLabel(msg: Msg): string {
  const lines = msg.text.split(/\r?\n/).map((l) => l.replace(/\s+/g, " ").trim());
  const firstLine = lines.find((l) => l !== "") ?? "";
  const finalAnswer = lines.find((l) => l.startsWith("FINAL ANSWER:"));
  const body = firstLine === "" ? "(empty message)" : (finalAnswer ?? ledgerSummary(msg.text) ?? firstLine);
  const full = msg.delegateTo ? `→ ${msg.delegateTo}: ${body}` : body;
  const cps = Array.from(full);
  return cps.length <= 80 ? full : cps.slice(0, 79).join("") + "…";
}

function baseName(fileName: string): string {
  const parts = fileName.split(/[\\/]/);
  return parts[parts.length - 1] ?? "";
}

function fail(where: string, errors: Array<{ path: string; message: string }>): ImportFileResult {
  return { cases: [], failures: [{ where, errors } satisfies ImportFailure] };
}

/**
 * Does `mistakeAgent` name the author of a message? Exact role/name, or the role's prefix before
 * its "(...)" suffix, i.e. `msg.agent` ("Orchestrator" matches "Orchestrator (thought)"; "Web" does not match "WebSurfer").
 */
function agentMatches(mistakeAgent: string, msg: Msg): boolean {
  return mistakeAgent === msg.role || mistakeAgent === msg.agent || (msg.name !== null && mistakeAgent === msg.name);
}

function inferBenchmark(questionId: string | null): string | null {
  if (questionId === null) return null;
  if (UUID_RE.test(questionId)) return "GAIA";
  if (HEX64_RE.test(questionId)) return "AssistantBench";
  return null;
}

/**
 * Import one Who&When record file.
 *
 * @param text the file's text (one JSON object; BOM and NaN literals tolerated)
 * @param opts.fileName the file's name or path; the bundle id is
 *   `who_and_when/hand-crafted/<n>` or `who_and_when/algorithm-generated/<n>` with n = basename
 *   without `.json` (falls back to `question_ID` when the basename is empty)
 * @param opts.subset "Hand-Crafted" | "Algorithm-Generated" when known from the folder; otherwise
 *   inferred: `is_corrected` => Hand-Crafted, `is_correct` / `system_prompt` => Algorithm-Generated,
 *   then messages with a `name` => Algorithm-Generated, else Hand-Crafted roles ("Orchestrator ...").
 * @returns `{ cases: [one ImportedCase], failures: [] }`, or `{ cases: [], failures: [one] }` when the
 *   record is malformed (not JSON, no `history` array, a message without string `role`/`content`,
 *   subset undecidable, or the built bundle fails validation). Each failure error carries a JSON path
 *   (`$`, `$.history[3].content`, ...) or, for a syntax error, line and column in the message.
 *   Never throws.
 *
 * Source: the who_and_when dataset notes (SOURCE.md) (§Record format, §Things to handle, §Mapping).
 */
export function importWhoWhen(text: string, opts: ImportWhoWhenOptions): ImportFileResult {
  const where = opts.fileName;
  const parsed = parseImportText(text, where);
  if ("result" in parsed) return parsed.result;
  const raw = parsed.value;
  if (!isRec(raw)) return fail(where, [{ path: "$", message: "expected a JSON object (one Who&When record)" }]);
  // Text that cannot be hashed or stored (a lone UTF-16 surrogate): name the innermost path.
  const unhashable = findLoneSurrogate(raw, "$");
  if (unhashable) return fail(where, [unhashable]);
  if (!Array.isArray(raw.history)) {
    return fail(where, [
      {
        path: "$.history",
        message: raw.history === undefined ? "missing: expected an array of messages" : "expected an array of messages",
      },
    ]);
  }
  if (raw.history.length === 0) return fail(where, [{ path: "$.history", message: "empty: no messages" }]);

  const notes: string[] = [];

  // ---- subset -----------------------------------------------------------------------------
  const keySubset: WhoWhenSubset | null =
    "is_corrected" in raw
      ? "Hand-Crafted"
      : "is_correct" in raw || "system_prompt" in raw
        ? "Algorithm-Generated"
        : raw.history.some((m) => isRec(m) && typeof m.name === "string")
          ? "Algorithm-Generated"
          : raw.history.some((m) => isRec(m) && typeof m.role === "string" && m.role.startsWith("Orchestrator"))
            ? "Hand-Crafted"
            : null;
  const subset = opts.subset ?? keySubset;
  if (subset === null) {
    return fail(where, [
      { path: "$", message: "cannot tell the subset: no is_corrected / is_correct / system_prompt key and no subset given" },
    ]);
  }
  if (opts.subset && keySubset && opts.subset !== keySubset) {
    notes.push(`subset given as ${opts.subset} but the record's keys look like ${keySubset}; used ${opts.subset}`);
  }
  const hc = subset === "Hand-Crafted";

  // ---- messages ---------------------------------------------------------------------------
  const errors: Array<{ path: string; message: string }> = [];
  const msgs: Msg[] = [];
  raw.history.forEach((m, i) => {
    const p = `$.history[${i}]`;
    if (!isRec(m)) {
      errors.push({ path: p, message: "expected a message object {content, role}" });
      return;
    }
    if (typeof m.role !== "string") errors.push({ path: `${p}.role`, message: "expected a string" });
    if (typeof m.content !== "string") errors.push({ path: `${p}.content`, message: "expected a string" });
    if (m.name !== undefined && m.name !== null && typeof m.name !== "string") {
      errors.push({ path: `${p}.name`, message: "expected a string" });
    }
    if (typeof m.role !== "string" || typeof m.content !== "string") return;
    const name = typeof m.name === "string" ? m.name : null;
    const agent = hc ? stripRoleSuffix(m.role) : (name ?? m.role);
    const extraKeys = Object.keys(m).filter((k) => k !== "content" && k !== "role" && k !== "name");
    msgs.push({
      role: m.role,
      name,
      text: m.content,
      agent,
      delegateTo: hc ? delegationTarget(m.role) : null,
      extra: extraKeys.length ? Object.fromEntries(extraKeys.map((k) => [k, m[k]])) : null,
    });
  });
  if (errors.length) return fail(where, errors);

  // ---- node types and data edges -----------------------------------------------------------
  const n = msgs.length;
  const types: NodeType[] = new Array(n);
  const dataEdges: Array<[number, number]> = [];
  if (hc) {
    for (let i = 0; i < n; i++) {
      const target = msgs[i].delegateTo;
      if (!target) continue;
      for (let j = i + 1; j < n; j++) {
        if (msgs[j].delegateTo !== null) break; // re-delegated before any reply
        if (msgs[j].role === target) {
          dataEdges.push([i, j]);
          break;
        }
      }
    }
    for (let i = 0; i < n; i++) {
      const { role } = msgs[i];
      if (/\(termination condition\)\s*$/.test(role) || i === n - 1) types[i] = "final_result";
      else if (role === "human") types[i] = "message";
      // A WebSurfer/FileSurfer/ComputerTerminal message observes a tool; Assistant, Orchestrator -> agent_action.
      else if (HC_TOOL_AGENTS.has(role)) types[i] = "tool_result";
      else types[i] = "agent_action";
    }
  } else {
    for (let i = 0; i < n; i++) types[i] = msgs[i].agent === AG_TERMINAL ? "tool_result" : "agent_action";
    for (let i = 1; i < n; i++) {
      const prev = msgs[i - 1];
      if (msgs[i].agent === AG_TERMINAL && prev.agent !== AG_TERMINAL && prev.text.includes("```")) {
        types[i - 1] = "tool_call";
        dataEdges.push([i - 1, i]);
      }
    }
    types[n - 1] = "final_result";
  }

  const width = Math.max(4, String(n - 1).length);
  const nodeId = (i: number) => `msg_${String(i).padStart(width, "0")}`;

  const nodes: NodeDraft[] = msgs.map((m, i) => ({
    id: nodeId(i),
    type: types[i],
    agent: m.agent,
    label: makeLabel(m),
    content: {
      role: m.role,
      name: m.name,
      text: m.text,
      ...(m.delegateTo ? { delegateTo: m.delegateTo } : {}),
      ...(m.extra ? { extra: m.extra } : {}),
    },
  }));

  // Sequential control edges; a data edge over the same pair replaces it (one edge per pair).
  const edgeMap = new Map<string, BundleEdge>();
  for (let i = 0; i + 1 < n; i++) edgeMap.set(`${i}>${i + 1}`, { from: nodeId(i), to: nodeId(i + 1), kind: "control" });
  for (const [a, b] of dataEdges) edgeMap.set(`${a}>${b}`, { from: nodeId(a), to: nodeId(b), kind: "data" });
  const edges = [...edgeMap.entries()]
    .map(([k, e]) => ({ k: k.split(">").map(Number), e }))
    .sort((x, y) => x.k[0] - y.k[0] || x.k[1] - y.k[1])
    .map((x) => x.e);

  // ---- task, config, outcome ----------------------------------------------------------------
  const questionId =
    typeof raw.question_ID === "string" ? raw.question_ID : typeof raw.question_ID === "number" ? String(raw.question_ID) : null;
  let prompt: string;
  if (typeof raw.question === "string") prompt = raw.question;
  else {
    const human = msgs.find((m) => m.role === "human");
    prompt = human?.text ?? "";
    notes.push(`no string "question": prompt taken from ${human ? "the first human message" : "nothing (empty)"}`);
  }
  const inferred = inferBenchmark(questionId);
  const benchmark = inferred ?? (hc ? "GAIA" : "who_and_when");

  const stem = baseName(opts.fileName).replace(/\.json$/i, "");
  const idPart = stem !== "" ? stem : (questionId ?? "unknown");
  const bundleId = `who_and_when/${hc ? "hand-crafted" : "algorithm-generated"}/${idPart}`;

  const outcomeDetails: Rec = {};
  if ("is_corrected" in raw) outcomeDetails.is_corrected = raw.is_corrected;
  if ("is_correct" in raw) outcomeDetails.is_correct = raw.is_correct;

  // ---- reference label ----------------------------------------------------------------------
  const referenceLabels: ReferenceLabel[] = [];
  const hasLabel = "mistake_agent" in raw || "mistake_step" in raw || "mistake_reason" in raw;
  if (hasLabel) {
    const mistakeAgent = typeof raw.mistake_agent === "string" ? raw.mistake_agent : null;
    const rawStep = raw.mistake_step;
    const stepStr = typeof rawStep === "string" ? rawStep.trim() : typeof rawStep === "number" ? String(rawStep) : null;
    const step = stepStr !== null && /^\d+$/.test(stepStr) ? Number(stepStr) : null;
    let labelNode: string | null = null;
    let agentMatchesStep: boolean | null = null;
    let matchedRole: string | null = null;
    let stepRole: string | null = null;
    if (step === null) {
      notes.push(`mistake_step ${JSON.stringify(rawStep ?? null)} is not a 0-based index: label has no node`);
    } else if (step >= n) {
      notes.push(`mistake_step "${stepStr}" is past the end of history (${n} messages): label has no node`);
    } else {
      labelNode = nodeId(step);
      const sm = msgs[step];
      stepRole = hc ? sm.role : (sm.name ?? sm.role);
      if (mistakeAgent !== null) {
        agentMatchesStep = agentMatches(mistakeAgent, sm);
        if (!agentMatchesStep && hc && sm.delegateTo === mistakeAgent) {
          // "Orchestrator (-> WebSurfer)" names WebSurfer in its role: the label blames the agent the
          // step instructs (Hand-Crafted 20.json). SOURCE.md counts this as agreeing (5 disagreements, not 6).
          agentMatchesStep = true;
          matchedRole = stepRole;
          notes.push(`mistake_agent "${mistakeAgent}" is the addressee of history[${step}] (role "${stepRole}"), not its author`);
        } else if (agentMatchesStep) {
          matchedRole = stepRole;
          if (mistakeAgent !== stepRole) {
            notes.push(`mistake_agent "${mistakeAgent}" matched role "${stepRole}" of history[${step}] by prefix`);
          }
        } else {
          notes.push(
            `annotation inconsistency: mistake_agent "${mistakeAgent}" is not the author of history[${step}] (mistake_step), which is "${stepRole}"`,
          );
        }
      }
    }
    const extra: Rec = { mistakeStep: rawStep ?? null, agentMatchesStep, matchedRole, stepRole };
    if ("mistake_type" in raw) extra.mistakeType = raw.mistake_type;
    if ("labels" in raw) extra.labels = raw.labels;
    referenceLabels.push({
      source: "who_and_when",
      annotator: "consensus",
      nodeId: labelNode,
      agent: mistakeAgent,
      failureModes: [],
      reason: typeof raw.mistake_reason === "string" ? raw.mistake_reason : null,
      extra,
    });
  }

  const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k));
  const sourceExtra = unknown.length ? Object.fromEntries(unknown.map((k) => [k, (raw as Rec)[k]])) : null;
  if (unknown.length) notes.push(`unmapped top-level keys kept under sourceExtra: ${unknown.join(", ")}`);

  const source: BundleSource = {
    dataset: "who_and_when",
    file: baseName(opts.fileName),
    recordKey: null,
    subset,
    traceSha256: createHash("sha256").update(text, "utf8").digest("hex"),
    notes,
  };

  try {
    const bundle = buildBundle({
      id: bundleId,
      task: {
        id: questionId,
        benchmark,
        prompt,
        reference: { ground_truth: raw.ground_truth ?? null },
        level: raw.level ?? null,
      },
      config: {
        mas: hc ? "magentic-one" : "captain-agent",
        ...("system_prompt" in raw ? { systemPrompts: raw.system_prompt } : {}),
      },
      nodes,
      edges,
      outcome: { passed: false, evaluator: "who_and_when", details: outcomeDetails },
      extra: { source, referenceLabels, ...(sourceExtra ? { sourceExtra } : {}) },
    });
    return { cases: [{ bundle, source, referenceLabels }], failures: [] };
  } catch (err) {
    if (err instanceof BundleValidationError) return fail(where, err.issues.map((i) => ({ path: i.path, message: i.message })));
    return fail(where, [{ path: "$", message: err instanceof Error ? err.message : String(err) }]);
  }
}
