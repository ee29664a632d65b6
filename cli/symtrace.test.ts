import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { canonicalJson, parseJsonText, sha256Tagged } from "../lib/bundle";
import { runSymtraceHere, spawnSymtrace } from "../lib/testing/cli";

const ROOT = path.resolve(import.meta.dirname, "..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const BAD = path.join(ROOT, "lib/bundle/fixtures");

/**
 * One command in this process (lib/testing/cli.ts runSymtraceHere: the dispatcher, output and exit
 * codes of the `symtrace` process); `spawned` runs the real process, for the checks about the
 * process itself (exit status, nothing but one JSON line, no stack trace on stderr).
 */
async function cli(args: string[], dbUrl?: string, o: { spawned?: boolean } = {}) {
  const url = dbUrl ?? "file:" + path.join(tmp(), "cli.db");
  const r = o.spawned ? spawnSymtrace(args, url) : await runSymtraceHere(args, url);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

function tmp(): string {
  return mkdtempSync(path.join(os.tmpdir(), "symtrace-cli-"));
}

describe("symtrace validate", () => {
  test.each([
    ["gold-c1", 12, 13, 5],
    ["gold-c2", 16, 18, 7],
    ["gold-c3", 12, 13, 5],
    ["gold-c4", 4, 3, 1],
  ])("accepts %s", async (name, nodes, edges, records) => {
    const r = (await cli(["validate", path.join(SHARED, `fixtures/bundles/${name}.bundle.json`)]));
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ ok: true, nodes, edges, records });
  });

  test.each([
    ["cycle", "acyclic", /^\$\.graph\.edges\[\d+\]$/],
    ["not-linear-extension", "order-linear-extension", /^\$\.graph\.edges\[\d+\]$/],
    ["wrong-hash", "content-hash", /^\$\.graph\.nodes\[\d+\]\.contentHash$/],
    ["duplicate-id", "unique-node-id", /^\$\.graph\.nodes\[\d+\]\.id$/],
    ["unknown-endpoint", "edge-endpoint", /^\$\.graph\.edges\[\d+\]\.(from|to)$/],
    ["record-seq-gap", "record-seq", /^\$\.records\[1\]\.seq$/],
  ])("rejects %s with a path naming the fault", async (name, rule, pathRe) => {
    const r = (await cli(["validate", path.join(BAD, `${name}.bundle.json`)]));
    expect(r.code).toBe(1);
    expect(r.json?.ok).toBe(false);
    const errors = r.json?.errors as Array<{ path: string; message: string; rule: string }>;
    const hit = errors.find((e) => e.rule === rule);
    expect(hit?.path).toMatch(pathRe);
    expect(hit?.message.length).toBeGreaterThan(10);
  });

  test("truncated JSON: exit 1, a line number, no stack trace", async () => {
    const r = (await cli(["validate", path.join(BAD, "truncated.bundle.json")], undefined, { spawned: true }));
    expect(r.code).toBe(1);
    const e = (r.json?.errors as Array<{ message: string }>)[0];
    expect(e.message).toMatch(/not JSON: .*line \d+/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });

  test("unreadable file: exit 1 with a clear error, no stack trace", async () => {
    const r = (await cli(["validate", "/nonexistent/x.json"], undefined, { spawned: true }));
    expect(r.code).toBe(1);
    expect((r.json?.errors as Array<{ message: string }>)[0].message).toMatch(/cannot read \/nonexistent\/x\.json: ENOENT/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });

  test("unknown command: exit 2 with usage", async () => {
    const r = (await cli(["frobnicate"], undefined, { spawned: true }));
    expect(r.code).toBe(2);
    expect((r.json?.errors as Array<{ message: string }>)[0].message).toMatch(/commands: validate/);
  });
});

// Each CLI call is a fresh Node process (tsx + Prisma + wasm engine), several per test: allow
// minutes, not the default 30 s, so a loaded CI machine does not fail them on time alone.
describe("symtrace import / export", { timeout: 300_000 }, () => {
  test("imports a folder, reports and skips a bad file, and is idempotent", async () => {
    const dir = tmp();
    copyFileSync(path.join(SHARED, "fixtures/bundles/gold-c1.bundle.json"), path.join(dir, "a.json"));
    copyFileSync(path.join(SHARED, "datasets/who_and_when/Algorithm-Generated/1.json"), path.join(dir, "b.json"));
    copyFileSync(path.join(BAD, "cycle.bundle.json"), path.join(dir, "c-bad.json"));
    writeFileSync(path.join(dir, "d-notjson.json"), "{ nope");
    const db = "file:" + path.join(tmp(), "import.db");
    const r1 = (await cli(["import", dir], db));
    expect(r1.code).toBe(1); // some files failed; the good ones are still imported
    expect(r1.json).toMatchObject({ imported: 2, skipped: 0 });
    const failed = r1.json?.failed as Array<{ file: string; errors: Array<{ path: string }> }>;
    expect(failed.map((f) => path.basename(f.file)).sort()).toEqual(["c-bad.json", "d-notjson.json"]);
    expect(failed.find((f) => f.file.endsWith("c-bad.json"))?.errors[0].path).toMatch(/^\$\.graph\.edges/);
    const r2 = (await cli(["import", dir], db));
    expect(r2.json).toMatchObject({ imported: 0, skipped: 2 });
    const good = (await cli(["import", path.join(dir, "a.json")], db));
    expect(good.code).toBe(0);
    expect(good.json).toMatchObject({ imported: 0, skipped: 1, failed: [] });
    // each stored case by its bundle id, with what happened to it
    expect((r1.json?.cases as Array<{ bundleId: string; status: string }>).map((c) => c.status)).toEqual(["imported", "imported"]);
    expect(good.json?.cases).toEqual([{ bundleId: "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000", status: "skipped" }]);
  });

  test("imperfect OTLP spans import; the report counts each kind of repair with its path (issue 10 items 3-5)", async () => {
    const dir = tmp();
    const T = "5b8efff798038103d269b633813fc60c";
    const sp = (id: string, parent: string, extra: Record<string, unknown> = {}) => ({
      traceId: T,
      spanId: id,
      parentSpanId: parent,
      name: `s${id}`,
      startTimeUnixNano: "1700000000000000000",
      endTimeUnixNano: "1700000000000001000",
      ...extra,
    });
    const dup = sp("0000000000000003", "0000000000000001");
    const spans = [
      sp("0000000000000001", "0000000000000000"),
      sp("0000000000000002", "eeeeeeeeeeeeeeee"),
      dup,
      dup,
      sp("0000000000000004", "0000000000000001", { endTimeUnixNano: "0" }),
      sp("0000000000000005", "0000000000000001", {
        attributes: [
          { key: "openinference.span.kind", value: { stringValue: "TOOL" } },
          { key: "input.value", value: { stringValue: "{'city': 'Paris'}" } },
        ],
      }),
    ];
    writeFileSync(path.join(dir, "otlp.json"), JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    const r = (await cli(["import", dir], "file:" + path.join(tmp(), "w.db")));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ imported: 1, failed: [] });
    const w = r.json?.warnings as { counts: Record<string, number>; items: Array<{ kind: string; path: string; bundleId: string }> };
    expect(w.counts).toEqual({
      "duplicate-span-identical": 1,
      "zero-parent-id": 1,
      "not-ended": 1,
      "parent-not-in-trace": 1,
      "tool-arguments-not-object": 1,
    });
    expect(w.items.find((x) => x.kind === "parent-not-in-trace")).toMatchObject({
      bundleId: `otlp/${T}`,
      path: "$.resourceSpans[0].scopeSpans[0].spans[1].parentSpanId",
    });
  });

  test("--format forces an importer and rejects unknown formats", async () => {
    const db = "file:" + path.join(tmp(), "fmt.db");
    const r = (await cli(["import", path.join(SHARED, "fixtures/bundles/gold-c4.bundle.json"), "--format", "mad"], db));
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ imported: 0 });
    expect((await cli(["import", "x", "--format", "csv"], db)).code).toBe(2);
    // a file of no known format: the CLI names its flag (the import page offers a choice instead)
    const dir = tmp();
    writeFileSync(path.join(dir, "hello.json"), '{"hello": 1}');
    const u = (await cli(["import", path.join(dir, "hello.json")], db));
    expect(u.code).toBe(1);
    const e = (u.json?.failed as Array<{ errors: Array<{ code?: string; message: string }> }>)[0].errors[0];
    expect(e.code).toBe("format-needed");
    expect(e.message).toMatch(/^unrecognized format: .*\(pass --format bundle\|whowhen\|mad\|otel\)$/);
  });

  test("every shared sample imports; export --all re-imports to identical hashes", async () => {
    const db1 = "file:" + path.join(tmp(), "all.db");
    const paths = [
      path.join(SHARED, "fixtures/bundles"),
      path.join(SHARED, "datasets/who_and_when"),
      path.join(SHARED, "datasets/mast_mad/MAD_human_labelled_sample.json"),
      path.join(SHARED, "datasets/langfuse_framework_traces"),
    ];
    const r = (await cli(["import", ...paths], db1));
    expect(r.json).toMatchObject({ imported: 27, skipped: 0, failed: [] });
    const out = tmp();
    const e = (await cli(["export", "--all", "--out", out], db1));
    expect(e.json?.exported).toBe(27);
    const files = readdirSync(out);
    expect(files).toHaveLength(27);
    const db2 = "file:" + path.join(tmp(), "again.db");
    const r2 = (await cli(["import", out], db2));
    expect(r2.json).toMatchObject({ imported: 27, failed: [] });
    const out2 = tmp();
    (await cli(["export", "--all", "--out", out2], db2));
    for (const f of files) {
      const a = parseJsonText(readFileSync(path.join(out, f), "utf8"));
      const b = parseJsonText(readFileSync(path.join(out2, f), "utf8"));
      expect(sha256Tagged(canonicalJson(b))).toBe(sha256Tagged(canonicalJson(a)));
    }
    const gold = parseJsonText(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c2.bundle.json"), "utf8"));
    const exported = parseJsonText(readFileSync(path.join(out, "ag2__webarena_verified_hard_267__attempt_000.bundle.json"), "utf8"));
    expect(sha256Tagged(canonicalJson(exported))).toBe(sha256Tagged(canonicalJson(gold)));
  });

  test("export of an unknown id fails clearly", async () => {
    const r = (await cli(["export", "nope/nope", "--out", tmp()]));
    expect(r.code).toBe(1);
    expect((r.json?.errors as Array<{ message: string }>)[0].message).toMatch(/no case with id or bundle id "nope\/nope"/);
  });
});
