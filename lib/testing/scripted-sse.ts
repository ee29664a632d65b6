/**
 * Test-only scripted streaming upstream: every POST answers with the server-sent events the
 * test's `script` returns for it (`event:` / `id:` lines when given), one write per event,
 * `delayMs` apart; or, when the script returns `{ json }`, a plain JSON body. It notes, per
 * request, how many events it wrote and whether the client (the proxy) closed the connection
 * before the stream ended (`aborted`). Used by the stream-error and client-abort tests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { SseEvent } from "../replay";

/** What the scripted upstream answers to one request. */
export type SseAnswer = { events: SseEvent[]; delayMs?: number } | { json: unknown };

/** One request the scripted upstream received. */
export interface SseServed {
  path: string;
  body: unknown;
  written: number;
  aborted: boolean;
  ended: boolean;
}

export interface ScriptedSse {
  /** Base URL, e.g. `http://127.0.0.1:<port>` (OpenAI routes: `<url>/v1`). */
  url: string;
  served: SseServed[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `event:` / `id:` / `data:` lines of one event (multi-line data split on newlines). */
function format(e: SseEvent): string {
  let s = "";
  if (e.event !== undefined) s += `event: ${e.event}\n`;
  if (e.id !== undefined) s += `id: ${e.id}\n`;
  for (const line of e.data.split("\n")) s += `data: ${line}\n`;
  return s + "\n";
}

/** Start the scripted upstream on a free port of 127.0.0.1. */
export async function startScriptedSse(script: (path: string, body: unknown, n: number) => SseAnswer): Promise<ScriptedSse> {
  const served: SseServed[] = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      void (async () => {
        const body = text ? (JSON.parse(text) as unknown) : null;
        const s: SseServed = { path: req.url ?? "/", body, written: 0, aborted: false, ended: false };
        served.push(s);
        const answer = script(s.path, body, served.length - 1);
        if ("json" in answer) {
          const t = JSON.stringify(answer.json);
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(t) });
          res.end(t);
          s.ended = true;
          return;
        }
        res.on("close", () => {
          if (!res.writableEnded) s.aborted = true;
        });
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.flushHeaders();
        for (const e of answer.events) {
          if (res.destroyed || s.aborted) return;
          res.write(format(e));
          s.written++;
          if (answer.delayMs) await sleep(answer.delayMs);
        }
        res.end();
        s.ended = true;
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
