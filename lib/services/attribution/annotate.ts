/**
 * The LLM annotator over the database's Who&When cases (issue 24 item 3): for each case, one call
 * (lib/attribution annotatorPrompt, cached by ./llm.ts), the reply parsed into protocol fields
 * (quotes that do not occur in their node dropped) and stored as the machine account's annotation
 * (lib/db submitMachineAnnotation, validated like a human submission). A reply that is not a
 * usable annotation is reported per case and stores nothing.
 */
import { ANNOTATOR_SYSTEM, annotatorPrompt, AnnotatorReplyError, attributionCaseFromBundle, parseAnnotatorReply, type AttributionLlm } from "../../attribution";
import { ensureMachineAccount, exportBundle, listCases, submitMachineAnnotation, WorkflowError, type Db } from "../../db";

export interface AnnotateRun {
  rater: string;
  annotated: number;
  failed: Array<{ caseId: string; message: string }>;
  calls: number;
  httpCalls: number;
  tokens: number;
  droppedQuotes: number;
}

/**
 * @param o.caseIds bundle ids to annotate (default: every who_and_when case, `limit` first)
 * @throws the endpoint's error (nothing is stored for that case; earlier ones stay)
 */
export async function annotateWithLlm(db: Db, llm: AttributionLlm, o: { caseIds?: string[]; limit?: number } = {}): Promise<AnnotateRun> {
  const account = await ensureMachineAccount(db, { model: llm.model });
  const ids = o.caseIds ?? (await listCases(db, { dataset: "who_and_when", take: o.limit ?? 1_000_000 })).cases.map((c) => c.bundleId);
  const run: AnnotateRun = { rater: account.name, annotated: 0, failed: [], calls: 0, httpCalls: 0, tokens: 0, droppedQuotes: 0 };
  for (const id of ids.slice(0, o.limit ?? ids.length)) {
    const bundle = await exportBundle(db, { bundleId: id });
    if (!bundle) {
      run.failed.push({ caseId: id, message: "no such case" });
      continue;
    }
    const c = attributionCaseFromBundle(bundle);
    const reply = await llm.complete({ model: llm.model, temperature: 0, messages: [{ role: "system", content: ANNOTATOR_SYSTEM }, { role: "user", content: annotatorPrompt(c) }] });
    run.calls++;
    if (!reply.cached) run.httpCalls++;
    run.tokens += reply.usage.prompt + reply.usage.completion;
    try {
      const m = parseAnnotatorReply(c, reply.text);
      run.droppedQuotes += m.droppedQuotes;
      await submitMachineAnnotation(db, { caseId: id, machineUserId: account.id, fields: m.fields, about: { annotator: "llm", model: llm.model } });
      run.annotated++;
    } catch (e) {
      if (e instanceof AnnotatorReplyError || e instanceof WorkflowError) run.failed.push({ caseId: id, message: e.message });
      else throw e;
    }
  }
  return run;
}
