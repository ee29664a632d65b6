/**
 * Issue 21 item 2: agents from what frameworks send (agents.ts rule, in order: header, name
 * field, hand-off, prompt fingerprint), and the lane guarantees: every llm_call has an agent, two
 * different system prompts never share a lane. Request shapes are those the OpenAI Agents SDK
 * (chat and Responses) and LangGraph's supervisor send.
 */
import { describe, expect, test } from "vitest";
import { AgentLanes, agentEvidence, agentKeyOf, promptName } from "./agents";
import { RecordSession } from "./session";

const chatReq = (system: string | null, extra: unknown[] = [], sysName?: string) => ({
  model: "m",
  messages: [...(system !== null ? [{ role: "system", content: system, ...(sysName ? { name: sysName } : {}) }] : []), { role: "user", content: "hi" }, ...extra],
});

describe("agentEvidence: the rule in order", () => {
  test("1. the x-symtrace-agent header wins over everything", () => {
    expect(agentEvidence(chatReq("You are the Planner.", [], "Named"), "openai-chat", "Header Agent")).toMatchObject({ name: "Header Agent", source: "header" });
  });
  test("2. the chat system message's name field", () => {
    expect(agentEvidence(chatReq("Plan things.", [], "Planner"), "openai-chat")).toMatchObject({ name: "Planner", source: "name-field" });
  });
  test("3. an Agents SDK hand-off (chat): the result {assistant: name} gives the exact name", () => {
    const hist = [
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "transfer_to_weather_agent", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: JSON.stringify({ assistant: "Weather Agent" }) },
    ];
    expect(agentEvidence(chatReq("You help with weather.", hist), "openai-chat")).toMatchObject({ name: "Weather Agent", source: "handoff" });
  });
  test("3. an Agents SDK hand-off (Responses): function_call + function_call_output items", () => {
    const req = {
      model: "m",
      instructions: "You help with weather.",
      input: [
        { role: "user", content: "weather?" },
        { type: "function_call", call_id: "c1", name: "transfer_to_weather_agent", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: '{"assistant":"Weather Agent"}' },
      ],
    };
    expect(agentEvidence(req, "openai-responses")).toMatchObject({ name: "Weather Agent", source: "handoff", prompt: "You help with weather." });
  });
  test("3. LangGraph supervisor: the most recent transfer wins (transfer_back_to_supervisor after transfer_to_math_agent)", () => {
    const hist = [
      { role: "assistant", content: null, name: "supervisor", tool_calls: [{ id: "a", type: "function", function: { name: "transfer_to_math_agent", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "Successfully transferred to math_agent" },
      { role: "assistant", content: "42", name: "math_agent" },
      { role: "assistant", content: null, tool_calls: [{ id: "b", type: "function", function: { name: "transfer_back_to_supervisor", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "b", content: "Successfully transferred back to supervisor" },
    ];
    expect(agentEvidence(chatReq("You are a team supervisor managing agents.", hist), "openai-chat")).toMatchObject({ name: "supervisor", source: "handoff" });
    expect(agentEvidence(chatReq("You are a math expert.", hist.slice(0, 2)), "openai-chat")).toMatchObject({ name: "math_agent", source: "handoff" });
  });
  test("3. a hand-off call whose result has not come back does not name the agent", () => {
    const hist = [{ role: "assistant", content: null, tool_calls: [{ id: "x", type: "function", function: { name: "transfer_to_b", arguments: "{}" } }] }];
    expect(agentEvidence(chatReq("Route.", hist), "openai-chat")).toMatchObject({ name: null, source: "prompt" });
  });
  test("4. Anthropic system blocks are the prompt", () => {
    expect(agentEvidence({ model: "c", system: [{ type: "text", text: "You are the Critic." }], messages: [] }, "anthropic-messages")).toEqual({ name: null, source: "prompt", prompt: "You are the Critic." });
  });
});

describe("promptName (rule 4: named from its text)", () => {
  test.each([
    ["You are the Orchestrator of a team.", "Orchestrator"],
    ["You are a Researcher.", "Researcher"],
    ["You are the Triage Agent. Hand off research questions.", "Triage Agent"],
    ["You are Claude, a helpful assistant.", "Claude"],
    ["Answer questions about the weather.", "Answer questions about the"],
    ["You are a math expert. Always use one tool at a time.", "Math Expert"],
    ["You are a helpful weather agent.", "Helpful Weather Agent"],
    ["   ", null],
  ])("%j -> %s", (p, n) => expect(promptName(p)).toBe(n));
});

describe("AgentLanes", () => {
  test("two different system prompts never share a lane, even with the same opening or name", () => {
    const lanes = new AgentLanes();
    const a = lanes.assign({ name: null, source: "prompt", prompt: "You are the Planner. Plan A." }).agent;
    const b = lanes.assign({ name: null, source: "prompt", prompt: "You are the Planner. Plan B." }).agent;
    expect(a).toBe("Planner");
    expect(b).toMatch(/^Planner #[0-9a-f]{4}$/);
    expect(lanes.assign({ name: null, source: "prompt", prompt: "You are the Planner. Plan B." }).agent).toBe(b);
    const c = lanes.assign({ name: "Writer", source: "handoff", prompt: "P1" }).agent;
    const d = lanes.assign({ name: "Writer", source: "handoff", prompt: "P2" }).agent;
    expect(c).toBe("Writer");
    expect(d).not.toBe(c);
  });
  test("a prompt first seen without a name joins the named lane later (earlier nodes renamed)", () => {
    const lanes = new AgentLanes();
    expect(lanes.assign({ name: null, source: "prompt", prompt: "You are a team supervisor." }).agent).toBe("Team Supervisor");
    expect(lanes.assign({ name: "supervisor", source: "handoff", prompt: "You are a team supervisor." })).toEqual({ agent: "supervisor", rename: { from: "Team Supervisor", to: "supervisor" } });
    expect(lanes.assign({ name: null, source: "prompt", prompt: "You are a team supervisor." }).agent).toBe("supervisor");
  });
  test("no prompt and no name: the fallback", () => {
    expect(new AgentLanes().assign({ name: null, source: "prompt", prompt: "" }).agent).toBe("assistant");
  });
});

describe("recorded bundles: every llm_call has an agent, lanes follow the rule", () => {
  test("a supervisor run (LangGraph shape): supervisor's calls before and after the hand-back share one lane; the header names its own lane", () => {
    const rec = new RecordSession({ id: "t/agents", task: { prompt: "q" } });
    const sup = "You are a team supervisor managing a math expert.";
    const call = (request: unknown, agent?: string) => {
      const s = rec.begin({ boundary: "llm", request, agent });
      if (s.kind !== "live") throw new Error(s.kind);
      rec.complete(s.ticket, { response: { choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] } });
    };
    const toMath = [
      { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "transfer_to_math_agent", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "Successfully transferred to math_agent" },
    ];
    const back = [
      { role: "assistant", content: null, tool_calls: [{ id: "b", type: "function", function: { name: "transfer_back_to_supervisor", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "b", content: "Successfully transferred back to supervisor" },
    ];
    call(chatReq(sup));
    call(chatReq("You are a math expert.", toMath));
    call(chatReq(sup, [...toMath, ...back]));
    call(chatReq("be concise"));
    call(chatReq("be concise"), "Auditor");
    const b = rec.toBundle({});
    const agents = b.graph.nodes.filter((n) => n.type === "llm_call").map((n) => n.agent);
    expect(agents).toEqual(["supervisor", "math_agent", "supervisor", "be concise", "Auditor"]);
    // agent_action nodes take their call's lane, renamed with it
    expect(b.graph.nodes.filter((n) => n.type === "agent_action").map((n) => n.agent)).toEqual(agents);
  });
});

describe("agentKeyOf: the agent of a request by content (replay's target check)", () => {
  test("a name (field or hand-off) when there is one, else the system prompt, in every protocol; tools have none", () => {
    expect(agentKeyOf(chatReq("Plan things.", [], "Planner"), "openai-chat")).toBe("name:Planner");
    expect(agentKeyOf(chatReq("You are a weather researcher."), "openai-chat")).toBe("prompt:You are a weather researcher.");
    expect(agentKeyOf({ input: [{ role: "system", content: "You are a weather researcher." }, { role: "user", content: "x" }] }, "openai-responses")).toBe("prompt:You are a weather researcher.");
    expect(agentKeyOf({ instructions: "You are a travel guide researcher.", input: "x" }, "openai-responses")).toBe("prompt:You are a travel guide researcher.");
    expect(agentKeyOf({ system: "You are the Critic.", messages: [] }, "anthropic-messages")).toBe("prompt:You are the Critic.");
    expect(agentKeyOf({ model: "e", input: ["a"] }, "openai-embeddings")).toBe("prompt:");
    expect(agentKeyOf({ tool: "search", arguments: {} }, null, "tool")).toBe("tool:");
    // two different prompts never share a key, even when rule 4 would give them the same name
    expect(agentKeyOf(chatReq("You are Planner, brief."))).not.toBe(agentKeyOf(chatReq("You are Planner, verbose.")));
  });
});
