/**
 * The proof every framework example goes through (issue 21 item 6), as one vitest suite:
 * record → validate → import → lanes equal the framework's agents, tool nodes present → replay
 * from every LLM node (`runs` times each, live against the model, with guidance): the prefix
 * verifies and the guidance lands in the target's own agent.
 *
 * The model is the seeded stochastic local server (test support; its answers say
 * `[seeded-stochastic-test-model]`); the frameworks are the real, pinned packages. Replays run
 * two at a time (each spawns the framework); `SYMTRACE_FRAMEWORK_RUNS` overrides `runs`. The
 * recording runs the README's command (`node --import tsx main.ts`); replays run the same file
 * compiled to plain ES modules without tsx's loader (`precompiled`, ~0.8 s less start-up each).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../lib/bundle";
import type { Db } from "../lib/db";
import { freshTestDb } from "../lib/db/test-db";
import { importedLanes, isEmbeddings, llmRecords, pool, readBundle, recordExample, replayFrom, systemText, tempDir, frameworkAgentOf, type FrameworkCase } from "../lib/testing/framework-harness";
import { startStochasticModel, type StochasticModel } from "../lib/testing/stochastic-model";

export interface SuiteOptions {
  seed?: number;
  /** Replays per LLM node (default 3, or SYMTRACE_FRAMEWORK_RUNS). */
  runs?: number;
  /** Agents never see each other's conversations (subagents): guidance must reach no other agent. */
  isolatedAgents?: boolean;
  /** Started before recording (e.g. an MCP server); returns extra record/replay args and a stop. */
  setup?: () => Promise<{ recordArgs: string[]; stop: () => Promise<void> }>;
  /** More tests on the recorded bundle. */
  extra?: (ctx: SuiteContext) => void;
}

export interface SuiteContext {
  model: () => StochasticModel;
  live: () => StochasticModel;
  bundle: () => ReplayBundle;
  file: () => string;
  dir: () => string;
  fc: () => FrameworkCase;
}

/** Model requests carrying a text (the guidance), in arrival order. */
const carrying = (m: StochasticModel, text: string) => m.requests.filter((r) => r.route !== "embeddings" && JSON.stringify(r.body).includes(text));

export function frameworkSuite(base: FrameworkCase, opts: SuiteOptions = {}): void {
  const runs = Number(process.env.SYMTRACE_FRAMEWORK_RUNS ?? opts.runs ?? 3);
  let model: StochasticModel;
  /** The live upstream of replays: another instance, so it never saw the recorded responses (ids, stored Responses). */
  let live: StochasticModel;
  let db: Db;
  let dir: string;
  let file: string;
  let bundle: ReplayBundle;
  let recorded: Awaited<ReturnType<typeof recordExample>>;
  let servedDuringRecord = 0;
  let embeddingsDuringRecord = 0;
  let fc: FrameworkCase = base;
  let stop: (() => Promise<void>) | null = null;

  describe(`${base.name}: record → validate → import → replay (seeded stochastic test model)`, () => {
    beforeAll(async () => {
      delete process.env.OPENAI_BASE_URL;
      delete process.env.ANTHROPIC_BASE_URL;
      process.env.OPENAI_API_KEY = "symtrace-test-key";
      process.env.ANTHROPIC_API_KEY = "symtrace-test-key";
      process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";
      model = await startStochasticModel({ seed: opts.seed ?? 7 });
      live = await startStochasticModel({ seed: (opts.seed ?? 7) + 1000 });
      if (opts.setup) {
        const s = await opts.setup();
        stop = s.stop;
        fc = { ...base, recordArgs: [...(base.recordArgs ?? []), ...s.recordArgs] };
      }
      dir = tempDir(`symtrace-${base.name}-`);
      db = (await freshTestDb()).db;
      file = path.join(dir, `${base.name}.json`);
      recorded = await recordExample(fc, model.url, file);
      servedDuringRecord = model.requests.filter((r) => r.route !== "embeddings").length;
      embeddingsDuringRecord = model.requests.length - servedDuringRecord;
      if (recorded.code === 0) bundle = readBundle(file);
    }, 120_000);
    afterAll(async () => {
      await db?.$disconnect();
      await stop?.();
      await model?.close();
      await live?.close();
    });

    test("records: exit 0 with ok, a valid bundle v1, every model call recorded", () => {
      expect(recorded.code, JSON.stringify(recorded.output)).toBe(0);
      expect(recorded.output).toMatchObject({ ok: true, status: "recorded", masExitCode: 0 });
      const llm = llmRecords(fc, bundle);
      expect(llm.length).toBe(servedDuringRecord);
      expect(bundle.records.filter(isEmbeddings).length).toBe(embeddingsDuringRecord);
      expect(llm.length).toBeGreaterThanOrEqual(2);
    });

    test("import: the inspector's lanes are the framework's agents, one lane each", async () => {
      const { lanesByAgent, rows } = await importedLanes(db, fc, file);
      expect(Object.keys(lanesByAgent).sort()).toEqual(Object.keys(fc.agents).sort());
      for (const [agent, lanes] of Object.entries(lanesByAgent)) {
        expect(lanes, agent).toHaveLength(1);
        expect(lanes[0], agent).not.toBe("(none)");
      }
      const lanes = Object.values(lanesByAgent).map((l) => l[0]);
      expect(new Set(lanes).size).toBe(lanes.length);
      // every llm_call row has an agent
      for (const r of rows.filter((x) => x.type === "llm_call")) expect(r.agent, r.nodeId).toBeTruthy();
    });

    test("in-process tools are tool_call nodes, each with its tool_result linked", () => {
      const calls = bundle.graph.nodes.filter((n) => n.type === "tool_call");
      for (const tool of fc.tools) {
        const named = calls.filter((n) => {
          const c = (n.content ?? {}) as { tool?: unknown; name?: unknown };
          return c.tool === tool || c.name === tool;
        });
        expect(named.length, `tool_call for ${tool}`).toBeGreaterThanOrEqual(1);
        for (const n of named) {
          const results = bundle.graph.edges.filter((e) => e.from === n.id && bundle.graph.nodes.find((m) => m.id === e.to)?.type === "tool_result");
          expect(results.length, `tool_result of ${n.id}`).toBeGreaterThanOrEqual(1);
        }
      }
    });

    test(`replay from every LLM node, ${runs} runs each: the prefix verifies and the guidance lands in the target's agent`, async () => {
      const targets = llmRecords(fc, bundle);
      expect(targets.length, "LLM nodes to replay from").toBeGreaterThanOrEqual(2);
      const jobs = targets.flatMap((t) =>
        Array.from({ length: runs }, (_, run) => async () => {
          const guidance = `Guidance ${base.name} seq ${t.seq} run ${run}: double-check the numbers.`;
          const out = path.join(dir, `replay-${t.seq}-${run}.json`);
          const r = await replayFrom(fc, file, t.nodeId, guidance, live.url, out);
          return { t, run, guidance, out, r };
        }),
      );
      const results = await pool(2, jobs);
      const failures: string[] = [];
      for (const { t, run, guidance, out, r } of results) {
        const where = `target ${t.nodeId} (seq ${t.seq}, ${t.agent}) run ${run}`;
        const o = r.output as Record<string, unknown>;
        if (r.code !== 0 || o.status !== "replayed" || o.verified !== t.seq) {
          failures.push(`${where}: exit ${r.code} ${JSON.stringify({ status: o.status, reason: o.reason, seq: o.seq, verified: o.verified, message: o.message ?? o.errors })}`);
          continue;
        }
        const b = readBundle(out);
        expect(b.parent, where).toMatchObject({ bundleId: bundle.id, targetNodeId: t.nodeId, guidance });
        expect(b.records.slice(0, t.seq), where).toEqual(bundle.records.slice(0, t.seq));
        // The guidance went into the target's own request, and (for isolated agents) no other agent's.
        const got = carrying(live, guidance);
        expect(got.length, `${where}: a request carrying the guidance`).toBeGreaterThanOrEqual(1);
        expect(frameworkAgentOf(fc, got[0].body), `${where}: first request with the guidance`).toBe(t.agent);
        expect(systemText(got[0].body), where).toBe(systemText(t.request));
        if (opts.isolatedAgents) for (const q of got) expect(frameworkAgentOf(fc, q.body), `${where}: guidance leaked`).toBe(t.agent);
      }
      expect(failures, failures.join("\n")).toEqual([]);
    }, 600_000);

    opts.extra?.({ model: () => model, live: () => live, bundle: () => bundle, file: () => file, dir: () => dir, fc: () => fc });
  });
}
