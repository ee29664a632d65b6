import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolServer, type ToolServer } from "./server";
import { evaluateExpression } from "./calculator";

let srv: ToolServer;
beforeAll(async () => {
  srv = await startToolServer();
});
afterAll(async () => {
  await srv.close();
});

async function call(tool: string, body: unknown) {
  const res = await fetch(`${srv.url}/${tool}`, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("local tool server", () => {
  it("search_docs ranks pages deterministically", async () => {
    const r = await call("search_docs", { query: "Hilltop Gardens prices opening hours" });
    expect(r.status).toBe(200);
    expect((r.json.results as Array<{ path: string }>).map((x) => x.path)).toEqual(["hilltop-gardens", "prices", "index"]);
    expect((await call("search_docs", { query: "Hilltop Gardens prices opening hours" })).json).toEqual(r.json);
    expect((await call("search_docs", { query: "zzzz" })).json.results).toEqual([]);
  });

  it("fetch_page returns a page or a PageNotFound observation", async () => {
    const r = await call("fetch_page", { path: "/prices.md" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "success", path: "prices", title: "Park prices" });
    expect(r.json.content).toContain("- Adult: €6.00");
    const missing = await call("fetch_page", { path: "../../etc/passwd" });
    expect(missing.status).toBe(200);
    expect(missing.json).toMatchObject({ status: "failed", error: { type: "PageNotFound" } });
  });

  it("calculator evaluates safely", async () => {
    expect((await call("calculator", { expression: "2*6.00 + 3*3.00" })).json).toEqual({ status: "success", expression: "2*6.00 + 3*3.00", result: 21 });
    expect(evaluateExpression("-(2+3)^2 % 7 / 2")).toBe(-2);
    expect(evaluateExpression("0.1+0.2")).toBe(0.3);
    expect(evaluateExpression("2^3^2")).toBe(512);
    expect((await call("calculator", { expression: "1/0" })).json).toMatchObject({ status: "failed", error: { type: "MathError" } });
    const bad = await call("calculator", { expression: "process.exit()" });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ status: "failed", error: { type: "BadArguments" } });
  });

  it("unknown tool → 404, bad arguments → 400, calls are recorded", async () => {
    const before = srv.calls.length;
    expect((await call("launch_rocket", {})).status).toBe(404);
    expect((await call("search_docs", {})).status).toBe(400);
    expect((await call("search_docs", "{nope")).status).toBe(400);
    expect((await call("fetch_page", [1, 2])).status).toBe(400);
    expect(srv.calls.slice(before).map((c) => c.tool)).toEqual(["launch_rocket", "search_docs", "search_docs", "fetch_page"]);
  });
});
