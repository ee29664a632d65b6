/**
 * Issue 22 item 3: the case list paginates on the server (cursor, page size, total) and keeps
 * generated cases (replays / search nodes: "replay", experiment attempts: "experiment") out of the
 * main list, counted under their parent. Before, /cases rendered every case (363 in the demo, 270
 * of them experiment attempts) on one page.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayBundle } from "../bundle";
import { importCase, type DbHandle } from "./index";
import { decodeCaseCursor, encodeCaseCursor, listCasePage } from "./case-list";
import { freshTestDb } from "./test-db";

const shared = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const gold = (n: number) => JSON.parse(readFileSync(path.join(shared, `fixtures/bundles/gold-c${n}.bundle.json`), "utf8")) as ReplayBundle;
let h: DbHandle;
const ids: string[] = [];

beforeAll(async () => {
  h = await freshTestDb();
  for (const n of [1, 2, 3, 4]) ids.push((await importCase(h.db, { bundle: gold(n) })).caseId);
  const src = gold(1);
  // Two replays of gold-c1 and one experiment attempt of it, as the app imports them.
  for (const k of ["r1", "r2"]) await importCase(h.db, { bundle: { ...src, id: `${src.id}~replay-${k}`, parent: { bundleId: src.id, targetNodeId: src.order[2], guidance: "", mode: "selective" } } as ReplayBundle, source: { dataset: "replay" as never, file: "t", recordKey: k } });
  await importCase(h.db, { bundle: { ...src, id: `${src.id}~exp-a1`, parent: { bundleId: src.id, targetNodeId: src.order[2], guidance: "", mode: "selective" } } as ReplayBundle, source: { dataset: "experiment" as never, file: "e", recordKey: "a1" } });
  // A task-level attempt restarts the MAS: no parent, its id extends the source's.
  await importCase(h.db, { bundle: { ...src, id: `${src.id}~exp-rerun-a1`, parent: null } as ReplayBundle, source: { dataset: "experiment" as never, file: "e", recordKey: "r1" } });
}, 60_000);
afterAll(async () => h?.db.$disconnect());

describe("listCasePage", () => {
  it("pages with a cursor: page size, total over all pages, no row twice, null cursor on the last page", async () => {
    const p1 = await listCasePage(h.db, { pageSize: 3 });
    expect(p1.total).toBe(4);
    expect(p1.cases).toHaveLength(3);
    expect(p1.nextCursor).not.toBeNull();
    const p2 = await listCasePage(h.db, { pageSize: 3, cursor: p1.nextCursor });
    expect(p2.total).toBe(4);
    expect(p2.cases).toHaveLength(1);
    expect(p2.nextCursor).toBeNull();
    const all = [...p1.cases, ...p2.cases].map((c) => c.bundleId);
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(4);
    expect(all.some((b) => b.includes("~"))).toBe(false);
  });
  it("generated cases are not in the main list but counted under their parent; `parent` lists them; `generated` includes them", async () => {
    const p = await listCasePage(h.db, {});
    const src = gold(1).id;
    expect(p.generatedCounts).toEqual({ [src]: 4 });
    const children = await listCasePage(h.db, { parent: src });
    expect(children.total).toBe(4);
    expect(children.cases.map((c) => c.sourceDataset).sort()).toEqual(["experiment", "experiment", "replay", "replay"]);
    expect((await listCasePage(h.db, { generated: true })).total).toBe(8);
    expect((await listCasePage(h.db, { dataset: "replay" })).total).toBe(2);
  });
  it("filters and search hold across pages; a bad cursor is an error naming it", async () => {
    const q = gold(3).task.prompt.slice(0, 12);
    const p = await listCasePage(h.db, { q, pageSize: 1 });
    expect(p.total).toBeGreaterThanOrEqual(1);
    expect(p.cases[0].taskPrompt).toContain(q);
    const page2 = p.nextCursor ? await listCasePage(h.db, { q, pageSize: 1, cursor: p.nextCursor }) : null;
    for (const c of page2?.cases ?? []) expect(c.taskPrompt.toLowerCase()).toContain(q.toLowerCase());
    expect(decodeCaseCursor(encodeCaseCursor({ sourceDataset: "bundle", bundleId: "a/b" }))).toEqual({ sourceDataset: "bundle", bundleId: "a/b" });
    await expect(listCasePage(h.db, { cursor: "nonsense" })).rejects.toThrow('invalid cursor "nonsense"');
  });
  it("page size is bounded to 1–200", async () => {
    expect((await listCasePage(h.db, { pageSize: 0 })).pageSize).toBe(1);
    expect((await listCasePage(h.db, { pageSize: 10_000 })).pageSize).toBe(200);
  });
});
