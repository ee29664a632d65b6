/**
 * The selector must SEE the checkpoint ids it may roll back to (issue 15 item 2: "shown the
 * trajectory with its checkpoint node ids"). Checkpoints are LLM-boundary nodes (llm_call), which
 * renderTrajectory leaves out as call metadata, so each must get its own `[checkpoint <id>]` line,
 * placed where that LLM call's output starts. Bundle: demo/reference-orchestrator.bundle.json (recorded through the proxy: its llm_call nodes are call metadata).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../../bundle";
import { checkpointsOf, renderWithCheckpoints } from "./environment";

function fixture(): ReplayBundle {
  const file = path.join(import.meta.dirname, "../../../demo/reference-orchestrator.bundle.json");
  const v = validateBundle(JSON.parse(readFileSync(file, "utf8")));
  if (!v.ok) throw new Error("fixture invalid");
  return v.bundle;
}

describe("renderWithCheckpoints", () => {
  test("every checkpoint id appears as a [checkpoint <id>] mark, in observed order, before the output of its call", () => {
    const b = fixture();
    const cps = checkpointsOf(b);
    expect(cps.length).toBeGreaterThan(1);
    const text = renderWithCheckpoints(b, cps);
    const marked = [...text.matchAll(/\[checkpoint ([^\]]+)\]/g)].map((m) => m[1]);
    expect(marked).toEqual(cps);
    // Each mark comes before the first rendered node that follows its call in the bundle's order.
    const lines = text.split("\n");
    for (const cp of cps) {
      const at = lines.findIndex((l) => l.startsWith(`[checkpoint ${cp}]`));
      const after = b.order.slice(b.order.indexOf(cp) + 1).find((id) => lines.some((l) => l.startsWith(`[${id}]`)));
      if (after) expect(at).toBeLessThan(lines.findIndex((l) => l.startsWith(`[${after}]`)));
    }
  });
  test("only the given checkpoints are marked (a cut node's view marks those before its cut)", () => {
    const b = fixture();
    const cps = checkpointsOf(b).slice(0, 1);
    expect([...renderWithCheckpoints(b, cps).matchAll(/\[checkpoint ([^\]]+)\]/g)].map((m) => m[1])).toEqual(cps);
  });
});
