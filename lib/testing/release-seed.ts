/**
 * Demo-like data for release tests (issue 14): the four gold bundles and two Who&When records of
 * the shared folder (SYMTRACE_SHARED_DIR), the demo accounts (scripts/seed.ts emails and names), blind initial annotations by
 * three annotators through the real workflow (lib/db saveDraft/submitInitial) and finals by the
 * adjudicator (finalizeCase, with the gold finals of fixtures/bundles/gold-annotations.json).
 *
 * Initial primary categories (rows = cases c1..c4, columns = annotators 1..3):
 *   c1 C1 C1 C1 · c2 C2 C2 C3 · c3 C3 C3 C3 · c4 C4 C1 C4
 * so Fleiss' κ of the primary category is (2/3 − 5/18) / (1 − 5/18) = 7/13 (P̄ = 2/3, P̄e = 40/144).
 * c1–c3 are adjudicated, c4 is not; one Who&When case has two initial annotations (left out of
 * agreement), the other none.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { AnnotationFields, Viewer } from "../annotation";
import { parseJsonText } from "../bundle";
import { assignCases, finalizeCase, saveDraft, submitInitial, upsertUser, type Db } from "../db";
import { importPaths } from "../services/import-files";

export const RELEASE_SEED_USERS = [
  { email: "admin@symtrace.local", name: "Ada Admin", roles: ["admin", "researcher"] },
  { email: "annotator1@symtrace.local", name: "Annotator One", roles: ["annotator"] },
  { email: "annotator2@symtrace.local", name: "Annotator Two", roles: ["annotator"] },
  { email: "annotator3@symtrace.local", name: "Annotator Three", roles: ["annotator"] },
  { email: "adjudicator@symtrace.local", name: "Adi Adjudicator", roles: ["adjudicator"] },
] as const;

export const GOLD_IDS = [
  "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000",
  "ag2/webarena_verified_hard_267/attempt_000",
  "ag2/webarena_verified_hard_320/attempt_000",
  "crewai/webarena_verified_hard_204/attempt_000",
] as const;

type Fields = Omit<AnnotationFields, "confidence" | "rationale" | "evidence"> & Partial<AnnotationFields>;

/**
 * Seed `db` (empty, migrated).
 * @returns the bundle ids of the Who&When cases (annotated one first)
 */
export async function seedReleaseData(db: Db, shared: string): Promise<{ whoAndWhen: string[] }> {
  const b = path.join(shared, "fixtures/bundles");
  const r = await importPaths(db, [
    ...[1, 2, 3, 4].map((i) => path.join(b, `gold-c${i}.bundle.json`)),
    path.join(shared, "datasets/who_and_when/Hand-Crafted/1.json"),
    path.join(shared, "datasets/who_and_when/Algorithm-Generated/1.json"),
  ]);
  if (r.failed.length) throw new Error(`seed import failed: ${JSON.stringify(r.failed)}`);
  const users: Viewer[] = [];
  for (const u of RELEASE_SEED_USERS) {
    const x = await upsertUser(db, { email: u.email, name: u.name, roles: [...u.roles], password: "symtrace-demo" });
    users.push({ id: x.id, roles: [...u.roles] as Viewer["roles"] });
  }
  const [admin, a1, a2, a3, adj] = users;
  const caseOf = async (bundleId: string) => (await db.case.findUniqueOrThrow({ where: { bundleId }, select: { id: true } })).id;
  const gold = await Promise.all(GOLD_IDS.map(caseOf));
  const ww = (await db.case.findMany({ where: { sourceDataset: "who_and_when" }, select: { id: true, bundleId: true }, orderBy: { bundleId: "asc" } }));
  await assignCases(db, admin, { caseIds: [...gold, ww[0].id], annotatorIds: [a1.id, a2.id, a3.id], adjudicatorId: adj.id });

  const finals = (parseJsonText(readFileSync(path.join(b, "gold-annotations.json"), "utf8")) as { cases: Array<{ caseId: string; final: AnnotationFields }> }).cases;
  const finalOf = (id: string) => finals.find((c) => c.caseId === id)!.final;
  const full = (f: Fields, who: number): AnnotationFields => ({ confidence: "medium", rationale: `Annotator ${who}'s reading of the failure.`, evidence: [], ...f });
  const plan: Fields[][] = [
    [finalOf(GOLD_IDS[0]), { categories: ["C1"], primary: "C1", nodeId: "final_result", nodeType: "final_result" }, { categories: ["C1"], primary: "C1", nodeId: "final_result", nodeType: "final_result" }],
    [finalOf(GOLD_IDS[1]), { categories: ["C2"], primary: "C2", nodeId: "tool_result_0002", nodeType: "tool_result" }, { categories: ["C3"], primary: "C3", nodeId: "tool_result_0002", nodeType: "tool_result" }],
    [finalOf(GOLD_IDS[2]), { categories: ["C3"], primary: "C3", nodeId: "tool_result_0000", nodeType: "tool_result" }, { categories: ["C3", "C4"], primary: "C3", nodeId: "agent_action_0000", nodeType: "agent_action" }],
    [finalOf(GOLD_IDS[3]), { categories: ["C1"], primary: "C1", nodeId: "agent_action_0000", nodeType: "agent_action" }, { categories: ["C4"], primary: "C4", nodeId: "final_result", nodeType: "final_result" }],
  ];
  const submit = async (v: Viewer, caseId: string, f: AnnotationFields) => {
    const d = await saveDraft(db, v, { caseId, kind: "initial", version: 0, fields: f });
    await submitInitial(db, v, { caseId, version: d.version });
  };
  for (const [i, caseId] of gold.entries()) {
    for (const [j, v] of [a1, a2, a3].entries()) await submit(v, caseId, full(plan[i][j], j + 1));
  }
  for (const i of [0, 1, 2]) await finalizeCase(db, adj, { caseId: gold[i], fields: finalOf(GOLD_IDS[i]) });

  // Who&When: two of three annotators submitted
  const node = await db.node.findFirstOrThrow({ where: { caseId: ww[0].id }, orderBy: { idx: "desc" }, select: { nodeId: true, type: true } });
  // (annotator 2's rationale names two accounts: the release must not carry them)
  for (const [j, v] of [a1, a2].entries())
    await submit(v, ww[0].id, full({ categories: ["C2"], primary: "C2", nodeId: node.nodeId, nodeType: node.type, ...(j === 1 ? { rationale: "Annotator 2's reading; Annotator One (annotator1@symtrace.local) asked Ada Admin about it." } : {}) }, j + 1));
  return { whoAndWhen: ww.map((w) => w.bundleId) };
}
