/**
 * Issue 22 item 7: the demo's reference case (outcome not recorded) was "unknown" on the case list
 * and "source failed" on its replay page. One rule (lib/db caseVerdicts) now gives every view the
 * same verdict; the replay page's rule (lib/replay resolveOutcomes) agrees with it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../bundle";
import { resolveOutcomes } from "../replay";
import { exportBundle, importCase } from "./cases";
import type { Viewer } from "../annotation";
import { assignCases } from "./annotations";
import { caseVerdict, caseVerdicts } from "./outcomes";
import { upsertUser } from "./users";
import { claimRun, createReplayRuns, finishRun } from "./replay-runs";
import { freshTestDb } from "./test-db";
import type { DbHandle } from "./client";

let h: DbHandle;
const reference = JSON.parse(readFileSync(path.join(__dirname, "../../demo/reference-orchestrator.bundle.json"), "utf8")) as ReplayBundle;
const ENDPOINT = { upstream: "http://127.0.0.1:9/v1", model: "m", toolUpstream: null };

beforeAll(async () => {
  h = await freshTestDb();
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

describe("caseVerdicts: one verdict per case for the list, the header and the replay page", () => {
  test("the reference case: unknown until a replay's evaluator judges it, then failed (evaluator) everywhere", async () => {
    expect(typeof reference.outcome?.passed).not.toBe("boolean");
    const { caseId } = await importCase(h.db, { bundle: reference });
    const row = (await h.db.case.findUniqueOrThrow({ where: { id: caseId }, select: { id: true, outcomePassed: true } }))!;
    expect(await caseVerdict(h.db, row, null)).toEqual({ passed: null, via: "none", evaluator: null });

    // A completed replay whose evaluator judged the replay (passed) and the source (failed), as lib/jobs/worker stores it.
    const { runs } = await createReplayRuns(h.db, { sourceCaseId: caseId, targetNodeId: reference.order[1], guidance: "g", count: 1, endpoint: ENDPOINT });
    expect(await claimRun(h.db, runs[0].id, "w1")).not.toBeNull();
    const result: ReplayBundle = {
      ...reference,
      id: `${reference.id}/replay-1`,
      parent: { bundleId: reference.id, targetNodeId: reference.order[1], guidance: "g", mode: "selective" } as ReplayBundle["parent"],
      outcome: { passed: true, evaluator: "hilltop", details: {}, sourceEvaluation: { passed: false, evaluator: "hilltop", details: {} } } as ReplayBundle["outcome"],
    };
    const fin = await finishRun(h.db, runs[0].id, "w1", { status: "completed", mode: "native", bundle: result, boundaryNodeId: reference.order[1], verified: 1, liveCalls: 1 });
    expect(fin.recorded).toBe(true);

    const v = await caseVerdict(h.db, row, null);
    expect(v).toEqual({ passed: false, via: "evaluator", evaluator: "hilltop" });
    // a viewer blind on the case (an annotator, also a researcher, who has not submitted) does not
    // learn from the badge that a replay ran, nor its evaluator's verdict; others do
    const mk = async (email: string, roles: Viewer["roles"]): Promise<Viewer> => ({ id: (await upsertUser(h.db, { email, roles })).id, roles });
    const admin = await mk("admin@outcomes.test", ["admin"]);
    const blind = await mk("blind@outcomes.test", ["researcher", "annotator"]);
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [blind.id] });
    expect(await caseVerdict(h.db, row, blind)).toEqual({ passed: null, via: "none", evaluator: null });
    expect((await caseVerdicts(h.db, [row], blind)).get(row.id)!.via).toBe("none");
    expect(await caseVerdict(h.db, row, await mk("r@outcomes.test", ["researcher"]))).toEqual({ passed: false, via: "evaluator", evaluator: "hilltop" });
    // the replay page's rule says the same about the source
    const src = (await exportBundle(h.db, { caseId }))!;
    const res = (await exportBundle(h.db, { caseId: fin.resultCaseId! }))!;
    const page = resolveOutcomes(src, res).source;
    expect(page.verdict).toBe("failed");
    expect(page.via).toBe("evaluator");
    // the replay's own result case has its recorded verdict
    const resRow = await h.db.case.findUniqueOrThrow({ where: { id: fin.resultCaseId! }, select: { id: true, outcomePassed: true } });
    expect((await caseVerdicts(h.db, [resRow], null)).get(resRow.id)).toEqual({ passed: true, via: "recorded", evaluator: null });
  });
});
