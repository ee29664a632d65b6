/**
 * The calibrated world (issue 13 item 8): a task suite generated from a seed, the scripted seeded
 * stochastic model served as an OpenAI-compatible endpoint (./policy.ts on
 * ../scripted-openai.ts), and the deterministic tool server (./tools.ts). The MAS is
 * mas/calibrated.ts (built-in runner `calibrated`). README.md (this folder) has the truth table.
 *
 * Test support and demo: no real model is involved; every probability is known (`truth`).
 */
import { startScriptedOpenAI } from "../scripted-openai";
import { CATEGORIES, itemOf, referenceAmount, failureAmount, taskPrompt, type CalibratedCategory, type CatalogueItem } from "./catalogue.mjs";
import { calibratedResponder, uniform, type Decision } from "./policy";
import { startCalibratedTools } from "./tools";
import { DEFAULT_TRUTH, type CalibratedTruth } from "./truth";

/** The model name the world lists and the MAS sends (SYMTRACE_MODEL). */
export const CALIBRATED_MODEL = "calibrated-model";

/** Default world seed. */
export const CALIBRATED_SEED = 13;

/** One task of the suite. */
export interface CalibratedTask {
  /** 0-based index in the suite. */
  index: number;
  /** `calibrated-<seed>-<nnn>` */
  id: string;
  prompt: string;
  item: CatalogueItem;
  qty: number;
  /** The trap's Table 10 category (annotation-protocol C1–C4). */
  category: CalibratedCategory;
  /** The reference answer in EUR (qty × the correct unit price). */
  answer: number;
  /** What a run that did not recover answers. */
  failureAnswer: number;
}

/**
 * The task suite of a world seed: `count` tasks (default 48), categories C1–C4 in turn, items and
 * quantities (1–24) drawn from the seed (distinct items). Pure and deterministic.
 * @throws Error when count is not an integer in 1..900
 */
export function generateSuite(seed: number = CALIBRATED_SEED, count = 48): CalibratedTask[] {
  if (!Number.isInteger(count) || count < 1 || count > 900) throw new Error(`calibrated suite: count must be an integer in 1..900, got ${count}`);
  const used = new Set<number>();
  const out: CalibratedTask[] = [];
  for (let i = 0; i < count; i++) {
    const r = i % 4;
    let n = 0;
    for (let t = 0; ; t++) {
      n = 100 + 4 * Math.floor(uniform(seed, "suite-item", i, t) * 225) + r;
      if (!used.has(n)) break;
    }
    used.add(n);
    const qty = 1 + Math.floor(uniform(seed, "suite-qty", i) * 24);
    const item = itemOf(n);
    out.push({ index: i, id: `calibrated-${seed}-${String(i + 1).padStart(3, "0")}`, prompt: taskPrompt(i, n, qty), item, qty, category: CATEGORIES[r], answer: referenceAmount(item, qty), failureAnswer: failureAmount(item, qty) });
  }
  return out;
}

export interface CalibratedWorldOptions {
  /** World seed (default CALIBRATED_SEED): the suite and every draw. */
  seed?: number;
  /** Salt of the draws (default "live"); recording uses "record" so an experiment's fresh runs do not repeat the recorded samples. */
  session?: string;
  /** Probabilities (default DEFAULT_TRUTH). */
  truth?: CalibratedTruth;
  /** Model endpoint port on 127.0.0.1 (default 0 = free). */
  port?: number;
  /** Tool server port (default 0 = free). */
  toolPort?: number;
  /** Suite size (default 48). */
  tasks?: number;
}

/** A running world. */
export interface CalibratedWorld {
  seed: number;
  /** OpenAI-compatible base URL ending in /v1 (OPENAI_BASE_URL / --upstream). */
  upstream: string;
  /** Tool server base URL (SYMTRACE_TOOL_URL / --tool-upstream). */
  toolUpstream: string;
  model: string;
  truth: CalibratedTruth;
  suite: CalibratedTask[];
  /** Every random decision the model took, in order. */
  decisions: Decision[];
  /** Chat-completions requests served. */
  llmCalls(): number;
  toolCalls(): number;
  stop(): Promise<void>;
}

/**
 * Start the model endpoint and the tool server.
 * @throws Error when a port is in use (naming it)
 */
export async function startCalibratedWorld(o: CalibratedWorldOptions = {}): Promise<CalibratedWorld> {
  const seed = o.seed ?? CALIBRATED_SEED;
  const truth = o.truth ?? DEFAULT_TRUTH;
  const decisions: Decision[] = [];
  const respond = calibratedResponder({ seed, session: o.session ?? "live", truth, onDecision: (d) => decisions.push(d) });
  const llm = await startScriptedOpenAI({ respond, models: [CALIBRATED_MODEL], port: o.port ?? 0, closeConnections: true }).catch((e: unknown) => {
    throw new Error(`calibrated world: the model endpoint could not listen on 127.0.0.1:${o.port ?? 0}: ${(e as Error).message}`);
  });
  let tools;
  try {
    tools = await startCalibratedTools(o.toolPort ?? 0);
  } catch (e) {
    await llm.close();
    throw new Error(`calibrated world: the tool server could not listen on 127.0.0.1:${o.toolPort ?? 0}: ${(e as Error).message}`);
  }
  return {
    seed,
    upstream: llm.url,
    toolUpstream: tools.url,
    model: CALIBRATED_MODEL,
    truth,
    suite: generateSuite(seed, o.tasks ?? 48),
    decisions,
    llmCalls: () => llm.requests.length,
    toolCalls: () => tools.calls(),
    stop: async () => {
      await llm.close();
      await tools.close();
    },
  };
}
