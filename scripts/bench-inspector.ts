/**
 * Inspector benchmark (run by `npm run bench` after the import benchmark, or alone with
 * `node --experimental-wasm-modules --import tsx scripts/bench-inspector.ts`). Prints figures; not a
 * test: exits 0 unless something errors.
 *
 * On a fresh SQLite database in a temp dir it imports one 4,001-node synthetic bundle
 * (`bench/synthetic-4001`) and the gold bundle gold-c2 (for comparison), serves a production build
 * (`NEXT_DIST_DIR=.next-bench`, rebuilt only when a source file under app/ components/ lib/ is newer
 * than .next-bench/BUILD_ID) with `next start` on a free port, and drives Debian's Chromium
 * (playwright-core, headless, --disable-gpu, 1600x1000) through `/cases/<id>?node=<middle node>`.
 *
 * Per case, BENCH_RUNS runs (default 3), each in a fresh browser context (empty HTTP cache). Run 1
 * is "cold" (first request of the page to a fresh server: route code loaded, SQLite pages read);
 * runs 2.. are "warm" on the server side, still with an empty browser cache.
 * Measured from navigation start (performance.timeOrigin):
 *   - node in DOM: the first trace node element (`[data-testid=graph-node]`, not
 *     visibility:hidden) appears (MutationObserver in an init script; this may be server-rendered HTML,
 *     i.e. before hydration);
 *   - first graph paint: the `symtrace:graph-rendered` mark (first frame after trace nodes reached
 *     the graph on the client: hydrated, i.e. interactive); the goal (< 1.5 s) applies to this one;
 *   - layout: `window.__symtraceLayoutMs` (the first scene, lib/layout graphScene: the rows on screen
 *     and their edges; there is no whole-trace layout step);
 *   - rendered/total: trace nodes the graph holds in the DOM vs nodes in the case;
 *   - detail: the node panel shows the deep-linked node (`[data-testid=node-detail][data-node-id]`);
 *   - pan: requestAnimationFrame deltas while dragging the pane vertically (2 drags of 60 x 15 px
 *     over ~1.5 s each): median / p95 frame time, fps implied by the median, frames > 50 ms;
 *   - j-step: mean time from the "j" keydown to the timeline row of the next node being selected
 *     (50 steps, detected on the next animation frame).
 * Also per case: HTML / JS bytes, script and layout time from the Chrome Performance domain, and long tasks
 * before the first graph paint (to tell where the time goes).
 *
 * Options (env): BENCH_RUNS=<n> (default 3), CHROMIUM_PATH (default /usr/bin/chromium),
 * SYMTRACE_SHARED_DIR (default: the shared folder beside the repo), BENCH_KEEP=1 keep the temp dir (db, server log),
 * BENCH_REBUILD=1 force the build, BENCH_REUSE_BUILD=1 serve the existing build even when a source is newer (npm test), BENCH_DIST=<dir> the build folder (default .next-bench), BENCH_TRACE=1 write a Chrome trace of run 1 of each case into the
 * temp dir (implies BENCH_KEEP), BENCH_PORT=<n> use this port instead of a free one.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { validateBundle } from "../lib/bundle";
import { parseJsonText } from "../lib/bundle/json-text";
import { syntheticBundle } from "../lib/bundle/synthetic";
import { openDb } from "../lib/db/client";
import { getCaseGraph, importCase } from "../lib/db/cases";
import { upsertUser } from "../lib/db/users";
import { migrate } from "../lib/db/migrate";

const ROOT = path.resolve(import.meta.dirname, "..");
/** The production build the benchmark serves (BENCH_DIST; the smoke run reuses `npm test`'s `.next`). */
export const DIST = process.env.BENCH_DIST ?? ".next-bench";
const GOAL_FIRST_PAINT_MS = 1500;
const GOAL_FPS = 30;
const LONG_FRAME_MS = 50;
const J_STEPS = Number(process.env.BENCH_J_STEPS ?? 50);
/** Pointer moves per pan drag (25 ms apart). */
const PAN_MOVES = Number(process.env.BENCH_PAN_MOVES ?? 60);
export const VIEWPORT = { width: 1600, height: 1000 };
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-quic", "--no-first-run"];

interface BenchCase {
  label: string;
  bundleId: string;
  order: string[];
  total: number;
  middle: string;
}

interface RunResult {
  run: number;
  nodeInDomMs: number | null;
  firstPaintMs: number | null;
  markNodes: number | null;
  layoutMs: number | null;
  rendered: number;
  detailMs: number | null;
  requestMs: number;
  ttfbMs: number;
  htmlDoneMs: number;
  domInteractiveMs: number;
  dclMs: number;
  htmlBytes: number;
  flightChars: number;
  jsBytes: number;
  jsFiles: number;
  longTasksBeforePaint: number;
  longTaskMsBeforePaint: number;
  maxLongTaskMs: number;
  scriptMs: number;
  layoutDurMs: number;
  styleMs: number;
  heapMb: number;
  pan: { frames: number; medianMs: number; p95Ms: number; longFrames: number; avgFps: number; durationMs: number };
  jStepMs: number | null;
  jCommitMs: number | null;
  jSteps: number;
}

// ---------------------------------------------------------------------------------------------
// small helpers

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
export const median = (xs: number[]) => quantile(xs, 0.5);
const med = (xs: Array<number | null>) => {
  const v = xs.filter((x): x is number => typeof x === "number" && Number.isFinite(x));
  return v.length ? median(v) : null;
};
const fmt = (x: number | null | undefined, digits = 0) => (x == null || !Number.isFinite(x) ? "-" : x.toFixed(digits));
const rnd = (x: number | null | undefined, digits = 0) => (x == null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    m = Math.max(m, newestMtime(path.join(p, e.name)));
  }
  return m;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const a = srv.address();
      const port = typeof a === "object" && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Run a command to completion, output to a log file. @throws Error with the log tail on failure */
function runLogged(cmd: string, args: string[], env: NodeJS.ProcessEnv, log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fd = openSync(log, "w");
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ["ignore", fd, fd] });
    child.on("error", (e) => {
      closeSync(fd);
      reject(e);
    });
    child.on("exit", (code, sig) => {
      closeSync(fd);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(" ")} failed (${sig ?? code}):\n${tail(log)}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// build and server

export async function ensureBuild(tmp: string): Promise<string> {
  const buildId = path.join(ROOT, DIST, "BUILD_ID");
  const sources = ["app", "components", "lib", "next.config.mjs", "package.json", "package-lock.json", "postcss.config.mjs"].map((p) => path.join(ROOT, p));
  const newest = Math.max(...sources.map(newestMtime));
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  if (built > newest && process.env.BENCH_REBUILD !== "1") return "reused";
  // npm test has just built it, and serves it to the e2e run beside this one: never rebuild under it.
  if (built > 0 && process.env.BENCH_REUSE_BUILD === "1") return "reused (BENCH_REUSE_BUILD=1)";
  // `next build` adds `<distDir>/types/**/*.ts` to tsconfig.json when missing; the bench must not
  // leave that edit behind, so tsconfig.json is restored byte for byte afterwards.
  const tsconfig = path.join(ROOT, "tsconfig.json");
  const before = existsSync(tsconfig) ? readFileSync(tsconfig, "utf8") : null;
  const t0 = performance.now();
  try {
    await runLogged("npx", ["next", "build"], { ...process.env, NEXT_DIST_DIR: DIST, NEXT_TELEMETRY_DISABLED: "1" }, path.join(tmp, "build.log"));
  } finally {
    if (before !== null && readFileSync(tsconfig, "utf8") !== before) writeFileSync(tsconfig, before);
  }
  return `rebuilt in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
}

export interface Server {
  url: string;
  child: ChildProcess;
  log: string;
}

export async function startServer(tmp: string, databaseUrl: string): Promise<Server> {
  const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : await freePort();
  const log = path.join(tmp, "server.log");
  const fd = openSync(log, "w");
  const child = spawn("npx", ["next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    // The benchmark signs in once per browser context: better-auth's sign-in rate limit is off here.
    env: { ...process.env, NEXT_DIST_DIR: DIST, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production", SYMTRACE_AUTH_RATE_LIMIT: "0" },
    stdio: ["ignore", fd, fd],
    detached: true, // own process group: npx -> sh -> next-server all die together
  });
  closeSync(fd);
  const server = { url: `http://127.0.0.1:${port}`, child, log };
  servers.add(server);
  let exited: string | null = null;
  child.on("exit", (code, sig) => (exited = String(sig ?? code)));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`next start exited (${exited}) before answering:\n${tail(log)}`);
    try {
      const r = await fetch(`${server.url}/cases`, { signal: AbortSignal.timeout(5_000) });
      if (r.ok) {
        await r.arrayBuffer();
        return server;
      }
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`next start did not answer /cases within 90 s:\n${tail(log)}`);
}

const servers = new Set<Server>();

function killGroup(s: Server, sig: NodeJS.Signals) {
  if (s.child.pid === undefined) return;
  try {
    process.kill(-s.child.pid, sig);
  } catch {
    // already gone
  }
}

export async function stopServer(s: Server): Promise<void> {
  if (!servers.delete(s)) return;
  const gone = new Promise<void>((r) => (s.child.exitCode !== null || s.child.signalCode !== null ? r() : s.child.once("exit", () => r())));
  killGroup(s, "SIGTERM");
  const timer = setTimeout(() => killGroup(s, "SIGKILL"), 5_000);
  await gone;
  clearTimeout(timer);
  killGroup(s, "SIGKILL"); // stragglers in the group
}

// Last resort (e.g. Ctrl-C, uncaught error): never leave a server behind.
process.on("exit", () => {
  for (const s of servers) killGroup(s, "SIGKILL");
});
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    for (const s of servers) killGroup(s, "SIGKILL");
    process.exit(130);
  });
}

// ---------------------------------------------------------------------------------------------
// the page side

/** Init script (runs before any page script): first trace node, detail panel, long tasks. */
function pageProbe(arg: { nodeId: string }) {
  type Probe = {
    nodeInDom: number | null;
    nodeInDomRaf: number | null;
    detail: number | null;
    longTasks: Array<{ start: number; dur: number }>;
    frames: number[] | null;
    keyAt: number;
  };
  const w = window as unknown as { __bench: Probe };
  const b: Probe = { nodeInDom: null, nodeInDomRaf: null, detail: null, longTasks: [], frames: null, keyAt: 0 };
  w.__bench = b;
  const detailSel = `[data-testid="node-detail"][data-node-id="${CSS.escape(arg.nodeId)}"]`;
  const check = () => {
    if (b.nodeInDom === null) {
      for (const el of document.querySelectorAll<HTMLElement>("[data-testid=graph-node]")) {
        if (el.style.visibility !== "hidden") {
          b.nodeInDom = performance.now();
          requestAnimationFrame(() => (b.nodeInDomRaf = performance.now()));
          break;
        }
      }
    }
    if (b.detail === null && document.querySelector(detailSel)) b.detail = performance.now();
    if (b.nodeInDom !== null && b.detail !== null) mo.disconnect();
  };
  const mo = new MutationObserver(check);
  mo.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["style", "data-node-id"] });
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) b.longTasks.push({ start: e.startTime, dur: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    // no long task API
  }
  window.addEventListener("keydown", () => (b.keyAt = performance.now()), true);
}

async function collectLoad(page: Page) {
  return page.evaluate(() => {
    const b = (window as unknown as { __bench: { nodeInDom: number | null; nodeInDomRaf: number | null; detail: number | null; longTasks: Array<{ start: number; dur: number }> } }).__bench;
    const mark = performance.getEntriesByName("symtrace:graph-rendered")[0] as PerformanceMark | undefined;
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    const res = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
    const js = res.filter((r) => r.initiatorType === "script" || /\.js(\?|$)/.test(r.name));
    const paint = mark?.startTime ?? null;
    const before = paint === null ? b.longTasks : b.longTasks.filter((t) => t.start < paint);
    let flightChars = 0;
    for (const s of document.querySelectorAll("script:not([src])")) if (s.textContent?.includes("__next_f")) flightChars += s.textContent.length;
    return {
      nodeInDomMs: b.nodeInDomRaf ?? b.nodeInDom,
      firstPaintMs: paint,
      markNodes: ((mark?.detail as { nodes?: number } | null)?.nodes ?? null) as number | null,
      layoutMs: ((window as unknown as { __symtraceLayoutMs?: number }).__symtraceLayoutMs ?? null) as number | null,
      rendered: document.querySelectorAll("[data-testid=graph-node]").length,
      detailMs: b.detail,
      requestMs: nav.requestStart,
      ttfbMs: nav.responseStart,
      htmlDoneMs: nav.responseEnd,
      domInteractiveMs: nav.domInteractive,
      dclMs: nav.domContentLoadedEventEnd,
      htmlBytes: nav.decodedBodySize,
      flightChars,
      jsBytes: js.reduce((s, r) => s + (r.decodedBodySize || 0), 0),
      jsFiles: js.length,
      longTasksBeforePaint: before.length,
      longTaskMsBeforePaint: before.reduce((s, t) => s + t.dur, 0),
      maxLongTaskMs: b.longTasks.reduce((m, t) => Math.max(m, t.dur), 0),
    };
  });
}

/** A point on the graph pane that is not on a trace node, the minimap, controls or lane header. */
async function panePoint(page: Page): Promise<{ x: number; y: number }> {
  const p = await page.evaluate(() => {
    const g = document.querySelector('[data-testid="trace-graph"]')!.getBoundingClientRect();
    const cx = g.left + g.width / 2;
    for (let dy = 0; dy < g.height / 3; dy += 7) {
      for (const sy of [1, -1]) {
        for (let dx = 0; dx < g.width / 3; dx += 11) {
          for (const sx of [1, -1]) {
            const x = cx + sx * dx;
            const y = g.top + g.height / 2 + sy * dy;
            const el = document.elementFromPoint(x, y);
            if (!el || !el.closest("[data-testid=graph-canvas]")) continue;
            if (el.closest("[data-testid=graph-node], [data-testid=lane-headers], button, [data-testid=overview-map]")) continue;
            return { x, y };
          }
        }
      }
    }
    return { x: cx, y: g.top + g.height / 2 };
  });
  return p;
}

/**
 * Start recording frame times into `window[global].frames` (one entry per animation frame, ms since
 * the previous one) until that array is replaced.
 */
export async function recordFrames(page: Page, global: string) {
  await page.evaluate((name) => {
    const b = (window as unknown as Record<string, { frames: number[] | null }>)[name];
    const frames: number[] = [];
    b.frames = frames;
    let last = performance.now();
    const loop = (t: number) => {
      if (b.frames !== frames) return;
      frames.push(t - last);
      last = t;
      requestAnimationFrame(loop);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(loop);
    });
  }, global);
}

async function measurePan(page: Page) {
  const start = await panePoint(page);
  await recordFrames(page, "__bench");
  await sleep(100);
  const t0 = performance.now();
  for (const dir of [-1, 1]) {
    // drag up (content moves up: later nodes come into view), then back down
    let y = start.y;
    await page.mouse.move(start.x, y);
    await page.mouse.down();
    const begin = performance.now();
    for (let i = 1; i <= PAN_MOVES; i++) {
      y += dir * 15;
      await page.mouse.move(start.x, y);
      const wait = begin + i * 25 - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await page.mouse.up();
    await sleep(150);
  }
  await sleep(200);
  const durationMs = performance.now() - t0;
  const frames = await page.evaluate(() => {
    const b = (window as unknown as { __bench: { frames: number[] | null } }).__bench;
    const f = b.frames ?? [];
    b.frames = null;
    return f;
  });
  const total = frames.reduce((s, x) => s + x, 0);
  return {
    frames: frames.length,
    medianMs: median(frames),
    p95Ms: quantile(frames, 0.95),
    longFrames: frames.filter((f) => f > LONG_FRAME_MS).length,
    avgFps: total > 0 ? (frames.length * 1000) / total : NaN,
    durationMs,
  };
}

async function measureWalk(page: Page, c: BenchCase): Promise<{ meanMs: number | null; commitMs: number | null; steps: number }> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur?.());
  // In the page: a MutationObserver notes when the timeline row of the wanted node turns
  // aria-selected (React committed), then the next animation frame (painted); both from the keydown.
  await page.evaluate(() => {
    const b = (window as unknown as { __bench: { want: string | null; commitAt: number | null; frameAt: number | null } }).__bench;
    b.want = null;
    const mo = new MutationObserver(() => {
      if (b.want === null || b.commitAt !== null) return;
      if (!document.querySelector(`[role="option"][aria-selected="true"][data-node-id="${CSS.escape(b.want)}"]`)) return;
      b.commitAt = performance.now();
      requestAnimationFrame(() => (b.frameAt = performance.now()));
    });
    mo.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-selected"] });
  });
  let pos = c.order.indexOf(c.middle);
  let dir = 1;
  const frames: number[] = [];
  const commits: number[] = [];
  for (let i = 0; i < J_STEPS && c.total > 1; i++) {
    if (pos + dir < 0 || pos + dir >= c.total) dir = -dir;
    pos += dir;
    await page.evaluate((id) => {
      const b = (window as unknown as { __bench: { want: string | null; commitAt: number | null; frameAt: number | null } }).__bench;
      b.want = id;
      b.commitAt = null;
      b.frameAt = null;
    }, c.order[pos]);
    await page.keyboard.press(dir > 0 ? "j" : "k");
    const handle = await page.waitForFunction(
      () => {
        const b = (window as unknown as { __bench: { keyAt: number; commitAt: number | null; frameAt: number | null } }).__bench;
        return b.frameAt !== null && b.commitAt !== null ? [b.commitAt - b.keyAt, b.frameAt - b.keyAt] : false;
      },
      undefined,
      { polling: 20, timeout: 10_000 },
    );
    const [commit, frame] = (await handle.jsonValue()) as [number, number];
    await handle.dispose();
    commits.push(commit);
    frames.push(frame);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : null);
  return { meanMs: mean(frames), commitMs: mean(commits), steps: frames.length };
}

/** The account the benchmark browses as: case pages need a signed-in user (researcher role). */
export const BENCH_USER = { email: "bench-researcher@symtrace.local", password: "bench-password-1" };

/**
 * Sign the browser context in through better-auth's email endpoint (its session cookie is shared by
 * the context's pages). Throws with the server's answer when sign-in fails.
 */
export async function signInContext(context: BrowserContext, baseUrl: string): Promise<void> {
  const r = await context.request.post(`${baseUrl}/api/auth/sign-in/email`, { data: BENCH_USER, headers: { origin: baseUrl } });
  if (!r.ok()) throw new Error(`bench sign-in as ${BENCH_USER.email} failed: HTTP ${r.status()} ${await r.text()}`);
}

async function oneRun(browser: Browser, baseUrl: string, c: BenchCase, run: number, traceDir: string | null): Promise<RunResult> {
  const context: BrowserContext = await browser.newContext({ viewport: VIEWPORT });
  try {
    await signInContext(context, baseUrl);
    const page = await context.newPage();
    // tsx (esbuild keepNames) wraps named inner functions in __name(...): give the page a no-op.
    await page.addInitScript({ content: "globalThis.__name = globalThis.__name || ((f) => f);" });
    await page.addInitScript(pageProbe, { nodeId: c.middle });
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable", { timeDomain: "timeTicks" });
    const tracing = traceDir !== null && run === 1;
    if (tracing) {
      await browser.startTracing(page, {
        path: path.join(traceDir, `trace-${c.label}.json`),
        screenshots: false,
        categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "v8.execute", "disabled-by-default-v8.cpu_profiler", "loading"],
      });
    }
    await page.goto(`${baseUrl}/cases/${encodeURIComponent(c.bundleId)}?node=${encodeURIComponent(c.middle)}`, { waitUntil: "commit", timeout: 60_000 });
    await page.waitForFunction(() => performance.getEntriesByName("symtrace:graph-rendered").length > 0, undefined, { timeout: 60_000 });
    await page.locator(`[data-testid="node-detail"][data-node-id="${c.middle.replace(/"/g, '\\"')}"]`).waitFor({ timeout: 60_000 });
    await sleep(500); // let the first viewport moves settle
    const load = await collectLoad(page);
    const metrics = Object.fromEntries(((await cdp.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));
    if (tracing) await browser.stopTracing();
    const pan = await measurePan(page);
    const walk = await measureWalk(page, c);
    return {
      run,
      ...load,
      scriptMs: (metrics.ScriptDuration ?? 0) * 1000,
      layoutDurMs: (metrics.LayoutDuration ?? 0) * 1000,
      styleMs: (metrics.RecalcStyleDuration ?? 0) * 1000,
      heapMb: (metrics.JSHeapUsedSize ?? 0) / 1e6,
      pan,
      jStepMs: walk.meanMs,
      jCommitMs: walk.commitMs,
      jSteps: walk.steps,
    };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------------------------------------
// main

export async function runInspectorBench(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
  const tracing = process.env.BENCH_TRACE === "1";
  const keep = process.env.BENCH_KEEP === "1" || tracing;
  const shared = path.resolve(process.env.SYMTRACE_SHARED_DIR ?? path.join(ROOT, "../shared"));
  const tmp = mkdtempSync(path.join(os.tmpdir(), "symtrace-bench-inspector-"));
  const url = `file:${path.join(tmp, "bench.db")}`;
  let server: Server | null = null;
  let browser: Browser | null = null;
  try {
    // 1. database: 4,001-node synthetic + gold-c2
    await migrate(url);
    const { db } = openDb(url);
    const cases: BenchCase[] = [];
    try {
      await upsertUser(db, { email: BENCH_USER.email, name: "Bench researcher", roles: ["researcher"], password: BENCH_USER.password });
      const big = syntheticBundle({ id: "bench/synthetic-4001", turns: 1000, taskNode: false, seed: 42 });
      const goldFile = path.join(shared, "fixtures/bundles/gold-c2.bundle.json");
      const parsed = validateBundle(parseJsonText(readFileSync(goldFile, "utf8")));
      if (!parsed.ok) throw new Error(`${goldFile}: ${parsed.issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`).join("; ")}`);
      for (const [label, bundle] of [
        ["synthetic-4001", big],
        ["gold-c2", parsed.bundle],
      ] as const) {
        const { caseId } = await importCase(db, { bundle });
        const g = await getCaseGraph(db, { caseId });
        const order = g.nodes.map((n) => n.id);
        cases.push({ label, bundleId: bundle.id, order, total: order.length, middle: order[Math.floor(order.length / 2)] });
      }
    } finally {
      await db.$disconnect();
    }

    // 2. production build + server
    const build = await ensureBuild(tmp);
    server = await startServer(tmp, url);

    // 3. the browser
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const results = new Map<string, RunResult[]>();
    for (const c of cases) {
      const rs: RunResult[] = [];
      for (let r = 1; r <= runs; r++) rs.push(await oneRun(browser, server.url, c, r, tracing ? tmp : null));
      results.set(c.label, rs);
    }

    // 4. report
    const summary = cases.map((c) => {
      const rs = results.get(c.label)!;
      const panMedian = med(rs.map((r) => r.pan.medianMs));
      return {
        case: c.label,
        bundleId: c.bundleId,
        nodes: c.total,
        first_paint_ms: med(rs.map((r) => r.firstPaintMs)),
        first_paint_cold_ms: rs[0].firstPaintMs,
        first_paint_warm_ms: med(rs.slice(1).map((r) => r.firstPaintMs)),
        node_in_dom_ms: med(rs.map((r) => r.nodeInDomMs)),
        layout_ms: med(rs.map((r) => r.layoutMs)),
        rendered: med(rs.map((r) => r.rendered)),
        detail_ms: med(rs.map((r) => r.detailMs)),
        pan_median_ms: panMedian,
        pan_p95_ms: med(rs.map((r) => r.pan.p95Ms)),
        pan_fps: panMedian ? 1000 / panMedian : null,
        pan_avg_fps: med(rs.map((r) => r.pan.avgFps)),
        pan_long_frames: med(rs.map((r) => r.pan.longFrames)),
        pan_frames: med(rs.map((r) => r.pan.frames)),
        j_step_ms: med(rs.map((r) => r.jStepMs)),
        j_commit_ms: med(rs.map((r) => r.jCommitMs)),
        j_steps: rs[0].jSteps,
        request_ms: med(rs.map((r) => r.requestMs)),
        ttfb_ms: med(rs.map((r) => r.ttfbMs)),
        html_done_ms: med(rs.map((r) => r.htmlDoneMs)),
        dom_interactive_ms: med(rs.map((r) => r.domInteractiveMs)),
        dcl_ms: med(rs.map((r) => r.dclMs)),
        html_kb: (med(rs.map((r) => r.htmlBytes)) ?? 0) / 1024,
        flight_kb: (med(rs.map((r) => r.flightChars)) ?? 0) / 1024,
        js_kb: (med(rs.map((r) => r.jsBytes)) ?? 0) / 1024,
        js_files: med(rs.map((r) => r.jsFiles)),
        script_ms: med(rs.map((r) => r.scriptMs)),
        layout_dur_ms: med(rs.map((r) => r.layoutDurMs)),
        style_ms: med(rs.map((r) => r.styleMs)),
        long_tasks_before_paint: med(rs.map((r) => r.longTasksBeforePaint)),
        long_task_ms_before_paint: med(rs.map((r) => r.longTaskMsBeforePaint)),
        max_long_task_ms: med(rs.map((r) => r.maxLongTaskMs)),
        heap_mb: med(rs.map((r) => r.heapMb)),
        runs: rs,
      };
    });

    const browserVersion = browser.version();
    console.log(
      `inspector benchmark (${runs} run${runs === 1 ? "" : "s"} per case, fresh context each; run 1 cold server; Chromium ${browserVersion} headless --disable-gpu ${VIEWPORT.width}x${VIEWPORT.height}; build ${build}; ${os.cpus().length} cpus)`,
    );
    const head = ["case", "nodes", "1st paint", "cold", "warm", "in DOM", "layout", "rendered", "detail", "pan med/p95", "fps", "long", "j-step"];
    const rows = summary.map((s) => [
      s.case,
      String(s.nodes),
      `${fmt(s.first_paint_ms)} ms`,
      fmt(s.first_paint_cold_ms),
      fmt(s.first_paint_warm_ms),
      fmt(s.node_in_dom_ms),
      `${fmt(s.layout_ms, 1)} ms`,
      `${fmt(s.rendered)}/${s.nodes}`,
      `${fmt(s.detail_ms)} ms`,
      `${fmt(s.pan_median_ms, 1)}/${fmt(s.pan_p95_ms, 1)} ms`,
      fmt(s.pan_fps, 0),
      fmt(s.pan_long_frames),
      `${fmt(s.j_step_ms, 1)} ms`,
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => "  " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log("  where the time goes (medians): request sent / ttfb / html done / domInteractive / DCL ms; html KB (RSC flight KB); JS KB (files); script / layout / style ms; long tasks before paint");
    for (const s of summary) {
      console.log(
        `  ${s.case.padEnd(widths[0])}  ${fmt(s.request_ms)} / ${fmt(s.ttfb_ms)} / ${fmt(s.html_done_ms)} / ${fmt(s.dom_interactive_ms)} / ${fmt(s.dcl_ms)} ms; ` +
          `html ${fmt(s.html_kb)} KB (flight ${fmt(s.flight_kb)} KB); js ${fmt(s.js_kb)} KB (${fmt(s.js_files)}); ` +
          `script ${fmt(s.script_ms)} / layout ${fmt(s.layout_dur_ms)} / style ${fmt(s.style_ms)} ms; ` +
          `${fmt(s.long_tasks_before_paint)} long tasks = ${fmt(s.long_task_ms_before_paint)} ms (max ${fmt(s.max_long_task_ms)}); heap ${fmt(s.heap_mb, 1)} MB`,
      );
    }
    console.log(`  j-step: keydown -> next frame after the timeline row is selected (React commit: ${summary.map((s) => `${s.case} ${fmt(s.j_commit_ms, 1)} ms`).join(", ")})`);
    console.log("  per run: first paint ms (in DOM; ttfb) [pan median/p95, long frames]");
    for (const s of summary) {
      console.log(
        `  ${s.case.padEnd(widths[0])}  ` +
          s.runs.map((r) => `#${r.run}${r.run === 1 ? " cold" : ""}: ${fmt(r.firstPaintMs)} (${fmt(r.nodeInDomMs)}; ttfb ${fmt(r.ttfbMs)}) [${fmt(r.pan.medianMs, 1)}/${fmt(r.pan.p95Ms, 1)}, ${r.pan.longFrames}]`).join("  "),
      );
    }
    const big = summary[0];
    const paintMet = big.first_paint_ms !== null && big.first_paint_ms < GOAL_FIRST_PAINT_MS;
    const fpsMet = big.pan_fps !== null && big.pan_fps >= GOAL_FPS;
    console.log(
      `  goals (${big.case}): first graph paint < ${GOAL_FIRST_PAINT_MS} ms: ${paintMet ? "met" : "NOT met"}; panning >= ${GOAL_FPS} fps: ${fpsMet ? "met" : "NOT met"}`,
    );
    if (keep) console.error(`bench: kept ${tmp}`);
    console.log(
      JSON.stringify({
        bench: "inspector",
        goal_first_paint_ms: GOAL_FIRST_PAINT_MS,
        goal_fps: GOAL_FPS,
        first_paint_goal_met: paintMet,
        fps_goal_met: fpsMet,
        runs,
        build,
        chromium: browserVersion,
        cpus: os.cpus().length,
        cases: summary.map(({ runs: _runs, ...s }) =>
          Object.fromEntries(Object.entries(s).map(([k, v]) => [k, typeof v === "number" ? rnd(v, k.endsWith("fps") || k.endsWith("_kb") || k === "layout_ms" ? 1 : k.startsWith("pan_") || k.startsWith("j_") ? 1 : 0) : v])),
        ),
      }),
    );
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) await stopServer(server);
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  runInspectorBench().catch((e) => {
    console.error(`bench-inspector: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  });
}
