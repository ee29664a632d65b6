/**
 * A scripted MARS action selector + LLM judge for tests: one LOCAL OpenAI-compatible server
 * (./scripted-openai.ts; no real model) that answers a selector request (one with tools) by a
 * fixed policy — a finished trajectory ("(the run has ended") → `rollback` to its 2nd
 * `[checkpoint <id>]` with a lookup hint; stored guidance → `guided_repair {guidance: ""}` (the
 * core fills in the stored guidance); else `continuation` — and a judge request (no tools) with a
 * JSON verdict: 0.6 / "FM 3.2" for an ended run (a `[final answer]` line), else 0.5 / "None".
 */
import { messageText, startScriptedOpenAI, type ScriptedOpenAI } from "./scripted-openai";

/** Start the server on a free 127.0.0.1 port (or `port`). */
export function startScriptedMarsControl(port = 0): Promise<ScriptedOpenAI> {
  return startScriptedOpenAI({
    port,
    respond(req) {
      const user = messageText(req.messages.at(-1));
      if (req.tools?.length) {
        const cps = [...user.matchAll(/\[checkpoint ([^\]]+)\]/g)].map((m) => m[1]);
        if (user.includes("(the run has ended")) return { toolCalls: [{ name: "rollback", arguments: { checkpoint: cps[Math.min(1, cps.length - 1)], guidance: "Look the item up with the lookup tool and use the tool's unit price." } }] };
        if (!/\[Stored Fix Guidance\] none/.test(user)) return { toolCalls: [{ name: "guided_repair", arguments: { guidance: "" } }] };
        return { toolCalls: [{ name: "continuation", arguments: {} }] };
      }
      const ended = user.includes("[final answer]");
      return { content: JSON.stringify({ found_solution: false, detected_failure_mode: ended ? "FM 3.2" : "None", reasoning: ended ? "answer not verified" : "in progress", score: ended ? 0.6 : 0.5 }) };
    },
  });
}
