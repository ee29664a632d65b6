/**
 * An MCP tool server (`@modelcontextprotocol/sdk` 1.32.2, Streamable HTTP, stateless), the way
 * the SDK's README writes one: `McpServer` + `registerTool` + `StreamableHTTPServerTransport`,
 * served by plain `node:http` on `POST /mcp`.
 *
 *   node --import tsx examples/mcp/server.ts [port=3364]
 *
 * Prints one JSON line `{ url }` when listening. Tools: `get_forecast`, `find_restaurants`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function buildServer(): McpServer {
  const server = new McpServer({ name: "city-guide", version: "1.0.0" });
  server.registerTool(
    "get_forecast",
    { title: "Forecast", description: "Get the weather forecast for a city", inputSchema: { city: z.string().describe("City name") } },
    async ({ city }) => ({ content: [{ type: "text", text: `Forecast for ${city}: light rain, 14°C.` }] }),
  );
  server.registerTool(
    "find_restaurants",
    { title: "Restaurants", description: "Find restaurants in a city", inputSchema: { city: z.string().describe("City name") } },
    async ({ city }) => ({ content: [{ type: "text", text: `In ${city}: Café Lumen (bistro), Hanami (ramen), Vinha (wine bar).` }] }),
  );
  return server;
}

const httpServer = http.createServer((req, res) => {
  if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/mcp") {
    res.writeHead(405, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null }));
    return;
  }
  // Stateless: a fresh server and transport per request (the SDK's stateless example).
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  void server
    .connect(transport)
    .then(() => transport.handleRequest(req, res))
    .catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: String(e) }, id: null }));
    });
});

const port = Number(process.argv[2] ?? 3364);
httpServer.listen(port, "127.0.0.1", () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp` }));
});
const stop = () => httpServer.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
