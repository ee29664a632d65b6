/**
 * Issue 20 item 11: the import warnings marked on nodes reach the inspector's graph and timeline
 * through lib/db (whole graph and windowed), on a fresh test database. Hand-written OTLP spans.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { importOtel } from "../importers";
import { importCase } from "./cases";
import { getCaseGraph } from "./cases";
import { getGraphWindow } from "./cases-window";
import { freshTestDb } from "./test-db";
import type { DbHandle } from "./client";

let h: DbHandle;
beforeAll(async () => {
  h = await freshTestDb();
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

test("getCaseGraph and getGraphWindow carry each node's import warnings, and only those nodes'", async () => {
  const T0 = 1_700_000_000_000_000_000n;
  const sp = (id: string, parent: string, end: bigint | null) => ({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: id, parentSpanId: parent, name: id, startTimeUnixNano: String(T0 + 10n), ...(end === null ? {} : { endTimeUnixNano: String(end) }) });
  const r = importOtel(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [sp("a000000000000001", "", T0 + 100n), sp("a000000000000002", "a000000000000001", null), sp("a000000000000003", "a000000000000001", T0)] }] }] }), { fileName: "w.json" });
  expect(r.failures).toEqual([]);
  const { caseId } = await importCase(h.db, { bundle: r.cases[0]!.bundle });
  const g = await getCaseGraph(h.db, { caseId });
  const marked = Object.fromEntries(g.nodes.filter((n) => n.warnings).map((n) => [n.id, n.warnings]));
  expect(Object.values(marked).flat().sort()).toEqual([expect.stringMatching(/^clock skew: end time \d+ before start time \d+; drawn zero-width$/), "not ended"]);
  const w = await getGraphWindow(h.db, { caseId, from: 0, to: 10 });
  expect(Object.fromEntries(w.nodes.filter((n) => n.warnings).map((n) => [n.id, n.warnings]))).toEqual(marked);
});
