/**
 * A deterministic local tool server for the reference MAS (and for tests).
 *
 * `POST /<toolName>` with a JSON object of arguments → JSON observation:
 * - `search_docs {query: string}` → `{ status: "success", query, results: [{ path, title, snippet, score }] }`
 *   (top 3 pages of the local site in mas/tools/site/*.md, by term counts; ties by path)
 * - `fetch_page {path: string}` → `{ status: "success", path, title, content }`, or
 *   `{ status: "failed", error: { type: "PageNotFound", message } }` (HTTP 200: a normal observation)
 * - `calculator {expression: string}` → `{ status: "success", expression, result: number }`, or
 *   `{ status: "failed", error: { type: "MathError", message } }` (e.g. division by zero)
 * Unknown tool → HTTP 404 `{ status: "failed", error: { type: "UnknownTool", message } }`;
 * bad arguments (not a JSON object, missing/invalid field, expression syntax) → HTTP 400
 * `{ status: "failed", error: { type: "BadArguments", message } }`.
 * `GET /` lists the tools. Binds 127.0.0.1 on port 0. Run standalone with
 * `node --import tsx mas/tools/server.ts [port]` (prints the URL).
 */
import http from "node:http";
import { text as readText } from "node:stream/consumers";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { isMain } from "../lib/main";
import { CalcMathError, CalcSyntaxError, evaluateExpression } from "./calculator";

export interface ToolCallRecord {
  tool: string;
  args: unknown;
}

export interface ToolServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123` (use as SYMTRACE_TOOL_URL). */
  url: string;
  /** Every tool call received (including rejected ones), in arrival order. */
  calls: ToolCallRecord[];
  close(): Promise<void>;
}

export const SITE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "site");

export interface SitePage {
  path: string;
  title: string;
  content: string;
}

/** The site pages, sorted by path. */
export function loadSite(dir = SITE_DIR): SitePage[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => {
      const content = fs.readFileSync(path.join(dir, f), "utf8");
      const title = /^#\s+(.+)$/m.exec(content)?.[1].trim() ?? f;
      return { path: f.slice(0, -3), title, content };
    });
}

const STOP = new Set(["the", "and", "for", "are", "what", "when", "how", "does", "with", "from", "that", "this", "its", "per", "which", "about", "into", "is", "of", "in", "on", "to", "a", "an", "at", "or", "by", "it", "be", "do"]);

function stem(w: string): string {
  return w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w;
}

function words(s: string): string[] {
  return (s.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length >= 2 && !STOP.has(w)).map(stem);
}

export function searchSite(pages: SitePage[], query: string, limit = 3) {
  const terms = [...new Set(words(query))];
  const scored = pages.map((p) => {
    const t = words(p.title);
    const b = words(p.content);
    const score = terms.reduce((s, term) => s + 5 * t.filter((w) => w === term).length + b.filter((w) => w === term).length, 0);
    const lines = p.content.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    const snippetLine = lines.find((l) => words(l).some((w) => terms.includes(w))) ?? lines[0] ?? "";
    const snippet = snippetLine.trim().replace(/^-\s*/, "").slice(0, 160);
    return { path: p.path, title: p.title, snippet, score };
  });
  return scored
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, limit);
}

class BadArgs extends Error {}

function stringArg(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== "string" || v.trim() === "") throw new BadArgs(`argument '${key}' must be a non-empty string`);
  return v;
}

type Handler = (args: Record<string, unknown>) => unknown;

function makeHandlers(pages: SitePage[]): Record<string, Handler> {
  return {
    search_docs: (args) => {
      const query = stringArg(args, "query");
      return { status: "success", query, results: searchSite(pages, query) };
    },
    fetch_page: (args) => {
      const raw = stringArg(args, "path");
      const p = raw.trim().replace(/^\/+/, "").replace(/\.md$/, "").toLowerCase();
      const page = pages.find((x) => x.path === p);
      if (!page) return { status: "failed", path: raw, error: { type: "PageNotFound", message: `no page at '${raw}'; known pages: ${pages.map((x) => x.path).join(", ")}` } };
      return { status: "success", path: page.path, title: page.title, content: page.content };
    },
    calculator: (args) => {
      const expression = stringArg(args, "expression");
      try {
        return { status: "success", expression, result: evaluateExpression(expression) };
      } catch (e) {
        if (e instanceof CalcSyntaxError) throw new BadArgs(`invalid expression: ${e.message}`);
        if (e instanceof CalcMathError) return { status: "failed", expression, error: { type: "MathError", message: e.message } };
        throw e;
      }
    },
  };
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export async function startToolServer(opts: { port?: number; siteDir?: string } = {}): Promise<ToolServer> {
  const handlers = makeHandlers(loadSite(opts.siteDir));
  const calls: ToolCallRecord[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const route = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/^\/+|\/+$/g, "");
      if (req.method === "GET" && route === "") return send(res, 200, { tools: Object.keys(handlers) });
      if (req.method !== "POST") return send(res, 405, { status: "failed", error: { type: "MethodNotAllowed", message: "use POST /<toolName>" } });
      const raw = await readText(req);
      let args: unknown;
      try {
        args = raw.trim() === "" ? {} : JSON.parse(raw);
      } catch {
        calls.push({ tool: route, args: raw });
        return send(res, 400, { status: "failed", error: { type: "BadArguments", message: "body is not valid JSON" } });
      }
      calls.push({ tool: route, args });
      const handler = Object.hasOwn(handlers, route) ? handlers[route] : undefined;
      if (!handler) return send(res, 404, { status: "failed", error: { type: "UnknownTool", message: `unknown tool '${route}'; tools: ${Object.keys(handlers).join(", ")}` } });
      if (!args || typeof args !== "object" || Array.isArray(args)) return send(res, 400, { status: "failed", error: { type: "BadArguments", message: "arguments must be a JSON object" } });
      try {
        send(res, 200, handler(args as Record<string, unknown>));
      } catch (e) {
        if (e instanceof BadArgs) return send(res, 400, { status: "failed", error: { type: "BadArguments", message: e.message } });
        throw e;
      }
    })().catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { status: "failed", error: { type: "ServerError", message: e instanceof Error ? e.message : String(e) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (isMain(import.meta.url)) {
  const port = process.argv[2] ? Number(process.argv[2]) : 0;
  void startToolServer({ port }).then((s) => process.stdout.write(`SYMTRACE_TOOL_URL=${s.url}\n`));
}
