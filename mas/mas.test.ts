import { execFile, type ExecFileException } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { messageText, startScriptedOpenAI, type ChatRequest } from "../lib/testing/scripted-openai";
import { startToolServer, type ToolCallRecord } from "./tools/server";
import { DEMO_FINAL, DEMO_TASK, respond } from "./scripted-policy";

const ROOT = path.resolve(import.meta.dirname, "..");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  requests: ChatRequest[];
  rawRequests: string[];
  calls: ToolCallRecord[];
}

/** Start the scripted LLM + tool server, run `mas/<name>.ts` as a child process, stop both. */
async function runMas(name: string, env: Record<string, string> = {}, args: string[] = []): Promise<Run> {
  const llm = await startScriptedOpenAI({ respond });
  const tools = await startToolServer();
  // Only PATH/HOME from the parent: the MAS must not depend on anything else (e.g. OPENAI_API_KEY).
  const childEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", OPENAI_BASE_URL: llm.url, SYMTRACE_TOOL_URL: tools.url, SYMTRACE_TASK: DEMO_TASK, ...env } as unknown as NodeJS.ProcessEnv;
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", `mas/${name}.ts`, ...args],
        { cwd: ROOT, env: childEnv, timeout: 45_000, encoding: "utf8" },
        (err: ExecFileException | null, out: string, errOut: string) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout: out, stderr: errOut }),
      );
    });
    return { code, stdout, stderr, requests: [...llm.requests], rawRequests: [...llm.rawRequests], calls: [...tools.calls] };
  } finally {
    await llm.close();
    await tools.close();
  }
}

/** The agent name of each LLM request, read from its system prompt ("You are [the] <Name>"). */
const agents = (reqs: ChatRequest[]) => reqs.map((r) => /^You are (?:the )?(\w+)/.exec(messageText(r.messages[0]))?.[1]);

const TOOL_CALLS = [
  { tool: "search_docs", args: { query: "Hilltop Gardens prices opening hours" } },
  { tool: "fetch_page", args: { path: "hilltop-gardens" } },
  { tool: "fetch_page", args: { path: "prices" } },
  { tool: "calculator", args: { expression: "2*6.00 + 3*3.00" } },
];

function expectCommon(run: Run) {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0])).toEqual({ final: DEMO_FINAL });
  expect(run.calls).toEqual(TOOL_CALLS);
  for (const r of run.requests) {
    expect(r.model).toBe("scripted-model");
    expect(r.temperature).toBe(0);
  }
  // The two fetches were one parallel pair: one assistant message with two tool calls.
  const pair = run.requests.flatMap((r) => r.messages).find((m) => m.role === "assistant" && m.tool_calls?.length === 2);
  expect(pair?.tool_calls?.map((t) => t.function.name)).toEqual(["fetch_page", "fetch_page"]);
}

const CASES: Array<{ name: string; agents: string[] }> = [
  { name: "orchestrator", agents: ["Orchestrator", "Orchestrator", "WebSurfer", "WebSurfer", "WebSurfer", "Orchestrator", "Coder", "Coder", "Orchestrator", "Orchestrator"] },
  { name: "workflow", agents: ["Researcher", "Researcher", "Researcher", "Analyst", "Analyst", "Writer"] },
  { name: "conversation", agents: ["Assistant", "Assistant", "Assistant", "Assistant", "Assistant"] },
];

describe("reference multi-agent systems against the scripted model and the local tool server", () => {
  for (const c of CASES) {
    it(`${c.name}: final answer, LLM request order, tool calls, byte-identical requests across runs`, async () => {
      const a = await runMas(c.name);
      expectCommon(a);
      expect(agents(a.requests)).toEqual(c.agents);
      const b = await runMas(c.name);
      expectCommon(b);
      expect(b.rawRequests).toEqual(a.rawRequests);
      expect(b.calls).toEqual(a.calls);
    });

    it(`${c.name}: streaming mode gives the same run (SYMTRACE_STREAM=1)`, async () => {
      const s = await runMas(c.name, { SYMTRACE_STREAM: "1" });
      expectCommon(s);
      expect(agents(s.requests)).toEqual(c.agents);
      expect(s.requests.every((r) => r.stream === true)).toBe(true);
    });
  }

  it("orchestrator: request details (ledger, progress-ledger JSON, worker context, tools per agent)", async () => {
    const run = await runMas("orchestrator");
    expect(run.code, run.stderr).toBe(0);
    const [ledger, progress1, surf1] = run.requests;
    expect(ledger.tools).toBeUndefined();
    expect(messageText(ledger.messages[1])).toContain(`Task: ${DEMO_TASK}`);
    expect(messageText(ledger.messages[1])).toContain("Create the task ledger");
    expect(messageText(progress1.messages[3])).toContain("Update the progress ledger");
    expect(surf1.tools?.map((t) => t.function.name)).toEqual(["search_docs", "fetch_page"]);
    expect(messageText(surf1.messages[1])).toContain("Instruction from the Orchestrator: Find the adult and child entry prices");
    const coder = run.requests[6];
    expect(coder.tools?.map((t) => t.function.name)).toEqual(["calculator"]);
    const last = run.requests[run.requests.length - 1];
    expect(messageText(last.messages[last.messages.length - 1])).toContain("Give the final answer");
  });

  it("conversation: UserProxy auto-reply after a text turn and tool results as role tool", async () => {
    const run = await runMas("conversation");
    expect(run.code, run.stderr).toBe(0);
    const last = run.requests[4].messages;
    expect(last.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "tool", "assistant", "user", "assistant", "tool"]);
    expect(messageText(last[8])).toContain("TERMINATE");
  });

  it("task from argv; exit 2 without configuration; exit 1 when the model endpoint fails", async () => {
    const argv = await runMas("workflow", { SYMTRACE_TASK: "" }, [DEMO_TASK]);
    expect(argv.code, argv.stderr).toBe(0);
    expect(JSON.parse(argv.stdout)).toEqual({ final: DEMO_FINAL });
    const noTask = await runMas("workflow", { SYMTRACE_TASK: "" });
    expect(noTask.code).toBe(2);
    expect(noTask.stderr).toMatch(/no task/);
    const down = await runMas("conversation", { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(down.code).toBe(1);
    expect(down.stdout).toBe("");
  });
});
