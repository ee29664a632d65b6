/**
 * Types of the failure-attribution study (issue 24): which agent, which step caused a failed
 * multi-agent run (Zhang et al., ICML 2025, "Which Agent Causes Task Failures and When?", §2
 * problem formulation: the decisive error is a pair (agent i, step t) in the log).
 */
import type { ReplayBundle } from "../bundle";

export type Subset = "Hand-Crafted" | "Algorithm-Generated";
export const SUBSETS: readonly Subset[] = ["Hand-Crafted", "Algorithm-Generated"];

/** One message of the log, 0-based `index` into the record's `history`. */
export interface AttributionStep {
  index: number;
  /** Node id in the replay bundle (`msg_0003`). */
  nodeId: string;
  /** Agent identity as the benchmark names it: `role` (Hand-Crafted), `name` (Algorithm-Generated). */
  agent: string;
  text: string;
}

/** One failed run with its consensus label (Who&When `mistake_agent`, `mistake_step`). */
export interface AttributionCase {
  caseId: string;
  subset: Subset;
  question: string;
  /** The task's ground-truth answer (`ground_truth`), sent only in the "with ground truth" variant. */
  groundTruth: string | null;
  steps: AttributionStep[];
  reference: { agent: string | null; step: number | null };
  /** The bundle (for the rules detector). */
  bundle: ReplayBundle;
}

/** An OpenAI-compatible chat-completions request body (what is hashed for the cache). */
export interface LlmRequest {
  model: string;
  temperature: 0;
  messages: Array<{ role: "system" | "user"; content: string }>;
}

/** A reply: text and the endpoint's token usage (a cached reply keeps the usage it was answered with). */
export interface LlmReply {
  text: string;
  usage: { prompt: number; completion: number };
  /** true: answered from the cache, no HTTP call. */
  cached: boolean;
}

/** Sends a chat request (the I/O: lib/services/attribution/llm.ts; tests: a scripted server). */
export interface AttributionLlm {
  model: string;
  complete(request: LlmRequest): Promise<LlmReply>;
}

/** The answer of one attributor on one case, with its cost. */
export interface Attribution {
  /** Predicted agent (benchmark identity), null = no answer. */
  agent: string | null;
  /** Predicted 0-based step, null = no answer. */
  step: number | null;
  /** The model's or rule's reason, when it gives one. */
  reason: string | null;
  /** LLM calls made for this case (cached ones included). */
  calls: number;
  /** Of `calls`, answered by the endpoint (not the cache). */
  httpCalls: number;
  /** Tokens of all calls (endpoint usage; cached calls count the usage they were answered with). */
  tokens: { prompt: number; completion: number };
  /** Why the reply could not be read, when it could not (the case then counts as a miss). */
  parseError: string | null;
}

export const ATTRIBUTOR_NAMES = ["random", "last", "rules", "rules+judge", "all-at-once", "step-by-step", "binary-search"] as const;
export type AttributorName = (typeof ATTRIBUTOR_NAMES)[number];

export interface AttributeContext {
  /** Required by attributors with `usesLlm`. */
  llm?: AttributionLlm;
  /** Send the task's ground-truth answer in the prompts (the paper's "with ground truth" setting). */
  withGroundTruth: boolean;
  /** Seed of random choices (Random baseline; Binary Search's coin on an ambiguous reply). */
  seed: number;
}

/** A failure attributor: a plug-in of the study. */
export interface Attributor {
  name: AttributorName;
  /** Calls the LLM (and so has a with/without ground-truth variant). */
  usesLlm: boolean;
  /** Reads the ground truth when asked to (LLM methods of the paper; the judge never does). */
  groundTruthVariants: boolean;
  /** @throws Error when `usesLlm` and `ctx.llm` is absent, or the endpoint fails */
  attribute(c: AttributionCase, ctx: AttributeContext): Promise<Attribution>;
}
