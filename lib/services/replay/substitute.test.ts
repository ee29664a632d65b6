/**
 * Substitution in transcript mode (issue 14 item 4; ./transcript.ts): an imported transcript has
 * no MAS to restart, so the correction arm's continuation IS the proposed correction — no model
 * call, so no upstream is needed. Uses the shared gold-c1 fixture (no network, no endpoint).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseJsonText, validateBundle, type ReplayBundle } from "../../bundle";
import { executeReplayWithDetails } from "./execute";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../../shared");
const gold = (): ReplayBundle => {
  const v = validateBundle(parseJsonText(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c1.bundle.json"), "utf8")));
  if (!v.ok) throw new Error("gold-c1 invalid");
  return v.bundle;
};

describe("transcript substitution (no live call)", () => {
  test("the continuation is the correction: recorded, marked, prefix re-hashed; 0 live calls; no upstream needed", async () => {
    const src = gold();
    const target = "agent_action_0002";
    const { result, details } = await executeReplayWithDetails({ source: src, targetNodeId: target, guidance: "", substitution: "Answer: Potash Markets - Clark Street", upstream: null, toolUpstream: null });
    expect(result.status).toBe("completed");
    if (result.status !== "completed") return;
    expect([result.mode, result.liveCalls, result.verified]).toEqual(["transcript", 0, src.order.indexOf(target)]);
    expect(details.final).toBe("Answer: Potash Markets - Clark Street");
    const b = result.bundle;
    expect(validateBundle(JSON.parse(JSON.stringify(b))).ok).toBe(true);
    expect(b.parent).toMatchObject({ bundleId: src.id, targetNodeId: target, guidance: "", mode: "transcript", substitution: { correction: "Answer: Potash Markets - Clark Street", boundaryNodeId: target } });
    const last = b.records.at(-1)!;
    expect(last.meta).toMatchObject({ substituted: true });
    expect(last.response).toMatchObject({ id: "symtrace-substituted", choices: [{ message: { role: "assistant", content: "Answer: Potash Markets - Clark Street" } }] });
    expect(b.graph.nodes.find((n) => n.type === "final_result" && !src.graph.nodes.some((s) => s.id === n.id))?.content).toEqual({ final: "Answer: Potash Markets - Clark Street" });
    expect(b.order.slice(0, src.order.indexOf(target))).toEqual(src.order.slice(0, src.order.indexOf(target)));
  });

  test("without substitution and without an upstream it stops at the prefix; substitution with guidance is a config failure", async () => {
    const src = gold();
    expect((await executeReplayWithDetails({ source: src, targetNodeId: "agent_action_0002", guidance: "", upstream: null, toolUpstream: null })).result.status).toBe("prefix-verified");
    const bad = await executeReplayWithDetails({ source: src, targetNodeId: "agent_action_0002", guidance: "hint", substitution: "x", upstream: null, toolUpstream: null });
    expect(bad.result).toMatchObject({ status: "failed", error: "substitution replaces the target's output: give no guidance with it" });
    expect(bad.details.failure).toBe("config");
  });
});
