/**
 * A **scripted** attribution model for tests and the README's demonstration run (never a real
 * model): All-at-Once names step 1 and its author; Step-by-Step answers Yes at step 2 (No before);
 * Binary Search always answers "upper half" (so it ends at step 0); the symptom judge rejects
 * every candidate category. Its figures measure the benchmark's plumbing, not any model.
 *
 *   node --import tsx lib/testing/scripted-attribution.ts [port]   prints the base URL, serves until killed
 */
import { messageText, startScriptedOpenAI, type ChatRequest, type ScriptedOpenAI } from "./scripted-openai";

/** The reply to one chat request (see the module comment). */
export function scriptedAttributionReply(req: Pick<ChatRequest, "messages">): { content: string } {
  const system = messageText(req.messages[0]);
  const user = messageText(req.messages[1]);
  if (system.startsWith("You analyse")) return { content: `Agent Name: ${/^Step 1 - (.+?): /m.exec(user)?.[1] ?? "unknown"}\nStep Number: 1\nReason: scripted` };
  if (system.startsWith("You judge")) return { content: user.includes("The current step is step 2,") ? "1. Yes\n2. Reason: scripted" : "1. No\n2. Reason: scripted" };
  if (system.startsWith("You locate")) return { content: "upper half" };
  return { content: '{"confirmed": [], "confidence": 0, "rationale": "scripted"}' };
}

/** Start the scripted attribution server (model id "scripted-model"). */
export function startScriptedAttribution(port = 0): Promise<ScriptedOpenAI> {
  return startScriptedOpenAI({ respond: scriptedAttributionReply, port, models: ["scripted-model"] });
}

if (process.argv[1] && /scripted-attribution\.ts$/.test(process.argv[1])) {
  const s = await startScriptedAttribution(Number(process.argv[2] ?? 0));
  process.stdout.write(`${s.url}\n`);
}
