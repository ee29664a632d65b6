/**
 * OTLP/HTTP receiver benchmark (issue 16 item 5): sustained spans/s into SQLite.
 *
 * A receiver process (scripts/otlp-serve.ts: the app's receiveOtlpTraces behind a node http
 * server) on a fresh migrated SQLite database; this process sends pre-encoded protobuf
 * ExportTraceServiceRequests of BENCH_OTLP_BATCH spans (default 512, the BatchSpanProcessor's
 * maxExportBatchSize) with BENCH_OTLP_CONCURRENCY requests in flight (default 4: several
 * exporters), BENCH_OTLP_SPANS spans in all (default 200,000; smoke 5,120). Spans are OpenInference
 * LLM/TOOL/AGENT spans of 64-span traces with realistic attributes (~1 KB each as protobuf).
 * Every request must be answered 200; afterwards the stored span count must equal the spans sent.
 * Goal: >= 20,000 spans/s (the OpenTelemetry Collector moves ~24,000 spans/s on 2 CPUs without
 * storing anything). A gzip pass (Content-Encoding: gzip, BENCH_OTLP_GZIP=0 skips it) follows.
 *
 * Prints an aligned table and one JSON line `{"bench":"otlp",...}`. Called by scripts/bench.ts
 * (BENCH_OTLP=0 skips it); alone:
 *   node --import tsx -e "import('./scripts/bench-otlp.ts').then(m=>m.runOtlpBench())"
 * BENCH_OTLP_PORT (default 4730) is the receiver's port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { gzipSync } from "node:zlib";
import { openDb } from "../lib/db/client";
import { createApiKey } from "../lib/db/api-keys";
import { migrate } from "../lib/db/migrate";
import { encodeProtobufRequest } from "../lib/otlp/codec";

const GOAL = 20_000;
const ROOT = path.resolve(import.meta.dirname, "..");

type Span = Record<string, unknown>;
const s = (key: string, v: string) => ({ key, value: { stringValue: v } });
const n = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

/** Span `i` of trace `t`: every 64-span trace = 1 AGENT root + 21 x (LLM, TOOL, LLM-ish) children. */
export function benchSpan(t: number, i: number, base: bigint): Span {
  const traceId = (t + 1).toString(16).padStart(32, "0");
  const spanId = (t * 64 + i + 1).toString(16).padStart(16, "0");
  const rootId = (t * 64 + 1).toString(16).padStart(16, "0");
  const start = base + BigInt(t) * 1_000_000_000n + BigInt(i) * 10_000_000n;
  const common = { traceId, spanId, kind: 1, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 9_000_000n), status: { code: 1 } };
  if (i === 0) return { ...common, name: "Orchestrator", attributes: [s("openinference.span.kind", "AGENT"), s("agent.name", "Orchestrator"), s("input.value", `task ${t}: plan the trip and compute the total`)] };
  const parent = { parentSpanId: rootId };
  if (i % 3 === 2) {
    return { ...common, ...parent, name: "calculator", attributes: [s("openinference.span.kind", "TOOL"), s("tool.name", "calculator"), s("input.value", `{"expression":"${i}*6+3"}`), s("output.value", String(i * 6 + 3))] };
  }
  return {
    ...common,
    ...parent,
    name: "ChatCompletion",
    attributes: [
      s("openinference.span.kind", "LLM"),
      s("llm.model_name", "gpt-4o-mini-2024-07-18"),
      s("llm.invocation_parameters", '{"model":"gpt-4o-mini","temperature":0}'),
      s("llm.input_messages.0.message.role", "system"),
      s("llm.input_messages.0.message.content", "You are the Orchestrator of a team. Decide the next step, delegate to a worker or answer."),
      s("llm.input_messages.1.message.role", "user"),
      s("llm.input_messages.1.message.content", `Step ${i} of task ${t}: what does entry cost for 2 adults and 3 children, and when does it open on Saturday?`),
      s("llm.output_messages.0.message.role", "assistant"),
      s("llm.output_messages.0.message.content", `Step ${i}: delegate the price lookup to WebSurfer, then compute the total with the calculator (adult 6.00, child 3.00).`),
      n("llm.token_count.prompt", 120 + i),
      n("llm.token_count.completion", 40),
      n("llm.token_count.total", 160 + i),
    ],
  };
}

/**
 * Pre-encoded request bodies: `total` spans in batches of `batch`, traces of 64 spans, span
 * numbers from `first` (so another call with `first` = an earlier total gives new spans).
 */
export function benchBodies(total: number, batch: number, first = 0): { bodies: Uint8Array[]; spans: number; bytes: number } {
  const base = 1_767_000_000_000_000_000n;
  const bodies: Uint8Array[] = [];
  let bytes = 0;
  for (let k = first; k < first + total; k += batch) {
    const spans: Span[] = [];
    for (let j = k; j < Math.min(first + total, k + batch); j++) spans.push(benchSpan(Math.floor(j / 64), j % 64, base));
    const body = encodeProtobufRequest({
      resourceSpans: [{ resource: { attributes: [s("service.name", "bench-agents"), s("telemetry.sdk.language", "nodejs")] }, scopeSpans: [{ scope: { name: "@arizeai/openinference-instrumentation-openai", version: "4.2.7" }, spans }] }],
    });
    bodies.push(body);
    bytes += body.byteLength;
  }
  return { bodies, spans: total, bytes };
}

/** Start scripts/otlp-serve.ts on `port` with DATABASE_URL = `url`; resolves when it listens. */
export async function startReceiverProcess(url: string, port: number, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "--import", "tsx", path.join(ROOT, "scripts/otlp-serve.ts"), String(port)], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, SYMTRACE_OTLP_ASSEMBLER: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const base = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once("line", (line) => {
      try {
        resolve((JSON.parse(line) as { listening: string }).listening);
      } catch {
        reject(new Error(`receiver: unexpected output ${line}`));
      }
    });
    child.once("exit", (code) => reject(new Error(`receiver exited with ${code} before listening`)));
  });
  return { child, base };
}

/** Send every body with `concurrency` in flight; every answer must be 200. Returns per-request latencies (ms). */
async function sendAll(base: string, key: string, bodies: Uint8Array[], concurrency: number, gzip: boolean): Promise<number[]> {
  const lat: number[] = [];
  let next = 0;
  const headers: Record<string, string> = { "content-type": "application/x-protobuf", authorization: `Bearer ${key}`, ...(gzip ? { "content-encoding": "gzip" } : {}) };
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= bodies.length) return;
      const t0 = performance.now();
      const r = await fetch(`${base}/v1/traces`, { method: "POST", headers, body: bodies[i] as BodyInit });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`request ${i}: HTTP ${r.status}`);
      lat.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return lat;
}

/** CPU seconds (user + system) a process has used so far (Linux /proc; null elsewhere). */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

export async function runOtlpBench(): Promise<void> {
  const total = Number(process.env.BENCH_OTLP_SPANS ?? 200_000);
  const batch = Number(process.env.BENCH_OTLP_BATCH ?? 512);
  const concurrency = Number(process.env.BENCH_OTLP_CONCURRENCY ?? 4);
  const port = Number(process.env.BENCH_OTLP_PORT ?? 4730);
  const doGzip = process.env.BENCH_OTLP_GZIP !== "0";
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-bench-otlp-"));
  const results: Array<{ pass: string; spans: number; ms: number; rate: number; p50: number; p95: number; mb: number; cpuS: number | null }> = [];
  let child: ChildProcess | null = null;
  try {
    const t0 = performance.now();
    const { bodies, bytes } = benchBodies(total, batch);
    const encodeMs = performance.now() - t0;
    const passes: Array<{ pass: string; gzip: boolean; bodies: Uint8Array[]; bytes: number }> = [{ pass: "protobuf", gzip: false, bodies, bytes }];
    if (doGzip) {
      // the same spans under other trace ids (a new trace set), gzip-compressed
      const second = benchBodies(total, batch, total).bodies.map((b) => gzipSync(b));
      passes.push({ pass: "protobuf+gzip", gzip: true, bodies: second, bytes: second.reduce((a, b) => a + b.byteLength, 0) });
    }
    const url = `file:${path.join(dir, "otlp.db")}`;
    await migrate(url);
    const { db } = openDb(url);
    const { key } = await createApiKey(db, { name: "bench" });
    const started = await startReceiverProcess(url, port);
    child = started.child;
    // warm-up: one request (JIT, connection), not counted; its spans are of trace ids not used after
    await sendAll(started.base, key, [benchBodies(batch, batch).bodies[0]], 1, false);
    for (const p of passes) {
      const c0 = cpuSecondsOf(child.pid);
      const s0 = performance.now();
      const lat = await sendAll(started.base, key, p.bodies, concurrency, p.gzip);
      const ms = performance.now() - s0;
      const c1 = cpuSecondsOf(child.pid);
      results.push({ pass: p.pass, spans: total, ms, rate: (total / ms) * 1000, p50: pct(lat, 50), p95: pct(lat, 95), mb: p.bytes / 1e6, cpuS: c0 !== null && c1 !== null ? c1 - c0 : null });
    }
    const expected = total * passes.length;
    const stored = await db.otlpSpan.count();
    await db.$disconnect();
    // the warm-up's spans are the first batch of the protobuf pass (re-sent spans replace their copy)
    if (stored !== expected) throw new Error(`stored ${stored} spans, expected ${expected}: spans were lost`);
    const load = os.loadavg()[0];
    console.log(`OTLP receiver benchmark (SQLite, batches of ${batch} spans, ${concurrency} in flight, node ${process.version}, ${os.cpus().length} cpus, load average ${load.toFixed(1)}; encoding ${bodies.length} requests took ${encodeMs.toFixed(0)} ms, not counted)`);
    for (const r of results) {
      console.log(
        `  ${r.pass.padEnd(14)} ${String(r.spans).padStart(8)} spans  ${r.ms.toFixed(0).padStart(7)} ms  ${r.rate.toFixed(0).padStart(7)} spans/s  p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms per request  ${r.mb.toFixed(1)} MB sent  ${r.rate >= GOAL ? `goal >= ${GOAL}: met` : `goal >= ${GOAL}: NOT met`}${r.cpuS ? `  (receiver CPU ${r.cpuS.toFixed(1)} s = ${Math.round(r.spans / r.cpuS)} spans per CPU-second)` : ""}`,
      );
    }
    console.log(`  stored: ${stored} spans (every span answered 200 is in the database)`);
    console.log(
      JSON.stringify({
        bench: "otlp",
        goal_spans_per_s: GOAL,
        spans_per_s: Math.round(results[0].rate),
        goal_met: results[0].rate >= GOAL,
        gzip_spans_per_s: results[1] ? Math.round(results[1].rate) : null,
        spans_per_receiver_cpu_s: results[0].cpuS ? Math.round(total / results[0].cpuS) : null,
        load_average: Number(load.toFixed(1)),
        spans: total,
        batch,
        concurrency,
        p50_ms: Number(results[0].p50.toFixed(1)),
        p95_ms: Number(results[0].p95.toFixed(1)),
        stored,
        node: process.version,
        cpus: os.cpus().length,
        smoke: process.env.BENCH_SMOKE === "1",
      }),
    );
  } finally {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child!.once("exit", r));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
