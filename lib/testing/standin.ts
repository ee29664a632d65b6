/**
 * The scripted stand-in of the demo: a local OpenAI-compatible endpoint that answers ANY chat
 * (no model is involved) and the reference tool server, started beside the app by
 * scripts/replay-stack.ts (`npm run demo`, the e2e server), so "Replay from here" works out of
 * the box. Runs against it are labelled as scripted (SYMTRACE_REPLAY_SCRIPTED=1 → the run's
 * endpoint carries `scripted: true`, the UI shows "scripted stand-in model").
 *
 * - {@link standinRespond}: MARS selector and judge calls answered like a tool-calling model (a
 *   tool call; a JSON verdict), labelled scripted; the reference MAS's scripted policy (mas/scripted-policy.ts) for its
 *   agents; for any other conversation (imported transcripts: Who&When, MAD, …) one deterministic
 *   text answer that ends the run with a final answer, instead of an HTTP 500.
 * - {@link demoReplayEnv}: the replay settings the starter adds; every setting the user already
 *   set wins, and only the parts the user did not replace are started.
 * - {@link startStandinStack}: start those parts on fixed ports.
 */
import { respond } from "../../mas/scripted-policy";
import { startToolServer } from "../../mas/tools/server";
import { scriptedMarsReply } from "./scripted-mars";
import { messageText, startScriptedOpenAI, type ChatRequest, type ScriptedReply } from "./scripted-openai";

/**
 * The model name the stand-in lists and the demo sets as SYMTRACE_REPLAY_MODEL: the reference
 * MAS's own default (mas/lib/main.ts), so a native replay of a case recorded against the stand-in
 * sends byte-identical requests (another model name would diverge at record 0).
 */
export const STANDIN_MODEL = "scripted-model";

/** The first line of every generic stand-in answer (how tests and users recognise it). */
export const STANDIN_PREFIX = "Scripted stand-in reply (no model was called; deterministic demo answer).";

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, " ").trim();
  const cps = Array.from(t);
  return cps.length > max ? `${cps.slice(0, max - 1).join("")}…` : t;
}

/**
 * The generic answer for a conversation that is not the reference MAS's: deterministic in the
 * request (the speaker named by a transcript continuation's system prompt, "as <Agent>", and the
 * last user message, shortened to 160 characters); plain text, `finish_reason` "stop", with a
 * `FINAL ANSWER:` line so the run ends with a final answer.
 */
export function genericStandinReply(req: ChatRequest): ScriptedReply {
  const sys = messageText(req.messages.find((m) => m.role === "system" || m.role === "developer"));
  const speaker = /\bas ([^,.\n]{1,60}?)(?:,|\.|\n|$)/.exec(sys)?.[1]?.trim() ?? null;
  const users = req.messages.filter((m) => m.role === "user");
  const last = oneLine(messageText(users[users.length - 1]), 160);
  return {
    content: [
      `${speaker ? `[${speaker}] ` : ""}${STANDIN_PREFIX}`,
      last ? `Last instruction received: "${last}".` : "No instruction was given.",
      "FINAL ANSWER: (scripted stand-in; configure SYMTRACE_REPLAY_UPSTREAM for a real model's answer)",
    ].join("\n"),
  };
}

/**
 * The stand-in's `respond` for startScriptedOpenAI: a MARS selector or judge call (repair search)
 * gets the scripted MARS policy's tool call or verdict (./scripted-mars.ts `scriptedMarsReply`);
 * the reference MAS's scripted policy when the system prompt names one of its agents ("You are [the] Orchestrator|WebSurfer|…"), else
 * {@link genericStandinReply}. Never throws for a well-formed request.
 */
export function standinRespond(req: ChatRequest, n: number): ScriptedReply {
  // A repair search's selector (one tool call) or judge (a JSON verdict): the scripted MARS policy.
  const mars = scriptedMarsReply(req);
  if (mars) return mars;
  try {
    return respond(req, n);
  } catch {
    return genericStandinReply(req);
  }
}

/** Where the starter puts the stand-in: fixed ports on 127.0.0.1, and the repo root (for the evaluator path). */
export interface StandinPorts {
  llmPort: number;
  toolPort: number;
  /** Absolute path of the repo (scripts/hilltop-evaluator.mjs lives under it). */
  root: string;
}

/** What {@link demoReplayEnv} decides: the variables to add, and which servers to start. */
export interface DemoReplayEnv {
  /** Variables to add to the app's environment (never one the user set). */
  set: Record<string, string>;
  /** Start the scripted model (the user gave no SYMTRACE_REPLAY_UPSTREAM). */
  startLlm: boolean;
  /** Start the reference tool server (the user gave no SYMTRACE_REPLAY_TOOL_UPSTREAM). */
  startTools: boolean;
}

const given = (env: Record<string, string | undefined>, k: string) => typeof env[k] === "string" && env[k]!.trim() !== "";

/** A shell word for `s` (single-quoted when it holds anything but safe characters). */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The replay settings the demo / e2e starter adds to the app's environment. User settings win,
 * one by one (an empty value counts as unset):
 * - no SYMTRACE_REPLAY_UPSTREAM → the scripted model on `http://127.0.0.1:<llmPort>/v1`, with
 *   SYMTRACE_REPLAY_SCRIPTED=1 and SYMTRACE_REPLAY_MODEL={@link STANDIN_MODEL} (each unless set);
 *   a user upstream is never labelled scripted;
 * - no SYMTRACE_REPLAY_TOOL_UPSTREAM → the reference tool server on `http://127.0.0.1:<toolPort>`;
 * - no SYMTRACE_REPLAY_EVALUATOR → `node <root>/scripts/hilltop-evaluator.mjs` (verdicts for the
 *   reference MAS's task, "unknown" for any other task).
 * Pure: reads only `env`.
 */
export function demoReplayEnv(env: Record<string, string | undefined>, o: StandinPorts): DemoReplayEnv {
  const set: Record<string, string> = {};
  const startLlm = !given(env, "SYMTRACE_REPLAY_UPSTREAM");
  if (startLlm) {
    set.SYMTRACE_REPLAY_UPSTREAM = `http://127.0.0.1:${o.llmPort}/v1`;
    if (!given(env, "SYMTRACE_REPLAY_SCRIPTED")) set.SYMTRACE_REPLAY_SCRIPTED = "1";
    if (!given(env, "SYMTRACE_REPLAY_MODEL")) set.SYMTRACE_REPLAY_MODEL = STANDIN_MODEL;
  }
  const startTools = !given(env, "SYMTRACE_REPLAY_TOOL_UPSTREAM");
  if (startTools) set.SYMTRACE_REPLAY_TOOL_UPSTREAM = `http://127.0.0.1:${o.toolPort}`;
  if (!given(env, "SYMTRACE_REPLAY_EVALUATOR")) set.SYMTRACE_REPLAY_EVALUATOR = `node ${shellWord(`${o.root.replace(/\/+$/, "")}/scripts/hilltop-evaluator.mjs`)}`;
  return { set, startLlm, startTools };
}

/** A started stand-in: the URLs of what runs (null = not started) and `close()`. */
export interface StandinStack {
  llmUrl: string | null;
  toolUrl: string | null;
  close(): Promise<void>;
}

/**
 * Start the scripted model (answers any chat, {@link standinRespond}) and/or the reference tool
 * server on 127.0.0.1 at the given ports (0 = a free port).
 * @throws Error naming the port and the variable to change when a port is in use
 */
export async function startStandinStack(o: { llmPort: number; toolPort: number; startLlm?: boolean; startTools?: boolean }): Promise<StandinStack> {
  const inUse = (what: string, port: number, e: unknown) =>
    new Error(`${what} could not listen on 127.0.0.1:${port} (${e instanceof Error ? e.message : String(e)}): free the port or choose another (SYMTRACE_DEMO_LLM_PORT / SYMTRACE_DEMO_TOOL_PORT, or E2E_LLM_PORT / E2E_TOOL_PORT)`);
  const llm =
    o.startLlm === false
      ? null
      : await startScriptedOpenAI({ respond: standinRespond, models: [STANDIN_MODEL], port: o.llmPort }).catch((e: unknown) => {
          throw inUse("the scripted stand-in model", o.llmPort, e);
        });
  let tools = null;
  try {
    tools = o.startTools === false ? null : await startToolServer({ port: o.toolPort || undefined });
  } catch (e) {
    await llm?.close();
    throw inUse("the reference tool server", o.toolPort, e);
  }
  return {
    llmUrl: llm?.url ?? null,
    toolUrl: tools?.url ?? null,
    close: async () => {
      await llm?.close();
      await tools?.close();
    },
  };
}
