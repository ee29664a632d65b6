/**
 * Import fidelity on the whole Who&When benchmark (issue 24 item 4): all 184 files of
 * the who_and_when_full dataset import; step indices are 0-based into `history`; agent
 * identity is `role` (Hand-Crafted) / `name` (Algorithm-Generated); the agent at mistake_step
 * disagrees with mistake_agent in exactly 5 files (2 Hand-Crafted, 3 Algorithm-Generated,
 * SOURCE.md), which import with a warning note, never a failure.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { importWhoWhen } from "./who-and-when";

const ROOT = path.resolve(__dirname, "../../../shared/datasets/who_and_when_full");
const SUBSETS = ["Hand-Crafted", "Algorithm-Generated"] as const;
const files = SUBSETS.flatMap((subset) => (existsSync(path.join(ROOT, subset)) ? readdirSync(path.join(ROOT, subset)).filter((f) => f.endsWith(".json")).map((f) => ({ subset, f })) : []));

// Never skipped: without the dataset the first test fails (0 files), so a wrong path cannot pass silently.
describe("Who&When, all 184 files", () => {
  const imported = files.map(({ subset, f }) => {
    const text = readFileSync(path.join(ROOT, subset, f), "utf8");
    const raw = JSON.parse(text) as { history: Array<{ role: string; name?: string; content: string }>; mistake_step: string; mistake_agent: string };
    // subset not given: inferred from the record's keys, and it must agree with the folder
    return { subset, f, raw, r: importWhoWhen(text, { fileName: `${subset}/${f}` }) };
  });

  test("184 files: 58 Hand-Crafted + 126 Algorithm-Generated, every one imports", () => {
    expect(files.filter((x) => x.subset === "Hand-Crafted")).toHaveLength(58);
    expect(files.filter((x) => x.subset === "Algorithm-Generated")).toHaveLength(126);
    const failed = imported.filter((x) => x.r.failures.length).map((x) => `${x.subset}/${x.f}: ${JSON.stringify(x.r.failures[0].errors[0])}`);
    expect(failed).toEqual([]);
    for (const x of imported) expect(x.r.cases[0].source.subset).toBe(x.subset);
  });

  test("mistake_step is a 0-based index into history; the label's agent is mistake_agent", () => {
    for (const { raw, r } of imported) {
      const step = Number(raw.mistake_step);
      const label = r.cases[0].referenceLabels[0];
      expect(label.nodeId).toBe(`msg_${String(step).padStart(4, "0")}`);
      expect(r.cases[0].bundle.order!.indexOf(label.nodeId!)).toBe(step);
      expect(label.agent).toBe(raw.mistake_agent);
    }
  });

  test("agent identity: role (Hand-Crafted) or name (Algorithm-Generated) of the message at mistake_step", () => {
    for (const { subset, raw, r } of imported) {
      const m = raw.history[Number(raw.mistake_step)];
      expect(r.cases[0].referenceLabels[0].extra!.stepRole).toBe(subset === "Hand-Crafted" ? m.role : m.name);
    }
  });

  test("exactly 5 files where the step's agent disagrees with mistake_agent: warned, not rejected", () => {
    const inconsistent = imported.filter((x) => x.r.cases[0].source.notes!.some((n) => n.startsWith("annotation inconsistency"))).map((x) => `${x.subset}/${x.f}`);
    expect(inconsistent.sort()).toEqual(["Algorithm-Generated/14.json", "Algorithm-Generated/15.json", "Algorithm-Generated/59.json", "Hand-Crafted/22.json", "Hand-Crafted/49.json"]);
    for (const x of imported.filter((y) => inconsistent.includes(`${y.subset}/${y.f}`))) expect(x.r.cases[0].referenceLabels[0].extra!.agentMatchesStep).toBe(false);
    // Hand-Crafted 20.json: mistake_agent WebSurfer, step 3 is "Orchestrator (-> WebSurfer)": the addressee, noted
    const hc20 = imported.find((x) => x.subset === "Hand-Crafted" && x.f === "20.json")!;
    expect(hc20.r.cases[0].source.notes!).toContain('mistake_agent "WebSurfer" is the addressee of history[3] (role "Orchestrator (-> WebSurfer)"), not its author');
  });
});
