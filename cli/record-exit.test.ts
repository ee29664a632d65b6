/**
 * Issue 21 item 1: `symtrace record` exits non-zero with `ok: false` when the MAS failed or
 * nothing was recorded (before: `ok: true` even when every call of the MAS hit a 404), and an
 * unknown route is recorded as a failed boundary. The MAS is a one-line node script; the model a
 * SCRIPTED local server (lib/testing/scripted-protocols.ts).
 */
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startScriptedProtocols, type ScriptedProtocols } from "../lib/testing/scripted-protocols";
import { startScriptedSse } from "../lib/testing/scripted-sse";
import { recordCommand } from "./replay";

let model: ScriptedProtocols;
const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-record-exit-"));
beforeAll(async () => {
  model = await startScriptedProtocols();
});
afterAll(() => model?.close());

const node = (js: string) => [process.execPath, "-e", js];
const post = (route: string, body: unknown) => `await fetch(process.env.OPENAI_BASE_URL + ${JSON.stringify(route)}, { method: "POST", headers: { "content-type": "application/json" }, body: ${JSON.stringify(JSON.stringify(body))} })`;

describe("record: ok only when the MAS succeeded and something was recorded", () => {
  test("a MAS that makes no call: exit 4, ok false, nothing-recorded, no bundle", async () => {
    const out = path.join(dir, "none.json");
    const r = await recordCommand(["--out", out, "--upstream", model.url, "--", ...node("process.exit(0)")]);
    expect(r.code).toBe(4);
    expect(r.output).toMatchObject({ ok: false, status: "nothing-recorded", records: 0 });
    expect(existsSync(out)).toBe(false);
  });

  test("a MAS whose call hits an unknown route and then fails: exit 4, mas-failed; the failed boundary is in the bundle", async () => {
    const out = path.join(dir, "unknown.json");
    const r = await recordCommand(["--out", out, "--upstream", model.url, "--", ...node(`(async () => { const r = ${post("/threads", { a: 1 })}; process.exit(r.status === 404 ? 1 : 0); })()`)]);
    expect(r.code).toBe(4);
    expect(r.output).toMatchObject({ ok: false, status: "mas-failed", records: 1, failedBoundaries: 1, masExitCode: 1 });
    const b = JSON.parse(readFileSync(out, "utf8"));
    expect(b.records[0].meta).toMatchObject({ protocol: "unknown-route", httpStatus: 404 });
    expect(b.records[0].request).toEqual({ method: "POST", path: "/v1/threads", body: { a: 1 } });
  });

  test("a stream that ends in an error event (Anthropic overloaded_error after a partial text) is a failed boundary", async () => {
    const sse = await startScriptedSse(() => ({
      events: [
        { event: "message_start", data: JSON.stringify({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } }) },
        { event: "content_block_start", data: JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) },
        { event: "content_block_delta", data: JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial ans" } }) },
        { event: "error", data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) },
      ],
    }));
    try {
      const out = path.join(dir, "stream-error.json");
      const mas = `(async () => { const r = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", { method: "POST", headers: { "content-type": "application/json" }, body: ${JSON.stringify(JSON.stringify({ model: "m", max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] }))} }); const t = await r.text(); process.exit(t.includes("event: error") ? 1 : 0); })()`;
      const r = await recordCommand(["--out", out, "--upstream", `${sse.url}/v1`, "--anthropic-upstream", sse.url, "--", ...node(mas)]);
      expect(r.code).toBe(4);
      expect(r.output).toMatchObject({ ok: false, status: "mas-failed", records: 1, failedBoundaries: 1 });
      expect(String((r.output as { message: string }).message)).toContain("1 failed boundary calls; the first failed: llm_call_0000: Overloaded");
      const b = JSON.parse(readFileSync(out, "utf8"));
      expect(b.graph.nodes.find((n: { type: string }) => n.type === "llm_call")).toMatchObject({ status: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      expect(b.graph.nodes.filter((n: { type: string }) => n.type === "agent_action")).toEqual([]);
    } finally {
      await sse.close();
    }
  });

  test("a MAS that makes a Responses call and exits 0: exit 0, ok true", async () => {
    const out = path.join(dir, "ok.json");
    const r = await recordCommand(["--out", out, "--upstream", model.url, "--", ...node(`(async () => { const r = ${post("/responses", { model: "m", input: "Weather in Oslo" })}; const j = await r.json(); console.log(JSON.stringify({ final: j.output[0].name })); })()`)]);
    expect(r.output).toMatchObject({ ok: true, status: "recorded", records: 1, failedBoundaries: 0, final: "get_weather" });
    expect(r.code).toBe(0);
  });
});
