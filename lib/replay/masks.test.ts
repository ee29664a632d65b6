/**
 * Issue 21 item 5: values the client invents — canonical renaming of client-invented ids and
 * user-declared masks (`config.replay.masks`). The "MAS" here is a test-only in-memory client
 * shaped like `@langchain/langgraph-supervisor`: after the sub-agent answers, it appends a
 * hand-back AI message and tool message carrying a fresh uuid (`/messages/5/tool_calls/0/id`).
 */
import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import type { ReplayBundle } from "../bundle";
import { applyMasks, compileMasks, MaskError } from "./masks";
import { producedIds, renameInventedIds } from "./rename";
import { RecordSession, ReplaySession, type BoundarySession } from "./index";

type Msg = Record<string, unknown>;

function reply(content: string | null, n: number, toolCalls?: { id: string; name: string }[]) {
  return {
    id: `cmpl-${n}`,
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: toolCalls ? "tool_calls" : "stop", message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls.map((t) => ({ id: t.id, type: "function", function: { name: t.name, arguments: "{}" } })) } : {}) } }],
  };
}

/** A supervisor hands off to a worker, the worker answers, a hand-back with a fresh uuid, then the supervisor answers. */
function supervisorRun(session: BoundarySession, opts: { stamp?: string } = {}) {
  const sys = { role: "system", content: `You are Supervisor. Today is ${opts.stamp ?? "2026-12-01T20:00:00.000Z"}.` };
  const msgs: Msg[] = [sys, { role: "user", content: "Weather in Oslo?" }];
  const scripted = [reply(null, 0, [{ id: "call_model_0", name: "transfer_to_weather_agent" }]), reply("Sunny, 3 C.", 1), reply("It is sunny in Oslo.", 2)];
  let n = 0;
  const call = (request: unknown) => {
    const step = session.begin({ boundary: "llm", request: structuredClone(request) });
    if (step.kind === "recorded") return step.response as ReturnType<typeof reply>;
    if (step.kind === "live") {
      const res = scripted[n];
      session.complete(step.ticket, { response: res, httpStatus: 200 });
      return res;
    }
    throw Object.assign(new Error(`stopped: ${step.kind === "diverged" ? step.report.message : step.kind}`), { step });
  };
  const steps: unknown[] = [];
  const r0 = call({ model: "m", messages: msgs });
  n++;
  msgs.push(r0.choices[0].message, { role: "tool", tool_call_id: "call_model_0", content: "Transferred to weather_agent" });
  const r1 = call({ model: "m", messages: [{ role: "system", content: "You are WeatherAgent." }, ...msgs.slice(1)] });
  n++;
  const handBack = randomUUID();
  msgs.push({ role: "assistant", content: r1.choices[0].message.content, name: "weather_agent" });
  msgs.push({ role: "assistant", content: "Transferring back to supervisor", tool_calls: [{ id: handBack, type: "function", function: { name: "transfer_back_to_supervisor", arguments: "{}" } }] });
  msgs.push({ role: "tool", tool_call_id: handBack, content: "Successfully transferred back to supervisor" });
  const r2 = call({ model: "m", messages: msgs });
  steps.push(r2);
  return { handBack, final: r2.choices[0].message.content };
}

function record(config?: ReplayBundle["config"]): ReplayBundle {
  const rec = new RecordSession({ id: "test/supervisor", task: { prompt: "Weather in Oslo?" }, config });
  const { final } = supervisorRun(rec);
  return rec.toBundle({ final });
}

describe("canonical renaming of client-invented ids", () => {
  test("the hand-back uuid sits at /messages/5/tool_calls/0/id and no recorded response produced it", () => {
    const b = record();
    const q = b.records[2].request as { messages: { tool_calls?: { id: string }[]; tool_call_id?: string }[] };
    const id = q.messages[5].tool_calls![0].id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(q.messages[6].tool_call_id).toBe(id);
    const produced = producedIds(b.records);
    expect(produced.has("call_model_0")).toBe(true);
    expect(produced.has(id)).toBe(false);
    const hits: never[] = [];
    const renamed = renameInventedIds(q, produced, hits) as typeof q;
    expect(renamed.messages[5].tool_calls![0].id).toBe("symtrace:id:0");
    expect(renamed.messages[6].tool_call_id).toBe("symtrace:id:0");
    // The model-produced id is kept verbatim, so its link to the response is still verified.
    expect(renamed.messages[3].tool_call_id).toBe("call_model_0");
    expect(hits).toEqual([
      { pointer: "/messages/5/tool_calls/0/id", rule: "rename", from: id, to: "symtrace:id:0" },
      { pointer: "/messages/6/tool_call_id", rule: "rename", from: id, to: "symtrace:id:0" },
    ]);
    expect(q.messages[5].tool_calls![0].id).toBe(id); // input untouched
  });

  test("a replay with a fresh hand-back uuid verifies the whole run and reports what was renamed", () => {
    const b = record();
    const s = new ReplaySession({ source: b });
    const { handBack } = supervisorRun(s);
    expect(s.end()).toBeNull();
    expect(s.verified).toBe(3);
    expect(s.maskReport).toMatchObject({ masks: 0, renamedIds: true });
    expect(s.maskReport!.masked.filter((m) => m.from === handBack).map((m) => m.pointer)).toEqual(["/messages/5/tool_calls/0/id", "/messages/6/tool_call_id"]);
  });

  test("nothing else is relaxed: a changed model-produced id still fails closed", () => {
    const b = record();
    const s = new ReplaySession({ source: b });
    s.begin({ boundary: "llm", request: b.records[0].request });
    const q = structuredClone(b.records[1].request) as { messages: Msg[] };
    q.messages[3].tool_call_id = "call_other";
    const step = s.begin({ boundary: "llm", request: q });
    expect(step).toMatchObject({ kind: "diverged", report: { reason: "content", seq: 1 } });
    if (step.kind === "diverged") expect(step.report.message).toMatch(/\/messages\/3\/tool_call_id: expected "call_model_0" got "symtrace:id:0"/);
  });

  test("two invented ids in swapped places do not match (first-occurrence order is part of the content)", () => {
    const produced = new Set<string>();
    const a = renameInventedIds({ messages: [{ tool_call_id: "x" }, { tool_call_id: "y" }, { tool_call_id: "x" }] }, produced);
    const b = renameInventedIds({ messages: [{ tool_call_id: "p" }, { tool_call_id: "q" }, { tool_call_id: "q" }] }, produced);
    expect(a).toEqual({ messages: [{ tool_call_id: "symtrace:id:0" }, { tool_call_id: "symtrace:id:1" }, { tool_call_id: "symtrace:id:0" }] });
    expect(b).not.toEqual(a);
  });

  test("a bundle without invented ids is matched exactly as before (no renaming, no mask report)", () => {
    const rec = new RecordSession({ id: "t/plain", task: { prompt: "x" } });
    const st = rec.begin({ boundary: "llm", request: { model: "m", messages: [{ role: "user", content: "x" }] } });
    if (st.kind === "live") rec.complete(st.ticket, { response: reply("ok", 0) });
    const s = new ReplaySession({ source: rec.toBundle({}) });
    expect(s.maskReport).toBeNull();
    expect(s.begin({ boundary: "llm", request: { model: "m", messages: [{ role: "user", content: "x" }] } }).kind).toBe("recorded");
  });
});

describe("user-declared masks (config.replay.masks)", () => {
  const STAMP = "\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z";

  test("without a mask a timestamp in the prompt diverges; with one it verifies and the report lists it", () => {
    const plain = record();
    const s0 = new ReplaySession({ source: plain });
    expect(() => supervisorRun(s0, { stamp: "2026-12-02T09:15:00.000Z" })).toThrow("stopped");
    expect(s0.report).toMatchObject({ reason: "content", seq: 0 });
    expect(s0.report!.masked).toEqual([]); // renaming is on (the bundle has an invented id), but nothing was masked at seq 0

    const masked = record({ replay: { masks: [{ pointer: "/messages/0/content", pattern: STAMP }] } });
    expect(masked.config.replay?.masks).toEqual([{ pointer: "/messages/0/content", pattern: STAMP }]);
    const s = new ReplaySession({ source: masked });
    supervisorRun(s, { stamp: "2026-12-02T09:15:00.000Z" });
    expect(s.end()).toBeNull();
    expect(s.verified).toBe(3);
    expect(s.maskReport!.masked).toContainEqual({ pointer: "/messages/0/content", rule: "mask[0]", from: "You are Supervisor. Today is 2026-12-02T09:15:00.000Z.", to: "You are Supervisor. Today is <masked>." });
  });

  test("a mask relaxes only what it names: another change still diverges, and the report lists the masks applied", () => {
    const masked = record({ replay: { masks: [{ pointer: "/messages/0/content", pattern: STAMP }] } });
    const s = new ReplaySession({ source: masked });
    const q = structuredClone(masked.records[0].request) as { messages: Msg[] };
    q.messages[0].content = "You are Supervisor. Today is 2027-01-01T00:00:00Z!";
    const step = s.begin({ boundary: "llm", request: q });
    expect(step).toMatchObject({ kind: "diverged", report: { reason: "content", masked: [{ pointer: "/messages/0/content", rule: "mask[0]" }] } });
    if (step.kind === "diverged") expect(step.report.message).toMatch(/expected "You are Supervisor. Today is <masked>." got "You are Supervisor. Today is <masked>!"/);
  });

  test("pointer masks, * segments and boundaries", () => {
    const m = compileMasks([{ pointer: "/messages/*/name" }, { pointer: "/arguments/ts", boundary: "tool" }]);
    expect(applyMasks({ messages: [{ name: "a" }, { role: "u" }, { name: "b" }] }, m, "llm")).toEqual({ messages: [{ name: "<masked>" }, { role: "u" }, { name: "<masked>" }] });
    expect(applyMasks({ tool: "t", arguments: { ts: 5 } }, m, "llm")).toEqual({ tool: "t", arguments: { ts: 5 } });
    expect(applyMasks({ tool: "t", arguments: { ts: 5 } }, m, "tool")).toEqual({ tool: "t", arguments: { ts: "<masked>" } });
    const same = { messages: [{ role: "u" }] };
    expect(applyMasks(same, m, "llm")).toBe(same); // copy on write: nothing masked, same object
  });

  test.each([
    [{ masks: {} }, "config.replay.masks: must be an array"],
    [{ masks: [5] }, "config.replay.masks[0]: must be an object"],
    [{ masks: [{}] }, "config.replay.masks[0]: give a pointer, a pattern, or both"],
    [{ masks: [{ pointer: "messages/0" }] }, 'config.replay.masks[0].pointer: "messages/0" is not a JSON pointer'],
    [{ masks: [{ pointer: "/a~2b" }] }, "config.replay.masks[0].pointer"],
    [{ masks: [{ pointer: "/a" }, { pattern: "(" }] }, "config.replay.masks[1].pattern: invalid regular expression"],
    [{ masks: [{ pattern: "x*" }] }, "config.replay.masks[0].pattern: /x*/ matches the empty string"],
    [{ masks: [{ pattern: "x", flags: "g" }] }, "config.replay.masks[0].flags"],
    [{ masks: [{ pointer: "/a", boundary: "mcp" }] }, "config.replay.masks[0].boundary"],
    [{ masks: [{ pointer: "/a", regex: "x" }] }, "config.replay.masks[0].regex: unknown mask key"],
  ])("a bad mask is refused with the path named (%j)", (replay, msg) => {
    expect(() => compileMasks(replay.masks)).toThrow(MaskError);
    expect(() => compileMasks(replay.masks)).toThrow(msg);
    const b = record();
    expect(() => new ReplaySession({ source: { ...b, config: { ...b.config, replay: { ...b.config.replay, ...replay } } } })).toThrow(msg);
    expect(() => new RecordSession({ id: "x", task: { prompt: "" }, config: { replay } })).toThrow(msg);
  });
});
