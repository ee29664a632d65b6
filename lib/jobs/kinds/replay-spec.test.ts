/**
 * The live endpoints a "Replay from here" run stores reach its executor: the Anthropic Messages
 * endpoint set apart from the OpenAI-compatible one (SYMTRACE_REPLAY_ANTHROPIC_UPSTREAM), for a
 * MAS that calls providers on different hosts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ReplayBundle } from "../../bundle";
import { replaySettings } from "../../env";
import { importCase } from "../../db/cases";
import { claimRun, createReplayRuns } from "../../db/replay-runs";
import { upsertUser } from "../../db/users";
import { describeReplayTarget } from "../../services/replay-start";
import { freshTestDb } from "../../db/test-db";
import type { DbHandle } from "../../db/client";
import { buildReplaySpec } from "./replay";

let h: DbHandle;
const reference = JSON.parse(readFileSync(path.join(__dirname, "../../../demo/reference-orchestrator.bundle.json"), "utf8")) as ReplayBundle;

beforeAll(async () => {
  h = await freshTestDb();
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

test("SYMTRACE_REPLAY_ANTHROPIC_UPSTREAM is stored with the run and handed to the executor; unset, nothing is (the proxy derives it from the upstream)", async () => {
  const settings = replaySettings({ SYMTRACE_REPLAY_UPSTREAM: "http://127.0.0.1:4110/v1", SYMTRACE_REPLAY_ANTHROPIC_UPSTREAM: "http://127.0.0.1:4112" });
  expect(settings).toMatchObject({ upstream: "http://127.0.0.1:4110/v1", anthropicUpstream: "http://127.0.0.1:4112" });
  const { caseId } = await importCase(h.db, { bundle: reference });
  const { runs } = await createReplayRuns(h.db, { sourceCaseId: caseId, targetNodeId: reference.order[1], guidance: "g", count: 2, endpoint: settings });
  const spec = await buildReplaySpec(h.db, (await claimRun(h.db, runs[0].id, "w1"))!, []);
  expect(spec).toMatchObject({ upstream: "http://127.0.0.1:4110/v1", anthropicUpstream: "http://127.0.0.1:4112" });

  const plain = replaySettings({ SYMTRACE_REPLAY_UPSTREAM: "http://127.0.0.1:4110/v1" });
  expect(plain.anthropicUpstream).toBeNull();
  const { runs: more } = await createReplayRuns(h.db, { sourceCaseId: caseId, targetNodeId: reference.order[1], guidance: "g", count: 1, endpoint: plain });
  expect("anthropicUpstream" in (await buildReplaySpec(h.db, (await claimRun(h.db, more[0].id, "w1"))!, []))).toBe(false);
});

test("the replay dialog names where a case's Anthropic calls go: the set endpoint, else the upstream without /v1; nothing for a case that made none", async () => {
  const anthropic: ReplayBundle = { ...reference, id: `${reference.id}/anthropic`, records: reference.records.map((r) => (r.boundary === "llm" ? { ...r, meta: { ...(r.meta ?? {}), protocol: "anthropic-messages" } } : r)) };
  const { caseId } = await importCase(h.db, { bundle: anthropic });
  const { caseId: openaiCase } = await importCase(h.db, { bundle: { ...reference, id: `${reference.id}/openai` } });
  const viewer = { id: (await upsertUser(h.db, { email: "r@replay-spec.test", roles: ["researcher"] })).id, roles: ["researcher" as const] };
  const node = anthropic.records.find((r) => r.boundary === "llm")!.nodeId;
  const ask = async (id: string, settings: { upstream: string | null; model: null; toolUpstream: null; anthropicUpstream?: string | null }) =>
    (await describeReplayTarget(h.db, { viewer, caseId: id, node, registry: [], settings })).body as { anthropicUpstream?: string | null };
  expect((await ask(caseId, { upstream: "http://127.0.0.1:4110/v1", model: null, toolUpstream: null, anthropicUpstream: "http://127.0.0.1:4112" })).anthropicUpstream).toBe("http://127.0.0.1:4112");
  expect((await ask(caseId, { upstream: "http://127.0.0.1:4110/v1/", model: null, toolUpstream: null })).anthropicUpstream).toBe("http://127.0.0.1:4110");
  expect((await ask(openaiCase, { upstream: "http://127.0.0.1:4110/v1", model: null, toolUpstream: null })).anthropicUpstream).toBeNull();
});
