/**
 * The trace as the acting model saw it (seeds/004 §2.1 "Trace τ (student-visible)") and the
 * privileged data kept apart from it. Pure: a replay bundle in, plain JSON out.
 *
 * Student-visible: the task prompt (and its id/benchmark), the system prompts and tool names the
 * agents were given (from the recorded LLM requests, when the bundle has records, and from
 * `config.systemPrompts`, where the Who&When importer keeps them), and every node
 * in the observed order O with its agent, type, label, status, error and content.
 * Privileged (never in a student input): `task.reference` (reference answers, ground truth),
 * the evaluator's `outcome` (verdict, evaluator name and its details), `task`'s other
 * evaluator-only keys, and the dataset's published reference labels.
 */
import type { ReplayBundle } from "../../bundle";

/** One step of the student trace: a node at position `index` of the observed order. */
export interface TraceStep {
  /** Position in the observed order O (0-based). */
  index: number;
  nodeId: string;
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
  error: unknown;
  content: unknown;
}

/** The student-visible trace τ. */
export interface StudentTrace {
  task: { id: string | null; benchmark: string | null; prompt: string };
  /** Distinct system prompts of the recorded LLM requests, with the agent of their node (first use). */
  systemPrompts: Array<{ agent: string | null; text: string }>;
  /** Names of the tools offered in the recorded LLM requests (`tools[].function.name`), sorted. */
  tools: string[];
  steps: TraceStep[];
}

/** Privileged data of a case: stored apart (privileged.jsonl), never in an input. */
export interface PrivilegedData {
  bundleId: string;
  taskId: string | null;
  /** `task.reference` as stored (reference answer, ground truth), or null. */
  reference: unknown;
  /** The evaluator's outcome: `{ passed, evaluator, details }` as stored, or null. */
  outcome: unknown;
  /** The dataset's own published labels (e.g. Who&When mistake step), as stored. */
  referenceLabels: unknown[];
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** Text of a chat message's `content` (string, or the text parts of an array of parts). */
function messageText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts = content.map((p) => (p && typeof p === "object" ? str((p as { text?: unknown }).text) : null)).filter((x): x is string => x !== null);
    return parts.length ? parts.join("") : null;
  }
  return null;
}

/**
 * The student-visible trace of a bundle.
 * @param b a validated replay bundle
 * @returns steps in the observed order (nodes missing from `order` are appended in graph order,
 *   which a validated bundle never has)
 */
export function studentTrace(b: ReplayBundle): StudentTrace {
  const byId = new Map(b.graph.nodes.map((n) => [n.id, n]));
  const inOrder = new Set(b.order);
  const ids = [...b.order, ...b.graph.nodes.map((n) => n.id).filter((id) => !inOrder.has(id))];
  const steps: TraceStep[] = ids.map((id, index) => {
    const n = byId.get(id)!;
    return { index, nodeId: n.id, type: n.type, agent: n.agent ?? null, label: n.label ?? null, status: n.status ?? null, error: n.error ?? null, content: n.content };
  });
  const systemPrompts: StudentTrace["systemPrompts"] = [];
  const seen = new Set<string>();
  const tools = new Set<string>();
  for (const r of b.records) {
    if (r.boundary !== "llm") continue;
    const req = r.request as { messages?: unknown; tools?: unknown } | null;
    if (Array.isArray(req?.messages)) {
      for (const m of req.messages as Array<{ role?: unknown; content?: unknown }>) {
        if (m?.role !== "system") continue;
        const text = messageText(m.content);
        if (text === null || seen.has(text)) continue;
        seen.add(text);
        systemPrompts.push({ agent: byId.get(r.nodeId)?.agent ?? null, text });
      }
    }
    if (Array.isArray(req?.tools)) {
      for (const t of req.tools as Array<{ function?: { name?: unknown }; name?: unknown }>) {
        const name = str(t?.function?.name) ?? str(t?.name);
        if (name) tools.add(name);
      }
    }
  }
  // Importers without records keep the agents' system prompts in config.systemPrompts (Who&When:
  // `{ agent: text }`; a plain string or a list of strings is also read).
  const cfgPrompts = (b.config as { systemPrompts?: unknown }).systemPrompts;
  const addPrompt = (agent: string | null, text: unknown) => {
    if (typeof text !== "string" || seen.has(text)) return;
    seen.add(text);
    systemPrompts.push({ agent, text });
  };
  if (typeof cfgPrompts === "string") addPrompt(null, cfgPrompts);
  else if (Array.isArray(cfgPrompts)) for (const t of cfgPrompts) addPrompt(null, t);
  else if (cfgPrompts && typeof cfgPrompts === "object") for (const [agent, t] of Object.entries(cfgPrompts)) addPrompt(agent, t);
  return { task: { id: b.task.id ?? null, benchmark: b.task.benchmark ?? null, prompt: b.task.prompt }, systemPrompts, tools: [...tools].sort(), steps };
}

/**
 * The privileged data of a bundle (kept apart from the student trace).
 * @param referenceLabels the case's published labels (lib/db ReferenceLabel rows as plain JSON), if any
 */
export function privilegedData(b: ReplayBundle, referenceLabels: unknown[] = []): PrivilegedData {
  return { bundleId: b.id, taskId: b.task.id ?? null, reference: b.task.reference ?? null, outcome: b.outcome ?? null, referenceLabels };
}

/**
 * A node's content as readable text for a chat message: a string as is; an object as one
 * `key: value` line per key (a string value verbatim, anything else as JSON); other values as
 * JSON. Quotes (text of one string value) stay verbatim in this rendering.
 */
export function renderContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (content && typeof content === "object" && !Array.isArray(content)) {
    return Object.entries(content as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join("\n");
  }
  return JSON.stringify(content ?? null);
}

const renderedSteps = new WeakMap<TraceStep, string>();

/** One step as a block of text: `[index] nodeId · type · agent (status)` then its content (memoized per step object). */
export function renderStep(s: TraceStep): string {
  const done = renderedSteps.get(s);
  if (done !== undefined) return done;
  const text = renderStepText(s);
  renderedSteps.set(s, text);
  return text;
}

function renderStepText(s: TraceStep): string {
  const head = `[${s.index}] ${s.nodeId} · ${s.type}${s.agent ? ` · ${s.agent}` : ""}${s.status && s.status !== "success" ? ` (${s.status})` : ""}`;
  const err = s.error ? `\nerror: ${JSON.stringify(s.error)}` : "";
  return `${head}\n${renderContent(s.content)}${err}`;
}

/** The task and the given steps as one user message (system prompts and tools first when known). */
export function renderTrace(t: StudentTrace, steps: TraceStep[] = t.steps): string {
  const parts = [`Task: ${t.task.prompt}`];
  if (t.systemPrompts.length) parts.push(`System prompts:\n${t.systemPrompts.map((p) => `- ${p.agent ?? "(agent)"}: ${p.text}`).join("\n")}`);
  if (t.tools.length) parts.push(`Tools: ${t.tools.join(", ")}`);
  parts.push(`Steps (observed order):\n\n${steps.map(renderStep).join("\n\n")}`);
  return parts.join("\n\n");
}
