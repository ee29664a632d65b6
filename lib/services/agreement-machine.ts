/**
 * Human–machine agreement from the database (issue 24 item 3): the humans' submitted initial
 * annotations (exportAnnotations: kind "initial" only, so a machine annotation is never among
 * them) paired per case with each machine account's annotation (listMachineAnnotations), then
 * lib/agreement humanMachineAgreement per machine rater. Same filter as the κ dashboard.
 */
import { humanMachineAgreement, type HumanMachineAgreement, type HumanMachineCase } from "../agreement";
import { exportAnnotations, listMachineAnnotations, type Db } from "../db";
import { allowedBundleIds, type AgreementFilter } from "./agreement";

/** One entry per machine rater (by name), [] when there are no machine annotations. */
export async function humanMachineFromDb(db: Db, f: AgreementFilter = {}): Promise<HumanMachineAgreement[]> {
  const machine = await listMachineAnnotations(db);
  if (!machine.length) return [];
  const [file, allowed] = await Promise.all([exportAnnotations(db, { submittedOnly: true }), allowedBundleIds(db, f)]);
  const humans = new Map(file.cases.map((c) => [c.caseId, c.initial.map((a) => ({ annotator: a.annotator ?? "(unnamed)", primary: a.primary ?? null, nodeId: a.nodeId ?? null }))]));
  const byRater = new Map<string, HumanMachineCase[]>();
  for (const m of machine) {
    if (allowed && !allowed.has(m.caseId)) continue;
    if (!byRater.has(m.rater)) byRater.set(m.rater, []);
    byRater.get(m.rater)!.push({ caseId: m.caseId, humans: humans.get(m.caseId) ?? [], machine: { primary: m.primary, nodeId: m.nodeId } });
  }
  return [...byRater].map(([rater, cases]) => humanMachineAgreement(rater, cases));
}
