/**
 * Replay benchmark (`runReplayBench()`; the lead wires it into `npm run bench`).
 *
 * (a) lib/replay matching throughput: a recorded bundle of N LLM boundary records whose requests
 *     are ~5 KB chat-completions bodies (growing conversations, one tool schema) is replayed in
 *     memory through `ReplaySession.begin` with no target (verify everything): per event the
 *     request is normalized, canonicalized (RFC 8785), hashed, matched against records[j], and the
 *     materialized llm_call / agent_action node hashes are checked. Goal ≥ 20,000 events/s
 *     (../shared/docs/measurements.md: canonicalize + sha256 of 5.4 KB alone is 26,500–42,300/s).
 * (b) proxy overhead: the same non-streaming request sent M times directly to a local
 *     OpenAI-compatible endpoint (lib/testing/scripted-openai.ts) and M times through the record
 *     proxy (proxy/) in front of it; reports the mean ms per call and the ratio.
 *
 *     Also measured at the same moment: lib/bundle `hashRequest` alone on the same requests
 *     (`baselineHashPerSec`), since absolute rates swing 2x with machine load; replay uses its own
 *     faster JCS serializer (lib/replay/canonical.ts), so `relativeToBaseline` can exceed 1.
 * Prints an aligned summary on stderr and one JSON line on stdout:
 * `{"bench":"replay","events":N,"eventsPerSec":...,"requestBytes":...,"goalEventsPerSec":20000,
 *   "proxyCalls":M,"directMsPerCall":...,"proxyMsPerCall":...,"proxyOverheadRatio":...}`.
 * Env: BENCH_REPLAY_EVENTS (default 20000), BENCH_REPLAY_CALLS (default 300).
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildBundle, hashRequest, type NodeDraft, type RecordDraft } from "../lib/bundle";
import { RECORDER_ID, RecordSession, ReplaySession, agentActionContent, llmCallContent } from "../lib/replay";
import { startScriptedOpenAI } from "../lib/testing/scripted-openai";
import { startBoundaryProxy } from "../proxy";

const GOAL = 20_000;

function bigRequest(i: number): Record<string, unknown> {
  const messages = [{ role: "system", content: "You are WebSurfer, a worker agent that reads the Lindenbrook city parks website. ".repeat(6) }];
  for (let k = 0; k < 10; k++) messages.push({ role: k % 2 ? "assistant" : "user", content: `turn ${i}.${k}: ` + "the quick brown fox jumps over the lazy dog; ".repeat(8) });
  messages.push({ role: "user", content: `step ${i}` });
  return {
    model: "bench-model",
    temperature: 0,
    messages,
    tools: [{ type: "function", function: { name: "fetch_page", description: "Fetch one page of the website by path.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }],
  };
}

function benchBundle(n: number) {
  const nodes: NodeDraft[] = [];
  const records: RecordDraft[] = [];
  const edges: { from: string; to: string; kind: "data" | "control" }[] = [];
  const requests: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const id = String(i).padStart(4, "0");
    const request = bigRequest(i);
    requests.push(request);
    const response = { id: `c${i}`, object: "chat.completion", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `answer ${i}` } }] };
    nodes.push({ id: `llm_call_${id}`, type: "llm_call", content: llmCallContent(request, hashRequest(request), { response }) });
    nodes.push({ id: `agent_action_${id}`, type: "agent_action", content: agentActionContent(response) });
    edges.push({ from: `llm_call_${id}`, to: `agent_action_${id}`, kind: "data" });
    if (i > 0) edges.push({ from: `agent_action_${String(i - 1).padStart(4, "0")}`, to: `llm_call_${id}`, kind: "data" });
    records.push({ nodeId: `llm_call_${id}`, boundary: "llm", request, response });
  }
  const bundle = buildBundle({ id: "bench/replay", task: { prompt: "" }, config: { replay: { normalization: "openai-chat-v1", recorder: RECORDER_ID } }, nodes, edges, records });
  return { bundle, requests };
}

/**
 * Run both measurements and print the summary and the JSON line.
 * @returns the JSON object printed
 * @throws Error when replay does not match every event (a bug)
 */
export async function runReplayBench(): Promise<Record<string, unknown>> {
  const N = Number(process.env.BENCH_REPLAY_EVENTS ?? 20_000);
  const M = Number(process.env.BENCH_REPLAY_CALLS ?? 300);
  const distinct = Math.min(N, 2_000);
  const { bundle, requests } = benchBundle(distinct);
  const requestBytes = Math.round(requests.reduce((s, r) => s + JSON.stringify(r).length, 0) / requests.length);
  // Each pass replays the whole recording; the MAS's raw requests carry per-run fields the
  // normalization drops (so normalization is exercised, not skipped).
  const raw = requests.map((r, i) => ({ ...r, user: `u${i}`, stream_options: { include_usage: true } }));
  let events = 0;
  const t0 = performance.now();
  while (events < N) {
    const s = new ReplaySession({ source: bundle });
    for (let i = 0; i < distinct && events < N; i++, events++) {
      const step = s.begin({ boundary: "llm", request: raw[i] });
      if (step.kind !== "recorded") throw new Error(`bench replay diverged at ${i}: ${step.kind === "diverged" ? step.report.message : step.kind}`);
    }
  }
  const replayMs = performance.now() - t0;
  const eventsPerSec = Math.round((events / replayMs) * 1000);
  // Baseline in the same process and moment (the machine is shared and noisy): lib/bundle's
  // hashRequest (canonicalize + sha256) alone on the same requests.
  let hashed = 0;
  const tb = performance.now();
  while (hashed < N) for (let i = 0; i < distinct && hashed < N; i++, hashed++) hashRequest(requests[i]);
  const baselineHashPerSec = Math.round((hashed / (performance.now() - tb)) * 1000);

  // Proxy overhead against a local endpoint.
  const upstream = await startScriptedOpenAI({ respond: () => ({ content: "ok" }) });
  const session = new RecordSession({ id: "bench/proxy", task: { prompt: "" } });
  const proxy = await startBoundaryProxy({ session, upstream: upstream.url });
  const body = JSON.stringify(bigRequest(0));
  const call = async (base: string) => {
    const r = await fetch(`${base}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
    await r.json();
  };
  const timeCalls = async (base: string) => {
    for (let i = 0; i < 20; i++) await call(base); // warm-up
    const t = performance.now();
    for (let i = 0; i < M; i++) await call(base);
    return (performance.now() - t) / M;
  };
  let directMs: number;
  let proxyMs: number;
  try {
    directMs = await timeCalls(upstream.url);
    proxyMs = await timeCalls(proxy.llmUrl);
  } finally {
    await proxy.close();
    await upstream.close();
  }
  const result = {
    bench: "replay",
    events,
    replayMs: Math.round(replayMs),
    eventsPerSec,
    requestBytes,
    goalEventsPerSec: GOAL,
    goalMet: eventsPerSec >= GOAL,
    baselineHashPerSec,
    relativeToBaseline: Number((eventsPerSec / baselineHashPerSec).toFixed(2)),
    proxyCalls: M,
    directMsPerCall: Number(directMs.toFixed(3)),
    proxyMsPerCall: Number(proxyMs.toFixed(3)),
    proxyOverheadRatio: Number((proxyMs / directMs).toFixed(2)),
  };
  process.stderr.write(
    [
      `replay matching   ${events} events of ~${requestBytes} B in ${result.replayMs} ms = ${eventsPerSec}/s (goal >= ${GOAL}/s: ${result.goalMet ? "met" : "NOT met"}); canonicalize+sha256 alone: ${baselineHashPerSec}/s (x${result.relativeToBaseline})`,
      `proxy overhead    direct ${result.directMsPerCall} ms/call, through the proxy ${result.proxyMsPerCall} ms/call, ratio ${result.proxyOverheadRatio} (${M} calls)`,
    ].join("\n") + "\n",
  );
  process.stdout.write(JSON.stringify(result) + "\n");
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runReplayBench().catch((e: unknown) => {
    process.stderr.write(`bench-replay failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
