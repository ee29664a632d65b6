import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { DEMO_TASK, respond } from "../../mas/scripted-policy";
import { readEnv, replaySettings } from "../env";
import type { ChatRequest } from "./scripted-openai";
import { demoReplayEnv, STANDIN_MODEL, STANDIN_PREFIX, standinRespond, startStandinStack, type StandinStack } from "./standin";

// A Who&When-style conversation as a transcript continuation sends it (lib/services/replay-exec
// transcriptMessages): the reference policy knows no agent here and used to answer HTTP 500.
const WHO_AND_WHEN: ChatRequest = {
  model: "gpt-4o-2024-08-06",
  temperature: 0,
  messages: [
    {
      role: "system",
      content:
        "You are continuing a recorded multi-agent run (Magentic-One). The messages below are the run so far, in order: agent messages are prefixed with [agent name], tool outputs with [tool result from <tool>]. Write the next message of the run as WebSurfer, following the last user instruction if there is one.",
    },
    { role: "user", content: "How many studio albums were published by Mercedes Sosa between 2000 and 2009 (included)?" },
    { role: "assistant", content: "[Orchestrator] WebSurfer, please search Wikipedia for Mercedes Sosa's discography." },
    { role: "user", content: "[tool result from web_search] Mercedes Sosa - Wikipedia ... Cantora 1 (2009) ..." },
    { role: "user", content: "Count only studio albums, not live albums." },
  ],
};

let stack: StandinStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("the demo's scripted stand-in model", () => {
  it("answers an arbitrary (Who&When) conversation with HTTP 200 and a chat.completion ending in a final answer, not a 500", async () => {
    stack = await startStandinStack({ llmPort: 0, toolPort: 0, startTools: false });
    expect(stack.toolUrl).toBeNull();
    const r = await fetch(`${stack.llmUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(WHO_AND_WHEN) });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { object: string; model: string; choices: Array<{ message: { role: string; content: string }; finish_reason: string }> };
    expect(body.object).toBe("chat.completion");
    expect(body.model).toBe("gpt-4o-2024-08-06");
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.choices[0].message.role).toBe("assistant");
    expect(body.choices[0].message.content).toBe(
      [`[WebSurfer] ${STANDIN_PREFIX}`, 'Last instruction received: "Count only studio albums, not live albums.".', "FINAL ANSWER: (scripted stand-in; configure SYMTRACE_REPLAY_UPSTREAM for a real model's answer)"].join("\n"),
    );
  });

  it("streams the same answer through the official SDK (chunks reassemble to the non-streamed text)", async () => {
    stack = await startStandinStack({ llmPort: 0, toolPort: 0, startTools: false });
    const client = new OpenAI({ baseURL: stack.llmUrl!, apiKey: "demo" });
    const stream = await client.chat.completions.create({ ...(WHO_AND_WHEN as OpenAI.ChatCompletionCreateParamsNonStreaming), stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usage = 0;
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
      usage = c.usage?.total_tokens ?? usage;
    }
    expect(finish).toBe("stop");
    expect(usage).toBeGreaterThan(0);
    expect(text).toBe(standinRespond(WHO_AND_WHEN, 0).content);
    expect(text.startsWith(`[WebSurfer] ${STANDIN_PREFIX}`)).toBe(true);
    const models = (await (await fetch(`${stack.llmUrl}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual([STANDIN_MODEL]);
  });

  it("answers a conversation with no system prompt and no user message deterministically", () => {
    const req: ChatRequest = { model: "m", messages: [{ role: "assistant", content: "hello" }] };
    const a = standinRespond(req, 0);
    expect(a).toEqual(standinRespond(req, 7));
    expect(a.content).toBe([STANDIN_PREFIX, "No instruction was given.", "FINAL ANSWER: (scripted stand-in; configure SYMTRACE_REPLAY_UPSTREAM for a real model's answer)"].join("\n"));
    expect(a.toolCalls).toBeUndefined();
  });

  it("keeps the reference MAS's scripted behaviour for its agents", () => {
    const req: ChatRequest = {
      model: STANDIN_MODEL,
      messages: [
        { role: "system", content: "You are the Orchestrator of a team." },
        { role: "user", content: `Task: ${DEMO_TASK}\n\nCreate the task ledger.` },
      ],
    };
    const a = standinRespond(req, 0);
    expect(a).toEqual(respond(req, 0));
    expect(a.content).toContain("Facts to look up: the adult and child entry prices");
  });
});

describe("demoReplayEnv (the demo starter's replay settings)", () => {
  const ports = { llmPort: 3101, toolPort: 3102, root: "/srv/symtrace" };

  it("with nothing set: the scripted stand-in (labelled), the tool server and the reference evaluator", () => {
    expect(demoReplayEnv({}, ports)).toEqual({
      startLlm: true,
      startTools: true,
      set: {
        SYMTRACE_REPLAY_UPSTREAM: "http://127.0.0.1:3101/v1",
        SYMTRACE_REPLAY_SCRIPTED: "1",
        SYMTRACE_REPLAY_MODEL: "scripted-model",
        SYMTRACE_REPLAY_TOOL_UPSTREAM: "http://127.0.0.1:3102",
        SYMTRACE_REPLAY_EVALUATOR: "node /srv/symtrace/scripts/hilltop-evaluator.mjs",
      },
    });
  });

  it("user settings win: a real upstream is neither started nor labelled scripted, and no model is imposed", () => {
    const r = demoReplayEnv(
      { SYMTRACE_REPLAY_UPSTREAM: "https://api.example.com/v1", SYMTRACE_REPLAY_TOOL_UPSTREAM: "http://tools:9000", SYMTRACE_REPLAY_EVALUATOR: "python3 eval.py" },
      ports,
    );
    expect(r).toEqual({ startLlm: false, startTools: false, set: {} });
  });

  it("user settings win one by one (model, label, evaluator), an empty value counts as unset, and a root with spaces is quoted", () => {
    const r = demoReplayEnv({ SYMTRACE_REPLAY_MODEL: "my-model", SYMTRACE_REPLAY_TOOL_UPSTREAM: "", SYMTRACE_REPLAY_SCRIPTED: "0" }, { ...ports, root: "/home/a b/symtrace/" });
    expect(r.startLlm).toBe(true);
    expect(r.startTools).toBe(true);
    expect(r.set).toEqual({
      SYMTRACE_REPLAY_UPSTREAM: "http://127.0.0.1:3101/v1",
      SYMTRACE_REPLAY_TOOL_UPSTREAM: "http://127.0.0.1:3102",
      SYMTRACE_REPLAY_EVALUATOR: "node '/home/a b/symtrace/scripts/hilltop-evaluator.mjs'",
    });
  });
});

/** A test environment (only the variables given). */
const asEnv = (e: Record<string, string>) => e as unknown as NodeJS.ProcessEnv;

describe("replaySettings().scripted (the label the app records on runs)", () => {
  it("is true only for the starter's scripted upstream", () => {
    const standin = demoReplayEnv({}, { llmPort: 3101, toolPort: 3102, root: "/r" }).set;
    expect(replaySettings(readEnv(asEnv(standin)))).toEqual({ upstream: "http://127.0.0.1:3101/v1", model: "scripted-model", toolUpstream: "http://127.0.0.1:3102", anthropicUpstream: null, scripted: true });
    expect(replaySettings(readEnv(asEnv({ SYMTRACE_REPLAY_SCRIPTED: "1" }))).scripted).toBe(false);
    expect(replaySettings(readEnv(asEnv({ SYMTRACE_REPLAY_UPSTREAM: "https://api.example.com/v1" }))).scripted).toBe(false);
  });
});

describe("startStandinStack", () => {
  it("names the port and the variable to change when a port is taken", async () => {
    stack = await startStandinStack({ llmPort: 0, toolPort: 0 });
    const taken = Number(new URL(stack.llmUrl!).port);
    await expect(startStandinStack({ llmPort: taken, toolPort: 0 })).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${taken} .*SYMTRACE_DEMO_LLM_PORT`));
  });
});
