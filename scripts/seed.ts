/**
 * `npm run db:seed`: import the bundled sample data from the shared folder
 * (SYMTRACE_SHARED_DIR, default: the shared folder beside the repo): the paper's four gold replay bundles and the public
 * dataset samples (Who&When, MAST/MAD, Langfuse OTel traces), plus the demo's recorded
 * reference-MAS case from demo/ in the repo (replayable natively with the built-in runner
 * `orchestrator` against the scripted stand-in), and the demo's finished repair experiment
 * (demo/experiment: 30 recorded failures of the calibrated world × 9 methods × k = 1, with every
 * attempt's bundle). Idempotent (re-runs skip).
 * Prints the import report as JSON.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { assignCases, findCaseId, openDb, upsertUser, type Db } from "../lib/db";
import { migrate } from "../lib/db/migrate";
import { sharedDir } from "../lib/env";
import { importPaths } from "../lib/services/import-files";
import { demoPaths, seedDemoExperiment } from "./demo-data";

export function samplePaths(shared: string): string[] {
  return [
    path.join(shared, "fixtures/bundles/gold-c1.bundle.json"),
    path.join(shared, "fixtures/bundles/gold-c2.bundle.json"),
    path.join(shared, "fixtures/bundles/gold-c3.bundle.json"),
    path.join(shared, "fixtures/bundles/gold-c4.bundle.json"),
    path.join(shared, "datasets/who_and_when"),
    path.join(shared, "datasets/mast_mad/MAD_human_labelled_sample.json"),
    path.join(shared, "datasets/langfuse_framework_traces"),
  ];
}

/** Demo accounts of the embedded default (printed by `npm run demo`). */
export const DEMO_PASSWORD = "symtrace-demo";
export const DEMO_USERS = [
  { email: "admin@symtrace.local", name: "Ada Admin", roles: ["admin", "researcher"] },
  { email: "annotator1@symtrace.local", name: "Annotator One", roles: ["annotator"] },
  { email: "annotator2@symtrace.local", name: "Annotator Two", roles: ["annotator"] },
  { email: "annotator3@symtrace.local", name: "Annotator Three", roles: ["annotator"] },
  { email: "adjudicator@symtrace.local", name: "Adi Adjudicator", roles: ["adjudicator"] },
  { email: "researcher@symtrace.local", name: "Rae Researcher", roles: ["researcher"] },
];

/**
 * Create the demo accounts that do not exist yet (existing ones are left alone), and assign the
 * four gold cases to the three demo annotators and the demo adjudicator.
 */
async function seedDemoAccounts(db: Db): Promise<string[]> {
  const created: string[] = [];
  for (const u of DEMO_USERS) {
    if (await db.user.findUnique({ where: { email: u.email } })) continue;
    await upsertUser(db, { ...u, password: DEMO_PASSWORD });
    created.push(u.email);
  }
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@symtrace.local" } });
  const annotators = await db.user.findMany({ where: { email: { in: ["annotator1@symtrace.local", "annotator2@symtrace.local", "annotator3@symtrace.local"] } } });
  const adjudicator = await db.user.findUniqueOrThrow({ where: { email: "adjudicator@symtrace.local" } });
  const caseIds: string[] = [];
  for (const bundleId of [
    "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000",
    "ag2/webarena_verified_hard_267/attempt_000",
    "ag2/webarena_verified_hard_320/attempt_000",
    "crewai/webarena_verified_hard_204/attempt_000",
  ]) {
    const id = await findCaseId(db, { bundleId });
    if (id) caseIds.push(id);
  }
  await assignCases(db, { id: admin.id, roles: ["admin"] }, { caseIds, perCase: 3, annotatorIds: annotators.map((a) => a.id), adjudicatorId: adjudicator.id });
  return created;
}

async function main() {
  const shared = sharedDir();
  if (!existsSync(shared)) throw new Error(`shared folder not found at ${shared}; set SYMTRACE_SHARED_DIR`);
  const { db, url } = openDb();
  await migrate(url);
  const r = await importPaths(db, [...samplePaths(shared), ...demoPaths()]);
  const accounts = process.env.SYMTRACE_DEMO_ACCOUNTS === "0" ? [] : await seedDemoAccounts(db);
  const experiment = await seedDemoExperiment(db);
  await db.$disconnect();
  console.log(JSON.stringify({ imported: r.imported, skipped: r.skipped, replaced: r.replaced, failed: r.failed, accountsCreated: accounts, demoExperiment: experiment }));
  if (r.failed.length) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`seed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
