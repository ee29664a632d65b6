/**
 * MCP (examples/mcp: a `@modelcontextprotocol/sdk` 1.32.2 Streamable HTTP tool server and a client
 * agent on the Anthropic SDK) behind `symtrace record` / `replay`: the MCP tool calls are tool
 * boundaries through the MCP gateway. Against the seeded stochastic test model.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { node, precompiled } from "../../lib/testing/framework-harness";
import { frameworkSuite } from "../suite";

/** Start examples/mcp/server.ts on a free port; resolves with its URL. */
async function startMcpServer() {
  const [cmd, ...args] = precompiled(node("examples/mcp/server.ts", "0"));
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`MCP server exited ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (l) => resolve((JSON.parse(l) as { url: string }).url));
  });
  return { url, stop: async () => void child.kill("SIGTERM") };
}

frameworkSuite(
  {
    name: "mcp",
    command: node("examples/mcp/main.ts"),
    agents: { assistant: "" },
    tools: ["get_forecast", "find_restaurants"],
  },
  {
    seed: 41,
    setup: async () => {
      const s = await startMcpServer();
      return { recordArgs: ["--mcp-upstream", s.url], stop: s.stop };
    },
  },
);
