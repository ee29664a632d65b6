import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { agreementCommand } from "./agreement";

const SHARED = path.resolve(import.meta.dirname, "../../shared");
const SYN = path.join(SHARED, "fixtures/agreement/synthetic-60.annotations.json");
const MAD = path.join(SHARED, "datasets/mast_mad/MAD_human_labelled_sample.json");
const tmp = mkdtempSync(path.join(os.tmpdir(), "agreement-cli-"));
const write = (name: string, body: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, body);
  return p;
};

type Out = Record<string, unknown> & { ok: boolean; errors?: Array<{ path: string; message: string }> };
type V = { kappa: number | null; ci95: number[] | null };
type Report = Out & {
  cases: number;
  primaryCategory: V;
  categorySet: V;
  nodeType: V;
  presence: Record<"C1" | "C2" | "C3" | "C4", V>;
  node: unknown;
  tuple: unknown;
  final: Record<string, unknown>;
  bootstrap: unknown;
};
type Mad = Out & { items: number; kappa: number; excluded: { count: number; items: Array<{ trace: string; code: string; mode: string }> } };

describe("agreement <annotations.json>", () => {
  test("report has the keys of synthetic-60.expected.json", async () => {
    const { code, output } = await agreementCommand([SYN, "--resamples", "500", "--seed", "1"]);
    const o = output as Report;
    expect(code).toBe(0);
    expect(o.cases).toBe(60);
    for (const v of [o.primaryCategory, o.categorySet, o.nodeType, o.presence.C1, o.presence.C2, o.presence.C3, o.presence.C4]) {
      expect(Object.keys(v)).toEqual(expect.arrayContaining(["kappa", "ci95", "pairwiseAgreement", "unanimous"]));
      expect(v.ci95).toHaveLength(2);
    }
    expect(o.node).toMatchObject({ allThree: 28, atLeastTwo: 50 });
    expect(o.tuple).toMatchObject({ allThree: 9, atLeastTwo: 35 });
    expect(Object.keys(o.final)).toEqual(expect.arrayContaining(["supportedBy", "setEqualsUnion", "added", "removed", "primary", "marginal", "meanCardinality"]));
    expect(o.bootstrap).toMatchObject({ resamples: 500, seed: 1 });
    expect(JSON.parse(JSON.stringify(o))).toEqual(o); // plain JSON
  });
  test("same seed, same output", async () => {
    const a = await agreementCommand([SYN, "--resamples", "300", "--seed", "9"]);
    const b = await agreementCommand([SYN, "--seed", "9", "--resamples", "300"]);
    expect(a).toEqual(b);
  });
  test.each([
    ["missing file", [path.join(tmp, "nope.json")], 1, "$", /cannot read .*ENOENT/],
    ["bad JSON", [write("bad.json", '{"format": ')], 1, "$", /invalid JSON/],
    ["schema violation", [write("v.json", JSON.stringify({ format: "symtrace.annotations/v1", cases: [{ caseId: "a", initial: [{ annotator: "x", categories: ["C7"], primary: "C7", nodeId: "n", nodeType: "tool_call" }] }] }))], 1, "$.cases[0].initial[0].categories[0]", /C1/],
    ["no case with three annotations", [path.join(SHARED, "fixtures/bundles/gold-annotations.json")], 1, "$.cases", /no case has 3/],
    ["no file", [], 2, "$", /usage/],
    ["bad --resamples", [SYN, "--resamples", "abc"], 2, "$", /integer/],
    ["--resamples 0", [SYN, "--resamples", "0"], 2, "$", /between/],
    ["unknown option", [SYN, "--bogus"], 2, "$", /unknown option/],
  ])("%s -> code %d", async (_n, args, wantCode, wantPath, msg) => {
    const { code, output } = await agreementCommand(args as string[]);
    const o = output as Out;
    expect(code).toBe(wantCode);
    expect(o.ok).toBe(false);
    expect(o.errors!.some((e) => e.path === wantPath && msg.test(e.message))).toBe(true);
    expect(JSON.stringify(o)).not.toMatch(/\n\s+at /);
  });
});

describe("agreement --mad", () => {
  test("pooled binary Fleiss 0.9717, 149 items, 2 excluded", async () => {
    const { code, output } = await agreementCommand(["--mad", MAD]);
    const o = output as Mad;
    expect(code).toBe(0);
    expect(o.items).toBe(149);
    expect(o.kappa.toFixed(4)).toBe("0.9717");
    expect(o.excluded.count).toBe(2);
    expect(o.excluded.items.map((i) => [i.trace, i.code])).toEqual([
      ["mad/generlazability/18", "3.2"],
      ["mad/generlazability/18", "3.3"],
    ]);
    expect(o.excluded.items[0].mode).toMatch(/^3\.2 /);
  });
  test("not a MAD file -> code 1 with paths", async () => {
    const { code, output } = await agreementCommand(["--mad", write("m.json", "[1]")]);
    expect(code).toBe(1);
    expect((output as Out).errors![0].path).toBe("$[0]");
  });
});
