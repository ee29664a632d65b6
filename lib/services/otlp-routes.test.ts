/**
 * The app's own route handlers (app/v1/traces, app/api/public/otel/v1/traces, app/api/otel/flush)
 * called as Next.js calls them (a Web Request, no session): an API key is the only credential
 * the receiver needs, and the flush route assembles the case.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshTestDb } from "../db/test-db";
import { createApiKey, exportBundle, type Db } from "../db";
import { encodeProtobufRequest } from "../otlp/codec";

let db: Db;
let key: string;
type Handler = { POST(req: Request): Promise<Response> };
let v1: Handler, publicOtel: Handler, flush: Handler;

beforeAll(async () => {
  const h = await freshTestDb();
  process.env.DATABASE_URL = h.url; // getDb() of the route modules opens this database
  db = h.db;
  key = (await createApiKey(db, { name: "routes" })).key;
  v1 = (await import("../../app/v1/traces/route")) as Handler;
  publicOtel = (await import("../../app/api/public/otel/v1/traces/route")) as Handler;
  flush = (await import("../../app/api/otel/flush/route")) as Handler;
}, 120_000);

afterAll(async () => {
  await db.$disconnect();
});

const span = (id: string, parent: string, name: string, kind: string) => ({
  traceId: "33333333333333333333333333333333",
  spanId: id,
  parentSpanId: parent,
  name,
  startTimeUnixNano: "1767000000000000000",
  endTimeUnixNano: "1767000000500000000",
  attributes: [{ key: "openinference.span.kind", value: { stringValue: kind } }],
});
const body = (spans: unknown[]) => encodeProtobufRequest({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: "t" }, spans }] }] });
const post = (h: Handler, b: Uint8Array, auth?: string, url = "http://app.test/v1/traces") =>
  h.POST(new Request(url, { method: "POST", headers: { "content-type": "application/x-protobuf", ...(auth ? { authorization: auth } : {}) }, body: b as BodyInit }));

it("both receiver paths take spans with an API key and no session; 401 without; flush assembles the case", async () => {
  expect((await post(v1, body([span("b000000000000001", "", "root", "AGENT")]))).status).toBe(401);
  expect((await post(v1, body([span("b000000000000001", "", "root", "AGENT")]), `Bearer ${key}`)).status).toBe(200);
  const r = await post(publicOtel, body([span("b000000000000002", "b000000000000001", "step", "CHAIN")]), `Bearer ${key}`, "http://app.test/api/public/otel/v1/traces");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("application/x-protobuf");

  const noCred = await flush.POST(new Request("http://app.test/api/otel/flush", { method: "POST" }));
  expect(noCred.status).toBe(401);
  const f = await flush.POST(new Request("http://app.test/api/otel/flush", { method: "POST", headers: { authorization: `Bearer ${key}` } }));
  expect(f.status).toBe(200);
  const { assembled } = (await f.json()) as { assembled: Array<{ bundleId: string; status: string; spans: number }> };
  expect(assembled).toEqual([expect.objectContaining({ bundleId: "otlp/33333333333333333333333333333333", status: "imported", spans: 2 })]);
  const b = await exportBundle(db, { bundleId: "otlp/33333333333333333333333333333333" });
  expect(b!.graph.nodes.map((n) => n.label)).toEqual(["root", "step", expect.any(String)]);
});
