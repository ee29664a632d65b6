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

  test("a MAS that makes a Responses call and exits 0: exit 0, ok true", async () => {
    const out = path.join(dir, "ok.json");
    const r = await recordCommand(["--out", out, "--upstream", model.url, "--", ...node(`(async () => { const r = ${post("/responses", { model: "m", input: "Weather in Oslo" })}; const j = await r.json(); console.log(JSON.stringify({ final: j.output[0].name })); })()`)]);
    expect(r.output).toMatchObject({ ok: true, status: "recorded", records: 1, failedBoundaries: 0, final: "get_weather" });
    expect(r.code).toBe(0);
  });
});
