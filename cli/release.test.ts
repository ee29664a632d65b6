import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { runSymtraceHere, spawnSymtrace } from "../lib/testing/cli";
import { openDb } from "../lib/db";
import { migrate } from "../lib/db/migrate";
import { seedReleaseData } from "../lib/testing/release-seed";
import { releaseCommand } from "./release";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const ROOT = path.resolve(import.meta.dirname, "..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const tmp = () => mkdtempSync(path.join(os.tmpdir(), "symtrace-release-cli-"));
const newDb = () => "file:" + path.join(tmp(), "cli.db");

/** One command in this process (runSymtraceHere); `spawned`: as its own process (spawnSymtrace). */
async function cli(args: string[], dbUrl: string, o: { spawned?: boolean } = {}) {
  const r = o.spawned ? spawnSymtrace(args, dbUrl) : await runSymtraceHere(args, dbUrl);
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  return { code: r.status, json: JSON.parse(r.stdout) as Record<string, unknown> & { errors?: Array<{ path: string; message: string }> } };
}

let source: string;
beforeAll(async () => {
  source = newDb();
  await migrate(source);
  const { db } = openDb(source);
  try {
    await seedReleaseData(db, SHARED);
  } finally {
    await db.$disconnect();
  }
});

describe("symtrace release", () => {
  test("export → import into a new database → agreement --from-db gives the release's figures", async () => {
    const out = path.join(tmp(), "rel");
    const e = (await cli(["release", "export", "--out", out, "--status", "all", "--release-version", "1.0.0"], source));
    expect(e.code).toBe(0);
    expect(e.json).toMatchObject({ ok: true, version: "1.0.0", cases: 6, annotations: { initial: 14, final: 3 }, agreement: { cases: 4, excluded: 1 } });
    expect((e.json.agreement as { primaryCategoryKappa: number }).primaryCategoryKappa).toBeCloseTo(7 / 13, 12);

    const target = newDb();
    const i = (await cli(["release", "import", out], target));
    expect(i.code).toBe(0);
    expect(i.json).toMatchObject({ ok: true, version: "1.0.0", cases: 6, verified: { bundleHashes: 6, agreement: "equal" } });
    const a = (await cli(["agreement", "--from-db"], target));
    expect(a.code).toBe(0);
    expect(a.json).toEqual(JSON.parse(readFileSync(path.join(out, "agreement.json"), "utf8")).report);

    const again = (await cli(["release", "import", out], target));
    expect(again.code).toBe(1);
    expect(again.json.errors?.[0].message).toMatch(/^the database is not empty \(6 case\(s\)/);
  });

  test("bad usage exits 2 with the reason (in process)", async () => {
    const run = async (args: string[]) => (await releaseCommand(args)) as { code: number; output: { errors: Array<{ path: string; message: string }> } };
    expect(await run(["export"])).toMatchObject({ code: 2, output: { errors: [{ path: "--out", message: expect.stringMatching(/^--out is required/) }] } });
    expect(await run(["export", "--out", "x", "--format", "nope"])).toMatchObject({ code: 2, output: { errors: [{ path: "--format", message: expect.stringMatching(/^--format must be one of bundle/) }] } });
    expect(await run(["export", "--out", "x", "--status", "done"])).toMatchObject({ code: 2, output: { errors: [{ path: "--status" }] } });
    expect(await run(["export", "--out", "x", "--cases", ","])).toMatchObject({ code: 2, output: { errors: [{ path: "--cases" }] } });
    expect(await run(["import"])).toMatchObject({ code: 2 });
    expect(await run(["import", "a", "--force"])).toMatchObject({ code: 2, output: { errors: [{ message: expect.stringMatching(/^unknown option --force/) }] } });
    expect(await run(["publish"])).toMatchObject({ code: 2 });
  });

  test("an empty selection, --parquet with bundles and a missing folder are errors, nothing written", async () => {
    const db = newDb();
    const out = path.join(tmp(), "none");
    const r = (await cli(["release", "export", "--out", out], db));
    expect(r.code).toBe(1);
    expect(r.json.errors?.[0].message).toMatch(/^no case matches the release filter \(adjudicated/);
    expect(existsSync(out)).toBe(false);
    expect((await cli(["release", "export", "--out", out, "--parquet"], source)).code).toBe(2);
    const m = (await cli(["release", "import", path.join(tmp(), "absent")], db, { spawned: true }));
    expect(m.code).toBe(1);
    expect(m.json.errors?.[0].message).toMatch(/is not a folder$/);
  });
});
