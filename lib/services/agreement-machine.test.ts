/**
 * The LLM annotator beside the humans (issue 24 item 3), on a real database: four Who&When cases,
 * three blind human annotators each (imported submitted initials), and the LLM annotator run
 * against a local **scripted** OpenAI-compatible server (model "scripted-model"). Checks: the
 * machine account is marked, its annotations pass the protocol's validation (quotes that occur
 * in their node), the humans' Fleiss' κ and case set are unchanged by it (it is never one of the
 * three), and the dashboard component shows Cohen's κ per human and Fleiss' κ with/without the
 * machine with the values computed by hand.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MachineAgreement } from "../../components/agreement/machine-agreement";
import { exportAnnotations, importAnnotationsFile, importCase, listMachineAnnotations, submitMachineAnnotation, WorkflowError, type DbHandle } from "../db";
import { freshTestDb } from "../db/test-db";
import { importWhoWhen } from "../importers/who-and-when";
import { messageText, startScriptedOpenAI, type ScriptedOpenAI } from "../testing/scripted-openai";
import { agreementFromDb } from "./agreement";
import { humanMachineFromDb } from "./agreement-machine";
import { annotateWithLlm } from "./attribution/annotate";
import { createAttributionLlm } from "./attribution/llm";

const ROOT = path.resolve(__dirname, "../../../shared/datasets/who_and_when_full/Algorithm-Generated");
const N = [1, 2, 3, 4];
/** Primary category per case: three humans, then the machine. */
const HUMANS = [["C1", "C1", "C2"], ["C3", "C3", "C3"], ["C2", "C4", "C2"], ["C1", "C2", "C1"]];
const MACHINE = ["C1", "C3", "C2", "C4"];
const MACHINE_STEP = [1, 1, 1, 2];

let h: DbHandle;
let server: ScriptedOpenAI;
const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-machine-"));
const questions: string[] = [];

beforeAll(async () => {
  h = await freshTestDb();
  const cases = [];
  for (const n of N) {
    const r = importWhoWhen(readFileSync(path.join(ROOT, `${n}.json`), "utf8"), { fileName: `Algorithm-Generated/${n}.json` });
    await importCase(h.db, r.cases[0]);
    const b = r.cases[0].bundle;
    questions.push(b.task.prompt as string);
    const node = b.graph.nodes[1];
    const quote = (node.content as { text: string }).text.trim().slice(0, 12);
    cases.push({
      caseId: b.id,
      initial: HUMANS[n - 1].map((primary, j) => ({ annotator: `annotator-${"abc"[j]}`, categories: [primary], primary, nodeId: node.id, nodeType: node.type, confidence: "medium", rationale: "human reading", evidence: [{ nodeId: node.id, quote }] })),
    });
  }
  const imp = await importAnnotationsFile(h.db, { format: "symtrace.annotations/v1", cases });
  if (imp.failed.length) throw new Error(JSON.stringify(imp.failed));
  // scripted annotator: the case's planned primary and step, quoting the first 12 characters of that step
  server = await startScriptedOpenAI({
    respond: (req) => {
      const user = messageText(req.messages[1]);
      const i = questions.findIndex((q) => user.includes(`The problem the agents tried to solve: ${q}`));
      const step = MACHINE_STEP[i];
      const text = new RegExp(`^Step ${step} - [^:]+: ([\\s\\S]{12})`, "m").exec(user)![1];
      return { content: JSON.stringify({ categories: [MACHINE[i]], primary: MACHINE[i], step, confidence: "high", rationale: "scripted", evidence: [{ step, quote: text.trim() }, { step, quote: "not in this step" }] }) };
    },
  });
}, 120_000);
afterAll(async () => {
  await server.close();
  await h.db.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("the LLM annotator as a machine rater", () => {
  test("annotates every case under a machine account; invented quotes are dropped; a rerun asks nothing", async () => {
    const llm = createAttributionLlm({ upstream: server.url, model: "scripted-model", cacheDir: dir });
    const before = await agreementFromDb(h.db);
    const run = await annotateWithLlm(h.db, llm);
    expect(run).toMatchObject({ rater: "LLM annotator (scripted-model)", annotated: 4, failed: [], calls: 4, httpCalls: 4, droppedQuotes: 4 });
    const user = await h.db.user.findFirstOrThrow({ where: { name: "LLM annotator (scripted-model)" } });
    expect(user).toMatchObject({ kind: "machine", roles: "" });
    expect(await h.db.account.count({ where: { userId: user.id } })).toBe(0); // cannot sign in
    const rows = await listMachineAnnotations(h.db);
    expect(rows.map((r) => [r.primary, r.nodeId])).toEqual(N.map((_, i) => [MACHINE[i], `msg_000${MACHINE_STEP[i]}`]));
    const again = await annotateWithLlm(h.db, createAttributionLlm({ upstream: server.url, model: "scripted-model", cacheDir: dir }));
    expect(again).toMatchObject({ annotated: 4, httpCalls: 0, calls: 4 });
    expect(server.requests).toHaveLength(4);
    // never one of the three: every case still has exactly its three human initials, the humans' κ is unchanged
    const file = await exportAnnotations(h.db, { submittedOnly: true });
    expect(file.cases.map((c) => c.initial.map((a) => a.annotator))).toEqual(N.map(() => ["annotator-a", "annotator-b", "annotator-c"]));
    const after = await agreementFromDb(h.db);
    expect(after.ok && before.ok).toBe(true);
    if (after.ok && before.ok) {
      expect(after.cases).toBe(4);
      expect(after.excluded).toEqual([]);
      expect(after.primaryCategory.kappa).toBeCloseTo(0.2941176470588235, 12); // the humans alone, as humanMachineFromDb reports
      expect(after.primaryCategory.kappa).toBe(before.primaryCategory.kappa);
    }
  }, 120_000);

  test("human–machine κ: Cohen per human 2/3, 1/3, 1/3; Fleiss 0.2941 (humans) vs 0.3692 (with the machine)", async () => {
    const [r] = await humanMachineFromDb(h.db);
    expect(r.rater).toBe("LLM annotator (scripted-model)");
    expect(r.cases).toBe(4);
    expect(r.perHuman.map((x) => [x.annotator, x.items])).toEqual([["annotator-a", 4], ["annotator-b", 4], ["annotator-c", 4]]);
    expect(r.perHuman[0].primary.kappa).toBeCloseTo(2 / 3, 12);
    expect(r.perHuman[1].primary.kappa).toBeCloseTo(1 / 3, 12);
    expect(r.perHuman[2].primary.kappa).toBeCloseTo(1 / 3, 12);
    expect(r.perHuman[0].sameNode).toMatchObject({ x: 3, n: 4 });
    expect(r.fleissPrimary.items).toBe(4);
    expect(r.fleissPrimary.humans!.kappa).toBeCloseTo(0.2941176470588235, 12);
    expect(r.fleissPrimary.withMachine!.kappa).toBeCloseTo(0.3691756272401433, 12);
    expect(r.fleissPrimary.withMachine!.raters).toBe(4);
    const html = renderToStaticMarkup(createElement(MachineAgreement, { raters: [r] }));
    expect(html).toContain("LLM annotator (scripted-model)");
    expect(html).toContain(">machine</span>");
    expect(html).toMatch(/data-testid="fleiss-humans">.*?0\.294</);
    expect(html).toMatch(/data-testid="fleiss-with-machine">.*?0\.369</);
    expect(html).toMatch(/data-testid="cohen-annotator-a">.*?0\.667.*?3\/4/);
  });

  test("a machine annotation is validated like a submission; only machine accounts write one", async () => {
    const user = await h.db.user.findFirstOrThrow({ where: { kind: "machine" } });
    const bad = { categories: ["C1" as const], primary: "C1" as const, nodeId: "msg_0001", nodeType: "agent_action", confidence: "low" as const, rationale: "x", evidence: [{ nodeId: "msg_0001", quote: "no such words here" }] };
    await expect(submitMachineAnnotation(h.db, { caseId: "who_and_when/algorithm-generated/1", machineUserId: user.id, fields: bad })).rejects.toBeInstanceOf(WorkflowError);
    const human = await h.db.user.findFirstOrThrow({ where: { kind: "human" } });
    await expect(submitMachineAnnotation(h.db, { caseId: "who_and_when/algorithm-generated/1", machineUserId: human.id, fields: bad })).rejects.toThrow(/machine accounts only/);
  });
});
