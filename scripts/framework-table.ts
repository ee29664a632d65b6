/**
 * The table of issue 21, measured: for each framework setup in examples/, record it N times
 * against the seeded stochastic local model server (test support; answers say
 * `[seeded-stochastic-test-model]`, one seed per recording, latency 0–40 ms) and count
 *
 * - records?        recordings where `symtrace record` exits 0 with ok, the MAS exits 0, and every
 *                   model call the server answered is a record;
 * - agents named?   recordings where each framework agent's LLM calls are in exactly one lane,
 *                   a different lane per agent, and every llm_call has an agent;
 * - tool nodes?     recordings where every expected in-process tool is a tool_call node with a
 *                   linked tool_result;
 * - prefix verifies? replays without an upstream from every LLM node of every recording that
 *                   stop at the target with `prefix-verified` (how many served fewer records than
 *                   the target's seq — concurrent calls recorded before it — is said beside).
 *
 *   node --import tsx scripts/framework-table.ts [--recordings 3] [--parallel-recordings 10] [--only ai-sdk,anthropic]
 *
 * Prints the markdown table on stdout (progress on stderr). Exit 0 always (it measures).
 */
import path from "node:path";
import { frameworkAgentOf, llmRecords, node, pool, readBundle, recordExample, replayFrom, tempDir, type FrameworkCase } from "../lib/testing/framework-harness";
import { startStochasticModel } from "../lib/testing/stochastic-model";

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : dflt;
}
const N = Number(arg("--recordings", "3"));
const NPAR = Number(arg("--parallel-recordings", "10"));
const only = arg("--only", "").split(",").filter(Boolean);

const agentsSdk = { "Triage Agent": "Hand off weather questions", "Weather Agent": "You provide weather information" };
const SETUPS: Array<{ row: string; fc: FrameworkCase; n: number }> = [
  { row: "OpenAI Agents SDK, Responses API (its default), streamed", fc: { name: "openai-agents-responses", command: node("examples/openai-agents/main.ts", "--stream"), agents: agentsSdk, tools: ["get_weather"] }, n: N },
  { row: "OpenAI Agents SDK, chat completions", fc: { name: "openai-agents-chat", command: node("examples/openai-agents/main.ts", "--chat-completions"), agents: agentsSdk, tools: ["get_weather"] }, n: N },
  {
    row: "LangGraph.js supervisor",
    fc: { name: "langgraph-supervisor", command: node("examples/langgraph-supervisor/main.ts"), agents: { supervisor: "You are a team supervisor", research_expert: "world class researcher", math_expert: "You are a math expert" }, tools: ["web_search", "add", "multiply"] },
    n: N,
  },
  {
    row: "Vercel AI SDK, orchestrator + 2 sub-agents in parallel",
    fc: { name: "ai-sdk", command: node("examples/ai-sdk/main.ts"), agents: { orchestrator: "You plan trips", weather: "You are a weather researcher", guide: "You are a travel guide researcher" }, tools: ["researchWeather", "researchSights", "forecast", "searchGuides"] },
    n: NPAR,
  },
  { row: "Anthropic SDK agent with a tool", fc: { name: "anthropic", command: node("examples/anthropic/main.ts"), agents: { assistant: "Use the tools to answer questions about places" }, tools: ["get_weather", "get_time"] }, n: N },
];

process.env.OPENAI_API_KEY = "symtrace-test-key";
process.env.ANTHROPIC_API_KEY = "symtrace-test-key";
process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";
delete process.env.OPENAI_BASE_URL;
delete process.env.ANTHROPIC_BASE_URL;

const dir = tempDir("symtrace-framework-table-");
const lines = ["| setup | records? | agents named? | tool nodes? | replay prefix verifies? |", "|---|---|---|---|---|"];
for (const s of SETUPS.filter((x) => only.length === 0 || only.includes(x.fc.name))) {
  let recorded = 0;
  let named = 0;
  let tools = 0;
  let verified = 0;
  let replays = 0;
  let partial = 0;
  const notes = new Set<string>();
  for (let i = 0; i < s.n; i++) {
    const m = await startStochasticModel({ seed: 1000 + i, latencyMs: [0, 40] });
    try {
      const file = path.join(dir, `${s.fc.name}-${i}.json`);
      const r = await recordExample(s.fc, m.url, file);
      const o = r.output as Record<string, unknown>;
      const served = m.requests.filter((q) => q.route !== "embeddings").length;
      if (r.code !== 0) {
        notes.add(`record exit ${r.code}`);
        continue;
      }
      const b = readBundle(file);
      const recs = llmRecords(s.fc, b);
      if (o.ok === true && o.masExitCode === 0 && recs.length === served && served > 0) recorded++;
      else notes.add(`ok ${String(o.ok)}, MAS exit ${String(o.masExitCode)}, ${recs.length} of ${served} calls recorded`);
      const laneOf = new Map(b.graph.nodes.map((n) => [n.id, n.agent ?? null]));
      const lanes = new Map<string, Set<string | null>>();
      for (const x of recs) lanes.set(x.agent ?? "(unknown)", new Set([...(lanes.get(x.agent ?? "(unknown)") ?? []), laneOf.get(x.nodeId) ?? null]));
      const one = [...lanes.values()].map((v) => [...v]);
      if (lanes.size === Object.keys(s.fc.agents).length && !lanes.has("(unknown)") && one.every((v) => v.length === 1 && v[0]) && new Set(one.map((v) => v[0])).size === one.length) named++;
      const ok = s.fc.tools.every((t) =>
        b.graph.nodes.some((n) => n.type === "tool_call" && ((n.content as { tool?: string } | null)?.tool === t) && b.graph.edges.some((e) => e.from === n.id && b.graph.nodes.find((x) => x.id === e.to)?.type === "tool_result")),
      );
      if (ok) tools++;
      const res = await pool(2, recs.map((t) => () => replayFrom(s.fc, file, t.nodeId, "", null, path.join(dir, `${s.fc.name}-${i}-pv-${t.seq}.json`)).then((x) => ({ t, x }))));
      for (const { t, x } of res) {
        replays++;
        const xo = x.output as Record<string, unknown>;
        // A concurrent recording's prefix is the records served before the target (`verified`), which
        // may be fewer than its seq when a call recorded before it ran concurrently with it.
        if (x.code === 0 && xo.status === "prefix-verified") {
          verified++;
          if (xo.verified !== t.seq) partial++;
        } else notes.add(`${String(xo.reason ?? xo.status ?? "error")} at seq ${String(xo.seq ?? "?")}`);
      }
      process.stderr.write(`${s.fc.name} #${i}: ${recs.length} LLM calls, agents ${[...new Set(recs.map((x) => frameworkAgentOf(s.fc, x.request)))].join("/")}\n`);
    } finally {
      await m.close();
    }
  }
  const frac = (a: number, n: number) => `${a === n && n > 0 ? "yes" : "no"} (${a}/${n})`;
  lines.push(`| ${s.row} | ${frac(recorded, s.n)} | ${frac(named, s.n)} | ${frac(tools, s.n)} | ${frac(verified, replays)}${partial ? ` (${partial} with fewer served records than the target's seq)` : ""}${notes.size ? ` — ${[...notes].slice(0, 3).join("; ")}` : ""} |`);
}
console.log(lines.join("\n"));
