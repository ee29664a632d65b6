/**
 * The MARS search environment over the replay core (issue 15; seeds/002 Algorithm 1 with every
 * tree node a replay bundle). Implements lib/repair-search's {@link SearchEnvironment}:
 *
 * - **State of a node** (`BuiltState.stateRef`, relative to the search's out dir): a bundle file
 *   (`n3.bundle.json`), or for a rollback child `<parent's file>#<checkpoint node id>` — rollback
 *   executes nothing; the child is its parent's bundle cut right before that checkpoint (its
 *   guidance is the tree node's `storedGuidance`).
 * - **guided_repair / continuation from a cut node**: a selective replay of the bundle to the cut
 *   checkpoint (fail-closed, strict matching of the prefix) with Δ = the guidance ("" for a
 *   continuation) and `maxLiveLlm = L`.
 * - **from an uncut (partial) node**: a "continue" replay (`continueAtEnd`) verifying every record
 *   of the bundle, then L live LLM steps (+ the guidance on the first one for guided_repair).
 * - `finished` = the MAS ended (the rollout was not stopped at the limit); `checkpoints` = the
 *   bundle's LLM-boundary node ids (llm_call nodes) in observed order, all of them verified or
 *   recorded by the replay that built the bundle; a cut node has those before and at its cut.
 * - **Selector**: one chat-completions call (openai SDK, OpenAI-compatible upstream, T = 0.7,
 *   `SELECTOR_TOOLS`, tool_choice "required") shown the trajectory with `[checkpoint <id>]` marks.
 * - **Judge**: one chat call (T = 0.2, JUDGE_SYSTEM_PROMPT) or a judge command with the evaluator's
 *   environment contract (SYMTRACE_TASK, SYMTRACE_FINAL, SYMTRACE_BUNDLE; for a cut node the bundle
 *   file holds the trajectory before the cut) printing `{score, failureMode, feedback}`.
 * - **Usage**: selector and judge calls/tokens from the responses; MAS calls = live LLM calls of the
 *   rollout, tokens = their responses' usage.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { validateBundle, type ReplayBundle } from "../../bundle";
import { finalAnswer } from "../../replay";
import {
  JUDGE_SYSTEM_PROMPT,
  JUDGE_TEMPERATURE,
  SELECTOR_SYSTEM_PROMPT,
  SELECTOR_TEMPERATURE,
  SELECTOR_TOOLS,
  judgeUserMessage,
  parseJudgeReply,
  parseSelectorReply,
  selectorUserMessage,
  type BuiltState,
  type JudgeVerdict,
  type RepairAction,
  type SearchEnvironment,
  type SearchSettings,
  type SelectorInput,
  type TreeNode,
  type Usage,
} from "../../repair-search";
import { chatOnce, countLive } from "../experiments/llm";
import { renderTrajectory } from "../experiments/reproduction";
import { evaluateReplay } from "../replay-evaluate";
import { executeReplay } from "../replay";
import type { RegisteredRunner } from "../runners";

/** Where the judge's verdict comes from. */
export type SearchJudgeConfig =
  | { kind: "llm"; upstream: string; model: string; apiKey?: string; seed?: string | number | null }
  | { kind: "command"; command: string };

/** Configuration of a search environment. */
export interface ReplaySearchEnvOptions {
  /** Directory of the node bundles (created); stateRefs are relative to it. */
  outDir: string;
  /** Prefix of the node bundles' ids (`<searchId>/<node id>`). */
  searchId: string;
  /** The ORIGINAL task text (judge and evaluator see it). */
  task: string;
  /** Live OpenAI-compatible base URL (…/v1) of the MAS, and its tool server. */
  upstream: string;
  toolUpstream: string | null;
  /** A trusted MAS command, or the bundle's registered runner (one of them). */
  command?: string[] | null;
  runner?: RegisteredRunner | null;
  cwd?: string;
  env?: Record<string, string>;
  model?: string | null;
  /** The action selector's endpoint and model. */
  selector: { upstream: string; model: string; apiKey?: string; seed?: string | number | null };
  /**
   * When set, every rollout's MAS gets SYMTRACE_ATTEMPT_SEED = `<attemptSeed>-<node id>` (the
   * calibrated world keys its draws on it; a different value per node keeps rollouts independent).
   */
  attemptSeed?: string | number | null;
  judge: SearchJudgeConfig;
  /** Per replay / call limit in ms (default 600000 for a replay, 120000 for a chat call). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A node's state decoded from its stateRef. */
export interface NodeStateRef {
  /** Bundle file name relative to the out dir. */
  file: string;
  /** Checkpoint node id the trajectory is cut before (rollback nodes), or null. */
  cut: string | null;
}

/** Decode `file` / `file#checkpoint`. */
export function parseStateRef(ref: string): NodeStateRef {
  const i = ref.indexOf("#");
  return i < 0 ? { file: ref, cut: null } : { file: ref.slice(0, i), cut: ref.slice(i + 1) };
}

/** LLM-boundary node ids of a bundle in observed order (its rollback checkpoints). */
export function checkpointsOf(b: ReplayBundle): string[] {
  return b.records.filter((r) => r.boundary === "llm").map((r) => r.nodeId);
}

/** The trajectory before `cut` (the bundle itself when cut is null): order and nodes before that node. */
export function trajectoryView(b: ReplayBundle, cut: string | null): ReplayBundle {
  if (cut === null) return b;
  const idx = b.order.indexOf(cut);
  if (idx < 0) throw new Error(`checkpoint ${cut} is not a node of bundle ${b.id}`);
  const keep = new Set(b.order.slice(0, idx));
  return {
    ...b,
    order: b.order.slice(0, idx),
    graph: { ...b.graph, nodes: b.graph.nodes.filter((n) => keep.has(n.id)), edges: b.graph.edges.filter((e) => keep.has(e.from) && keep.has(e.to)) },
    records: b.records.filter((r) => keep.has(r.nodeId)),
  };
}

/**
 * The trajectory as the selector sees it: `renderTrajectory` lines, every checkpoint id shown as
 * `[checkpoint <id>]`. A checkpoint rendered as a line of its own (imported transcripts) is marked
 * in place; one that renderTrajectory leaves out as call metadata (llm_call nodes of a native
 * recording) gets its own line `[checkpoint <id>] LLM call (<agent>): <what it produced next>`,
 * right before the first rendered node that follows it in observed order (at the end when none
 * does). Checkpoints inside a part renderTrajectory elides (very long runs) stay unmarked.
 */
export function renderWithCheckpoints(b: ReplayBundle, checkpoints: readonly string[]): string {
  const set = new Set(checkpoints);
  const lines = renderTrajectory(b).split("\n");
  const lineOf = new Map<string, number>();
  lines.forEach((line, i) => {
    const m = /^\[([^\]]+)\]/.exec(line);
    if (m) lineOf.set(m[1], i);
  });
  const byId = new Map(b.graph.nodes.map((n) => [n.id, n]));
  const before = new Map<number, string[]>();
  const atEnd: string[] = [];
  for (const id of b.order) {
    if (!set.has(id) || lineOf.has(id)) continue;
    const pos = b.order.indexOf(id);
    const next = b.order.slice(pos + 1).find((x) => lineOf.has(x));
    const agent = byId.get(id)?.agent;
    const mark = `[checkpoint ${id}] LLM call${agent ? ` (${agent})` : ""}: roll back here to redo this call`;
    if (next === undefined) atEnd.push(mark);
    else {
      const at = lineOf.get(next)!;
      // Inside the elided middle of a long run there is no line to anchor on: leave it unmarked.
      if (at > 0 && lines[at - 1].startsWith("… ") && b.order.indexOf(next) - pos > 1 && lines.length > 1) {
        const prev = b.order.slice(0, pos).reverse().find((x) => lineOf.has(x));
        if (prev !== undefined && lineOf.get(prev)! < at - 1) continue;
      }
      before.set(at, [...(before.get(at) ?? []), mark]);
    }
  }
  const out: string[] = [];
  lines.forEach((line, i) => {
    out.push(...(before.get(i) ?? []));
    out.push(line.replace(/^\[([^\]]+)\]/, (m, id: string) => (set.has(id) ? `[checkpoint ${id}]` : m)));
  });
  return [...out, ...atEnd].join("\n");
}

/** The judge feedback shown to the selector. */
export function feedbackText(v: JudgeVerdict | null): string {
  if (!v) return "none yet (this is the original failed run; it has not been evaluated)";
  return `Score: ${v.score}\nFailure mode: ${v.failureMode}\nFound solution: ${v.foundSolution}\nReasoning: ${v.feedback}`;
}

/** OpenAI's `seed` request field (an integer) from a CLI seed: numbers as they are, other text hashed. */
function seedOf(seed: string | number | null | undefined): { seed?: number } {
  if (seed === null || seed === undefined || seed === "") return {};
  const n = Number(seed);
  if (Number.isSafeInteger(n)) return { seed: n };
  let h = 0;
  for (const ch of String(seed)) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return { seed: Math.abs(h) };
}

const ZERO: Usage = { calls: 0, tokens: 0 };

/** A SearchEnvironment over the replay core, plus helpers the CLI and the experiment method use. */
export interface ReplaySearchEnvironment extends SearchEnvironment {
  /** Store the failed source bundle as the root (`n0.bundle.json`) and return its state. */
  rootState(source: ReplayBundle): BuiltState;
  /** The bundle of a stateRef (cached; read from the out dir). */
  bundleOf(stateRef: string): ReplayBundle;
  /** Absolute path of a stateRef's bundle file. */
  fileOf(stateRef: string): string;
}

/**
 * Create the environment (module doc). Throws nothing itself; `apply` throws when a replay does not
 * complete (diverged / failed / cancelled, the message says which and where) and the core turns that
 * into an error child with r = 0.
 */
export function createReplaySearchEnvironment(o: ReplaySearchEnvOptions): ReplaySearchEnvironment {
  mkdirSync(o.outDir, { recursive: true });
  const cache = new Map<string, ReplayBundle>();
  let counter = 0;
  const client = new OpenAI({ baseURL: o.selector.upstream, apiKey: o.selector.apiKey ?? process.env.OPENAI_API_KEY ?? "symtrace-no-key", timeout: o.timeoutMs ?? 120_000, maxRetries: 0 });

  const fileOf = (ref: string) => path.join(o.outDir, parseStateRef(ref).file);
  const bundleOf = (ref: string): ReplayBundle => {
    const { file } = parseStateRef(ref);
    let b = cache.get(file);
    if (!b) {
      const full = path.join(o.outDir, file);
      const v = validateBundle(JSON.parse(readFileSync(full, "utf8")));
      if (!v.ok) throw new Error(`${full}: not a valid bundle: ${v.issues.slice(0, 2).map((i) => `${i.path} ${i.message}`).join("; ")}`);
      b = v.bundle;
      cache.set(file, b);
    }
    return b;
  };
  const store = (file: string, b: ReplayBundle) => {
    writeFileSync(path.join(o.outDir, file), JSON.stringify(b, null, 2));
    cache.set(file, b);
  };
  const stateOf = (parent: TreeNode): NodeStateRef => {
    if (!parent.state) throw new Error(`node ${parent.id} has no state`);
    return parseStateRef(parent.state.stateRef);
  };

  return {
    fileOf,
    bundleOf,
    rootState(source) {
      store("n0.bundle.json", source);
      const stopped = (source.parent as { rollout?: { stoppedAtLimit?: boolean } } | null | undefined)?.rollout?.stoppedAtLimit === true;
      return { stateRef: "n0.bundle.json", checkpoints: checkpointsOf(source), finished: !stopped, liveSteps: 0, usage: { ...ZERO } };
    },

    async selectAction(input: SelectorInput) {
      const st = stateOf(input.node);
      const view = trajectoryView(bundleOf(input.node.state!.stateRef), st.cut);
      const user = selectorUserMessage(renderWithCheckpoints(view, input.checkpoints), feedbackText(input.verdict), input.storedGuidance, input.node.state!.finished);
      const res = await client.chat.completions.create(
        {
          model: o.selector.model,
          temperature: SELECTOR_TEMPERATURE,
          messages: [
            { role: "system", content: SELECTOR_SYSTEM_PROMPT },
            { role: "user", content: user },
          ],
          tools: SELECTOR_TOOLS as unknown as OpenAI.Chat.Completions.ChatCompletionTool[],
          tool_choice: "required",
          ...seedOf(o.selector.seed),
        },
        { signal: o.signal },
      );
      const calls = res.choices?.[0]?.message?.tool_calls ?? [];
      const action = parseSelectorReply(calls.map((c) => ("function" in c ? { function: { name: c.function.name, arguments: c.function.arguments } } : {})));
      return { action, usage: { calls: 1, tokens: res.usage?.total_tokens ?? 0 } };
    },

    async apply(parent: TreeNode, action: RepairAction, settings: SearchSettings): Promise<BuiltState> {
      const st = stateOf(parent);
      const parentCheckpoints = parent.state!.checkpoints;
      if (action.kind === "rollback") {
        const i = parentCheckpoints.indexOf(action.checkpoint);
        if (i < 0) throw new Error(`rollback checkpoint ${action.checkpoint} is not a checkpoint of node ${parent.id}`);
        return { stateRef: `${st.file}#${action.checkpoint}`, checkpoints: parentCheckpoints.slice(0, i + 1), finished: false, liveSteps: 0, usage: { ...ZERO } };
      }
      const source = bundleOf(parent.state!.stateRef);
      const guidance = action.kind === "guided_repair" ? action.guidance : "";
      const childId = parent.children.at(-1) ?? `x${++counter}`;
      const result = await executeReplay(
        {
          source,
          targetNodeId: st.cut ?? "",
          continueAtEnd: st.cut === null,
          guidance,
          upstream: o.upstream,
          toolUpstream: o.toolUpstream,
          model: o.model ?? null,
          command: o.command ?? null,
          runner: o.runner ?? null,
          cwd: o.cwd,
          env: o.attemptSeed === null || o.attemptSeed === undefined ? o.env : { ...o.env, SYMTRACE_ATTEMPT_SEED: `${o.attemptSeed}-${childId}` },
          maxLiveLlm: settings.l,
          newBundleId: `${o.searchId}/${childId}`,
          timeoutMs: o.timeoutMs,
        },
        { signal: o.signal },
      );
      if (result.status !== "completed") {
        const what =
          result.status === "diverged"
            ? `diverged at record ${result.report.seq} after ${result.verified} verified`
            : result.status === "failed"
              ? `failed: ${result.error}`
              : `${result.status} after ${result.verified} verified`;
        throw new Error(`replay of ${st.file}${st.cut ? ` to ${st.cut}` : " (continue)"} ${what}`);
      }
      const file = `${childId}.bundle.json`;
      store(file, result.bundle);
      const live = countLive(result.bundle, result.bundle.records.length - result.verified);
      return {
        stateRef: file,
        checkpoints: checkpointsOf(result.bundle),
        finished: !(result.rollout?.stoppedAtLimit ?? false),
        liveSteps: result.rollout?.liveLlm ?? 0,
        usage: { calls: result.rollout?.liveLlm ?? 0, tokens: live.tokens.total },
      };
    },

    async judge(state: BuiltState) {
      const st = parseStateRef(state.stateRef);
      const view = trajectoryView(bundleOf(state.stateRef), st.cut);
      if (o.judge.kind === "command") {
        const out = await evaluateReplay({ ...view, task: { ...view.task, prompt: o.task } }, o.judge.command, { timeoutMs: o.timeoutMs ?? 120_000 });
        if (!out || out.details === null || out.details === undefined) throw new Error(`judge command printed no verdict (exit ${out?.passed === true ? 0 : "≠ 0"})`);
        const text = typeof out.details === "string" ? out.details : JSON.stringify(out.details);
        return { verdict: parseJudgeReply(text), usage: { calls: 1, tokens: 0 } };
      }
      const fin = st.cut === null ? finalAnswer(view) : null;
      const trajectory = renderTrajectory(view) + (fin ? `\n[final answer] ${fin.text}` : "\n[the run has not ended yet]");
      // `seed` is sent as is (chatOnce passes the body through); typed apart to keep chatOnce's body narrow.
      const body = {
        model: o.judge.model,
        temperature: JUDGE_TEMPERATURE,
        ...seedOf(o.judge.seed),
        messages: [
          { role: "system" as const, content: JUDGE_SYSTEM_PROMPT },
          { role: "user" as const, content: judgeUserMessage(o.task, trajectory) },
        ],
      };
      const r = await chatOnce(o.judge.upstream, body, { signal: o.signal, timeoutMs: o.timeoutMs ?? 120_000, apiKey: o.judge.apiKey });
      return { verdict: parseJudgeReply(r.text), usage: { calls: 1, tokens: r.tokens.total } };
    },
  };
}
