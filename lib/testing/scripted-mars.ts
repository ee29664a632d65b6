/**
 * A scripted MARS action selector + LLM judge (no real model): a fixed policy that answers the way
 * a tool-calling model does, used by tests (one LOCAL OpenAI-compatible server,
 * {@link startScriptedMarsControl}) and by the demo's stand-in model and the calibrated world's
 * model ({@link scriptedMarsReply}, so a repair search started from the demo app, or against the
 * calibrated world as the README shows, runs end to end). Its replies say they are scripted.
 *
 * - A selector request (one offering the tools `rollback`, `guided_repair`, `continuation` of
 *   lib/repair-search/prompts.ts) → one tool call: a finished trajectory ("(the run has ended")
 *   → `rollback` to its 2nd `[checkpoint <id>]` (the only one when there is one) with the
 *   policy's hint; stored guidance → `guided_repair {guidance: ""}` (the core fills in the stored
 *   guidance); else `continuation`.
 * - A judge request (JUDGE_SYSTEM_PROMPT as the system message; for the test server: any request
 *   without tools) → one JSON verdict: 0.6 / "FM 3.2" for an ended run (a `[final answer]` line),
 *   else 0.5 / "None".
 */
import { JUDGE_SYSTEM_PROMPT } from "../repair-search/prompts";
import { messageText, startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI, type ScriptedReply } from "./scripted-openai";

/** The rollback hint of the tests' selector (the calibrated world's lookup trap). */
export const LOOKUP_HINT = "Look the item up with the lookup tool and use the tool's unit price.";

/** The rollback hint of the demo stand-in's selector (any task). */
export const STANDIN_SELECTOR_HINT = "Scripted stand-in selector (no model was called): re-check this step against the tool output before going on, and use only values a tool returned.";

const SELECTOR_TOOL_NAMES = ["rollback", "guided_repair", "continuation"];

/** The request is a MARS selector call: it offers exactly the selector's three tools. */
export function isSelectorRequest(req: ChatRequest): boolean {
  const names = new Set((req.tools ?? []).map((t) => t.function?.name));
  return SELECTOR_TOOL_NAMES.every((n) => names.has(n));
}

/** The request is a MARS judge call: its system message is the judge's prompt. */
export function isJudgeRequest(req: ChatRequest): boolean {
  const sys = req.messages.find((m) => m.role === "system" || m.role === "developer");
  return !req.tools?.length && messageText(sys) === JUDGE_SYSTEM_PROMPT;
}

/** The selector policy's one tool call for a selector request (see the module doc). */
export function scriptedSelectorReply(req: ChatRequest, hint: string = LOOKUP_HINT): ScriptedReply {
  const user = messageText(req.messages.at(-1));
  const cps = [...user.matchAll(/\[checkpoint ([^\]]+)\]/g)].map((m) => m[1]);
  if (user.includes("(the run has ended") && cps.length) return { toolCalls: [{ name: "rollback", arguments: { checkpoint: cps[Math.min(1, cps.length - 1)], guidance: hint } }] };
  if (!/\[Stored Fix Guidance\] none/.test(user)) return { toolCalls: [{ name: "guided_repair", arguments: { guidance: "" } }] };
  return { toolCalls: [{ name: "continuation", arguments: {} }] };
}

/** The judge policy's JSON verdict (see the module doc); `label` prefixes the reasoning. */
export function scriptedJudgeReply(req: ChatRequest, label = ""): ScriptedReply {
  const ended = messageText(req.messages.at(-1)).includes("[final answer]");
  const reasoning = `${label}${ended ? "answer not verified" : "in progress"}`;
  return { content: JSON.stringify({ found_solution: false, detected_failure_mode: ended ? "FM 3.2" : "None", reasoning, score: ended ? 0.6 : 0.5 }) };
}

/**
 * The scripted selector's or judge's reply when `req` is a MARS selector or judge call, else null
 * (the caller answers it as it would any other chat). Used by the demo stand-in
 * (lib/testing/standin.ts) and the calibrated world's model; the verdict's reasoning and the
 * rollback guidance say "scripted stand-in".
 */
export function scriptedMarsReply(req: ChatRequest): ScriptedReply | null {
  if (isSelectorRequest(req)) return scriptedSelectorReply(req, STANDIN_SELECTOR_HINT);
  if (isJudgeRequest(req)) return scriptedJudgeReply(req, "Scripted stand-in judge (no model was called): ");
  return null;
}

/** Start the tests' server on a free 127.0.0.1 port (or `port`): selector calls by the policy, every other call judged. */
export function startScriptedMarsControl(port = 0): Promise<ScriptedOpenAI> {
  return startScriptedOpenAI({
    port,
    respond(req) {
      return req.tools?.length ? scriptedSelectorReply(req) : scriptedJudgeReply(req);
    },
  });
}
