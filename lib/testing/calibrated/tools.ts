/**
 * The calibrated world's tool server (deterministic): `POST /<tool>` with the JSON arguments.
 * - `lookup {sku}` → `{status: "success", sku, name, unit_price, currency: "EUR"}`; a C1 item has
 *   `unit_price: null` and `price_tiers`; a C2 item carries a `note` ("refresh pending") that makes
 *   the Clerk look it up again; a C3 item's sku answers HTTP 404 `{status: "failed", error:
 *   {type: "NotFound", message: "… renumbered to K-<n>R"}}` and the new sku answers. An unknown sku
 *   is HTTP 404 NotFound.
 * - `calculator {expression}` → `{status: "success", expression, result}` (mas/tools/calculator.ts).
 * Unknown tool → 404 UnknownTool; bad arguments → 400 BadArguments. Binds 127.0.0.1; every
 * response closes its connection (no keep-alive race under load).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { text as readText } from "node:stream/consumers";
import { evaluateExpression } from "../../../mas/tools/calculator";
import { itemOfSku } from "./catalogue.mjs";

export interface CalibratedTools {
  /** Base URL without a trailing slash (SYMTRACE_TOOL_URL). */
  url: string;
  /** Number of tool calls served. */
  calls(): number;
  close(): Promise<void>;
}

/** The observation of one tool call: `[httpStatus, body]`. Pure. */
export function toolAnswer(tool: string, args: unknown): [number, Record<string, unknown>] {
  const bad = (message: string): [number, Record<string, unknown>] => [400, { status: "failed", error: { type: "BadArguments", message } }];
  if (typeof args !== "object" || args === null || Array.isArray(args)) return bad(`${tool}: the arguments must be a JSON object`);
  const a = args as Record<string, unknown>;
  if (tool === "lookup") {
    if (typeof a.sku !== "string" || !a.sku.trim()) return bad("lookup: `sku` (string) is required");
    const sku = a.sku.trim();
    const it = itemOfSku(sku);
    if (!it) return [404, { status: "failed", error: { type: "NotFound", message: `no catalogue item with sku ${sku}` } }];
    if (it.category === "C3" && sku === it.sku) return [404, { status: "failed", error: { type: "NotFound", message: `no item with sku ${sku}: it was renumbered to ${it.renamed}` } }];
    if (it.category === "C1") return [200, { status: "success", sku, name: it.name, unit_price: null, price_tiers: it.tiers, currency: "EUR" }];
    if (it.category === "C2") return [200, { status: "success", sku, name: it.name, unit_price: it.price, currency: "EUR", note: "price last verified in 2019; a refresh is pending" }];
    if (it.category === "C3") return [200, { status: "success", sku, formerly: it.sku, name: it.name, unit_price: it.price, currency: "EUR" }];
    return [200, { status: "success", sku, name: it.name, unit_price: it.price, currency: "EUR" }];
  }
  if (tool === "calculator") {
    if (typeof a.expression !== "string") return bad("calculator: `expression` (string) is required");
    try {
      return [200, { status: "success", expression: a.expression, result: evaluateExpression(a.expression) }];
    } catch (e) {
      return bad(`calculator: ${(e as Error).message}`);
    }
  }
  return [404, { status: "failed", error: { type: "UnknownTool", message: `no tool named ${tool}` } }];
}

/** Start the tool server on 127.0.0.1 (`port` 0 = a free port). @throws when the port is in use */
export async function startCalibratedTools(port = 0): Promise<CalibratedTools> {
  let n = 0;
  const server = http.createServer((req, res) => {
    // No keep-alive: under heavy load a client reusing a socket the server is just closing sees "fetch failed".
    res.shouldKeepAlive = false;
    void (async () => {
      const send = (status: number, body: unknown) => {
        const t = JSON.stringify(body);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(t) });
        res.end(t);
      };
      const tool = decodeURIComponent((req.url ?? "/").split("?")[0].replace(/^\/+|\/+$/g, ""));
      if (req.method === "GET" && tool === "") return send(200, { tools: ["lookup", "calculator"] });
      if (req.method !== "POST") return send(405, { status: "failed", error: { type: "MethodNotAllowed", message: "use POST /<tool>" } });
      const raw = await readText(req);
      let args: unknown;
      try {
        args = raw.trim() ? JSON.parse(raw) : {};
      } catch {
        return send(400, { status: "failed", error: { type: "BadArguments", message: "the body is not JSON" } });
      }
      n++;
      const [status, body] = toolAnswer(tool, args);
      send(status, body);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "failed", error: { type: "ServerError", message: String(e) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: p } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${p}`,
    calls: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
