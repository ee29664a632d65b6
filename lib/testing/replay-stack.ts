/**
 * Test support shared by the replay tests (cli/replay.test.ts, lib/services/replay-exec.test.ts):
 * the scripted local OpenAI-compatible server driven by mas/scripted-policy.ts, the reference
 * tool server, and a temp folder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { respond } from "../../mas/scripted-policy";
import { startToolServer, type ToolServer } from "../../mas/tools/server";
import { startScriptedOpenAI, type ScriptedOpenAI } from "./scripted-openai";

export interface ReplayStack {
  dir: string;
  llm: ScriptedOpenAI;
  tools: ToolServer;
}

/** Start the stack (quiet MAS output). @param prefix temp folder name prefix */
export async function startReplayStack(prefix: string): Promise<ReplayStack> {
  process.env.SYMTRACE_QUIET = "1";
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, llm: await startScriptedOpenAI({ respond }), tools: await startToolServer() };
}

/** Stop what startReplayStack started and remove its folder. */
export async function stopReplayStack(s: Partial<ReplayStack>): Promise<void> {
  await s.llm?.close();
  await s.tools?.close();
  if (s.dir) rmSync(s.dir, { recursive: true, force: true });
}
