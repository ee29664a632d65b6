/**
 * Vercel AI SDK 6.0.325 + @ai-sdk/openai 3.0.141 (examples/ai-sdk/main.ts): an orchestrator whose
 * two subagents run in parallel (one step calls both subagent tools), each with in-process tools
 * (one embeds through /v1/embeddings). Behind `symtrace record` / `replay`, against the seeded
 * stochastic test model: lanes, tool nodes, replay from every LLM node with the guidance reaching
 * only the target's subagent, parallel data branches that join, and 10 jittered recordings
 * (different seeds → different latencies and arrival orders) that all verify.
 */
import path from "node:path";
import { expect, test } from "vitest";
import { dataReaches, frameworkAgentOf, isEmbeddings, llmRecords, node, pool, readBundle, recordExample, replayFrom, type FrameworkCase } from "../../lib/testing/framework-harness";
import { startStochasticModel } from "../../lib/testing/stochastic-model";
import { frameworkSuite } from "../suite";

const agents = { orchestrator: "You plan trips", weather: "You are a weather researcher", guide: "You are a travel guide researcher" };
// SYMTRACE_AI_SDK_CHAT=1 runs the same proof on Chat Completions (`openai.chat(...)`, main.ts --chat).
const chat = process.env.SYMTRACE_AI_SDK_CHAT === "1";
const fc: FrameworkCase = { name: chat ? "ai-sdk-chat" : "ai-sdk", command: chat ? node("examples/ai-sdk/main.ts", "--chat") : node("examples/ai-sdk/main.ts"), agents, tools: ["researchWeather", "researchSights", "forecast", "searchGuides"] };

frameworkSuite(fc, {
  seed: 51,
  isolatedAgents: true,
  extra: (ctx) => {
    test("data edges: the two subagents are parallel branches that join in the orchestrator's last call", () => {
      const b = ctx.bundle();
      const recs = llmRecords(fc, b);
      const weather = recs.filter((r) => r.agent === "weather");
      const guide = recs.filter((r) => r.agent === "guide");
      const last = recs.at(-1)!;
      expect(last.agent).toBe("orchestrator");
      for (const w of weather) for (const g of guide) {
        expect(dataReaches(b, w.nodeId, g.nodeId), `${w.nodeId} ↛ ${g.nodeId}`).toBe(false);
        expect(dataReaches(b, g.nodeId, w.nodeId), `${g.nodeId} ↛ ${w.nodeId}`).toBe(false);
      }
      expect(dataReaches(b, weather.at(-1)!.nodeId, last.nodeId)).toBe(true);
      expect(dataReaches(b, guide.at(-1)!.nodeId, last.nodeId)).toBe(true);
    });

    test("10 jittered recordings: each verifies up to the later subagent's second call, where guidance reaches only that subagent", async () => {
      const seeds = Array.from({ length: 10 }, (_, i) => 100 + i);
      const orders = new Set<string>();
      const failures: string[] = [];
      await pool(2, seeds.map((seed) => async () => {
        const m = await startStochasticModel({ seed, latencyMs: [0, 60] });
        const live = await startStochasticModel({ seed: seed + 1000 });
        try {
          const file = path.join(ctx.dir(), `jitter-${seed}.json`);
          const r = await recordExample(fc, m.url, file, [], { precompiled: true });
          if (r.code !== 0) return void failures.push(`seed ${seed}: record exit ${r.code} ${JSON.stringify(r.output)}`);
          const b = readBundle(file);
          const recs = llmRecords(fc, b);
          // The arrival order of every model call (embeddings included: the guide's tool embeds).
          orders.add(b.records.filter((x) => x.boundary === "llm").map((x) => (isEmbeddings(x) ? "embed" : frameworkAgentOf(fc, x.request))).join(","));
          // The target: whichever subagent's second call was recorded later; its prefix holds every
          // other call of both parallel subagents, in this recording's arrival order.
          const seconds = ["weather", "guide"].map((a) => recs.filter((x) => x.agent === a)[1]).filter(Boolean);
          if (seconds.length !== 2) return void failures.push(`seed ${seed}: expected two calls per subagent, got ${recs.map((x) => x.agent).join(",")}`);
          const sub = seconds.sort((a, b) => b.seq - a.seq)[0];
          const guidance = `Jitter ${seed}: prefer indoor options.`;
          const rep = await replayFrom(fc, file, sub.nodeId, guidance, live.url, path.join(ctx.dir(), `jitter-${seed}-g.json`));
          const ro = rep.output as Record<string, unknown>;
          if (rep.code !== 0 || ro.status !== "replayed" || ro.verified !== sub.seq) return void failures.push(`seed ${seed}: replay from ${sub.nodeId} (seq ${sub.seq}, ${sub.agent}): exit ${rep.code} ${JSON.stringify({ status: ro.status, reason: ro.reason, seq: ro.seq, verified: ro.verified, message: ro.message })}`);
          const got = live.requests.filter((q) => JSON.stringify(q.body).includes(guidance));
          const wrong = got.filter((q) => !JSON.stringify(q.body).includes(agents[sub.agent as keyof typeof agents]));
          if (got.length === 0 || wrong.length) failures.push(`seed ${seed}: guidance for ${sub.agent} reached ${got.length} requests, ${wrong.length} of another agent`);
        } finally {
          await m.close();
          await live.close();
        }
      }));
      expect(failures, failures.join("\n")).toEqual([]);
      // the jitter did reorder the subagents' calls across recordings
      expect(orders.size).toBeGreaterThan(1);
    }, 900_000);
  },
});
