/**
 * `symtrace detect`: suspicious-node detection (lib/symptoms; seeds/000 Appendix F). Thin.
 *
 *   detect <bundle-file|caseId|bundleId> [--judge]
 *       one JSON object: {"anchor", "threshold", "judge", "nodes": [{"id", "categories", "rules":
 *       [{"id", "category", "evidence": [{"path", "quote"}]}], "S_r", "S_s", "c_f", "eligible"}],
 *       plus "bundleId", "mode" ("rules only" | "rules + judge") and "anchorNode"}; only nodes
 *       where a rule fired, in observed order. A file may be a replay bundle or any importable
 *       file holding exactly one case (Who&When record, Langfuse trace, …).
 *   detect --eval [--dataset D] [--dir <file-or-dir>...] [--seed S]   (cli/detect.ts evalCommand)
 *
 * Returns `{ code, output }` and prints nothing: 0 ok; 1 unreadable/invalid input, unknown case,
 * judge not configured or failing (`{ ok: false, errors: [{ path, message }] }`); 2 bad usage.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseJsonText, validateBundle, type ReplayBundle } from "../lib/bundle";
import { detectFormat, importText } from "../lib/importers";
import { detectSymptoms, detectWithJudge, JudgeReplyError, type DetectionResult } from "../lib/symptoms";

export type Result = { code: number; output: unknown };
export const DETECT_USAGE = "symtrace detect <bundle-file|caseId|bundleId> [--judge]";
export const EVAL_USAGE = "symtrace detect --eval [--dataset D] [--dir <file-or-dir>...] [--seed S]";

const fail = (code: number, message: string, p = "$"): Result => ({ code, output: { ok: false, errors: [{ path: p, message }] } });

/** The issue's output shape (scores under their paper names). */
export function detectionOutput(d: DetectionResult) {
  return {
    anchor: d.anchor,
    threshold: d.threshold,
    judge: d.judge,
    nodes: d.nodes.map((n) => ({
      id: n.id,
      categories: n.categories,
      rules: n.rules.map((r) => ({ id: r.id, category: r.category, evidence: r.evidence })),
      S_r: n.Sr,
      S_s: n.Ss,
      c_f: n.cf,
      eligible: n.eligible,
    })),
    bundleId: d.bundleId,
    mode: d.mode,
    anchorNode: d.anchorNode,
  };
}

/** A bundle from a file: a replay bundle (validated) or an importable file with exactly one case. */
function bundleFromFile(file: string): { bundle: ReplayBundle } | { error: Result } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { error: fail(1, `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`) };
  }
  let value: unknown;
  try {
    value = parseJsonText(text, { allowNaN: true });
  } catch (e) {
    return { error: fail(1, `${file} is not JSON: ${(e as Error).message}`) };
  }
  if (detectFormat(value) === "bundle") {
    const v = validateBundle(value);
    if (!v.ok) return { error: { code: 1, output: { ok: false, errors: v.issues.map((i) => ({ path: i.path, message: i.message, rule: i.rule, ...(i.nodeId !== undefined ? { nodeId: i.nodeId } : {}) })) } } };
    return { bundle: v.bundle };
  }
  const r = importText(text, file);
  if (r.cases.length === 1) return { bundle: r.cases[0].bundle };
  if (r.cases.length === 0) {
    const errors = r.failures.flatMap((f) => f.errors.map((e) => ({ path: e.path, message: `${f.where}: ${e.message}` })));
    return { error: { code: 1, output: { ok: false, errors: errors.length ? errors : [{ path: "$", message: `${file} holds no case` }] } } };
  }
  return { error: fail(1, `${file} holds ${r.cases.length} cases (${r.cases.slice(0, 3).map((c) => c.bundle.id).join(", ")}, …); import it and pass one case or bundle id`) };
}

async function bundleFromDb(id: string): Promise<{ bundle: ReplayBundle } | { error: Result }> {
  const { openDb, exportBundle } = await import("../lib/db");
  const { migrate } = await import("../lib/db/migrate");
  const handle = openDb();
  await migrate(handle.url);
  try {
    const b = (await exportBundle(handle.db, { caseId: id })) ?? (await exportBundle(handle.db, { bundleId: id }));
    return b ? { bundle: b } : { error: fail(1, `no file and no case with id or bundle id "${id}" (import it first: symtrace import <file>)`, "<bundle-file|caseId|bundleId>") };
  } finally {
    await handle.db.$disconnect();
  }
}

/** `detect <bundle-file|caseId|bundleId> [--judge]` (arguments after the command name). */
export async function detectCommand(argv: string[]): Promise<Result> {
  const args = argv.slice();
  if (args[0] === "--annotate") {
    const { annotateCommand } = await import("./detect-attribution");
    return annotateCommand(args.slice(1));
  }
  if (args.includes("--eval")) {
    const { evalCommand } = await import("./detect-eval");
    return evalCommand(args.filter((a) => a !== "--eval"));
  }
  const j = args.indexOf("--judge");
  const useJudge = j >= 0;
  if (useJudge) args.splice(j, 1);
  const unknown = args.filter((a) => a.startsWith("--"));
  if (unknown.length) return fail(2, `unknown option ${unknown[0]}; usage: ${DETECT_USAGE} | ${EVAL_USAGE}`);
  if (args.length !== 1) return fail(2, `usage: ${DETECT_USAGE} | ${EVAL_USAGE}`);
  const src = existsSync(args[0]) ? bundleFromFile(args[0]) : await bundleFromDb(args[0]);
  if ("error" in src) return src.error;
  if (!useJudge) return { code: 0, output: detectionOutput(detectSymptoms(src.bundle)) };

  const { judgeSettings, createOpenAiJudge, JudgeSettingsError } = await import("../lib/services/symptoms-judge");
  let s: ReturnType<typeof judgeSettings>;
  try {
    s = judgeSettings();
  } catch (e) {
    if (e instanceof JudgeSettingsError) return fail(1, e.message, e.variable);
    throw e;
  }
  if (!s.upstream) return fail(1, "--judge needs SYMTRACE_JUDGE_UPSTREAM (an OpenAI-compatible base URL ending in /v1) and SYMTRACE_JUDGE_MODEL", "SYMTRACE_JUDGE_UPSTREAM");
  if (!s.model) return fail(1, "--judge needs SYMTRACE_JUDGE_MODEL (the judge model id)", "SYMTRACE_JUDGE_MODEL");
  const judge = createOpenAiJudge({ upstream: s.upstream, model: s.model, apiKey: s.apiKey, cacheDir: s.cacheDir });
  try {
    const d = await detectWithJudge(src.bundle, judge);
    return { code: 0, output: { ...detectionOutput(d), judgeCalls: judge.stats } };
  } catch (e) {
    if (e instanceof JudgeReplyError) return fail(1, e.message, `nodes.${e.nodeId}`);
    return fail(1, `judge call to ${s.upstream} failed: ${(e as Error).message}`, "SYMTRACE_JUDGE_UPSTREAM");
  }
}
