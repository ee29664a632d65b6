/**
 * The experiment creation check (issue 22 item 2, issue 20 item 4): the evaluators the server has
 * configured, and which cases each can judge — used by `POST /api/experiments`, the New experiment
 * form's preview (`POST /api/experiments/check`) and `symtrace experiment run`, which refuse an
 * experiment with a case its evaluator cannot judge, naming the case and the reason.
 *
 * Configured evaluators (the pure rules: lib/experiments/judgeable.ts):
 * - the built-ins of this repo (off with SYMTRACE_BUILTIN_EVALUATORS=0): `hilltop`
 *   (scripts/hilltop-evaluator.mjs, the reference MAS's Hilltop Gardens task) and `calibrated`
 *   (scripts/calibrated-evaluator.mjs + scripts/calibrated-reproduction-judge.mjs, the calibrated
 *   world's "[calibrated task nnn]" tasks);
 * - SYMTRACE_REPLAY_EVALUATOR (name `replay-evaluator`; when it runs a built-in's script it is that
 *   built-in), with the reproduction judge SYMTRACE_EXPERIMENT_JUDGE;
 * - SYMTRACE_EVALUATORS_FILE: `{"evaluators":[{"name","command","description"?,"tasks"?,"reproductionJudge"?}]}`.
 * An evaluator without a declared `tasks` pattern is probed: run once on the case's source run
 * (evaluateReplay); exit 0/1 = it can judge the case, anything else = it cannot (its own reason).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ReplayBundle } from "../../bundle";
import type { Db } from "../../db/client";
import { ExperimentError } from "../../db/experiments";
import { declaredScopeReason, refusalMessage, type CaseJudgeability, type EvaluatorOption, type JudgeableCaseInput } from "../../experiments/judgeable";
import { evaluateReplay } from "../replay-evaluate";

const BUILTINS = (root: string): EvaluatorOption[] => [
  {
    name: "hilltop",
    command: `node ${path.join(root, "scripts/hilltop-evaluator.mjs")}`,
    source: "built-in",
    description: "the reference MAS's Hilltop Gardens task (2 adults, 3 children)",
    tasks: "Hilltop Gardens[\\s\\S]*2 adults[\\s\\S]*3 children",
    reproductionJudge: null,
  },
  {
    name: "calibrated",
    command: `node ${path.join(root, "scripts/calibrated-evaluator.mjs")}`,
    source: "built-in",
    description: "the calibrated world's tasks",
    tasks: "\\[calibrated task \\d+\\]",
    reproductionJudge: `node ${path.join(root, "scripts/calibrated-reproduction-judge.mjs")}`,
  },
];

const scriptOf = (cmd: string) => /([\w.-]+\.m?[jt]s)\b/.exec(cmd.trim().split(/\s+/).slice(-1)[0] ?? "")?.[1] ?? null;

/**
 * The evaluators this server offers, in order: SYMTRACE_REPLAY_EVALUATOR first (the default), the
 * registry file's, then the built-ins not already listed.
 * @throws Error naming SYMTRACE_EVALUATORS_FILE and the JSON path when the file is unreadable or malformed
 */
export function configuredEvaluators(env: Record<string, string | undefined> = process.env, root: string = process.cwd()): EvaluatorOption[] {
  const builtins = env.SYMTRACE_BUILTIN_EVALUATORS === "0" ? [] : BUILTINS(root);
  const out: EvaluatorOption[] = [];
  const replay = env.SYMTRACE_REPLAY_EVALUATOR?.trim();
  const judge = env.SYMTRACE_EXPERIMENT_JUDGE?.trim() || null;
  if (replay) {
    const same = builtins.find((b) => scriptOf(b.command) !== null && scriptOf(b.command) === scriptOf(replay));
    out.push(
      same
        ? { ...same, command: replay, source: "SYMTRACE_REPLAY_EVALUATOR", reproductionJudge: judge ?? same.reproductionJudge }
        : { name: "replay-evaluator", command: replay, source: "SYMTRACE_REPLAY_EVALUATOR", description: "the cases it answers 0 or 1 for (probed on each case's source run)", tasks: null, reproductionJudge: judge },
    );
  }
  const file = env.SYMTRACE_EVALUATORS_FILE?.trim();
  if (file) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new Error(`SYMTRACE_EVALUATORS_FILE ${file}: ${(e as Error).message}`);
    }
    const list = (doc as { evaluators?: unknown })?.evaluators;
    if (!Array.isArray(list)) throw new Error(`SYMTRACE_EVALUATORS_FILE ${file}: $.evaluators must be an array`);
    list.forEach((e: Record<string, unknown>, i) => {
      if (typeof e?.name !== "string" || !e.name || typeof e.command !== "string" || !e.command.trim()) throw new Error(`SYMTRACE_EVALUATORS_FILE ${file}: $.evaluators[${i}] needs a name and a command`);
      out.push({
        name: e.name,
        command: e.command,
        source: file,
        description: typeof e.description === "string" ? e.description : "the cases it answers 0 or 1 for (probed on each case's source run)",
        tasks: typeof e.tasks === "string" ? e.tasks : null,
        reproductionJudge: typeof e.reproductionJudge === "string" ? e.reproductionJudge : null,
      });
    });
  }
  for (const b of builtins) if (!out.some((o) => o.name === b.name)) out.push(b);
  return out;
}

/** The cases' task texts and datasets (in the order of `caseIds`). */
export async function loadJudgeableCases(db: Db, caseIds: readonly string[]): Promise<JudgeableCaseInput[]> {
  const rows = await db.case.findMany({ where: { id: { in: [...caseIds] } }, select: { id: true, bundleId: true, sourceDataset: true, taskPrompt: true } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return caseIds.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ caseId: r.id, bundleId: r.bundleId, dataset: r.sourceDataset, task: r.taskPrompt }] : [];
  });
}

const probeCache = new Map<string, string | null>();

/**
 * Can `ev` judge each case? Declared scope: the task pattern; else a probe (evaluateReplay on the
 * case's source bundle, 4 at a time, cached per command and bundle in this process).
 * @param o.thread probe a `node <module>` evaluator in a worker thread (evaluateReplay's `thread`;
 *   the CLI's `experiment run`, whose attempts run it so too); default a process
 */
export async function judgeCases(db: Db, ev: EvaluatorOption, cases: readonly JudgeableCaseInput[], o: { thread?: boolean } = {}): Promise<CaseJudgeability[]> {
  const out: CaseJudgeability[] = cases.map((c) => ({ caseId: c.caseId, bundleId: c.bundleId, dataset: c.dataset, reason: declaredScopeReason(ev, c.task) }));
  if (ev.tasks !== null) return out;
  const { exportBundle } = await import("../../db/cases");
  let next = 0;
  const work = async () => {
    for (;;) {
      const i = next++;
      if (i >= cases.length) return;
      const c = cases[i];
      const key = `${ev.command}\u0000${c.caseId}`;
      if (!probeCache.has(key)) {
        const b = (await exportBundle(db, { caseId: c.caseId })) as ReplayBundle | null;
        const r = b ? await evaluateReplay(b, ev.command, { timeoutMs: 30_000, ...(o.thread ? { thread: true } : {}) }) : null;
        const said = (r?.details as { error?: string } | null)?.error;
        probeCache.set(key, !b ? "the case's bundle is not stored" : r && r.passed !== null ? null : `evaluator ${ev.name} gives no verdict on this case's source run (${said ?? "no reason given"})`);
      }
      out[i].reason = probeCache.get(key)!;
    }
  };
  await Promise.all([work(), work(), work(), work()]);
  return out;
}

/**
 * The creation check: the evaluator to use (`name`, else the default = the first configured), and
 * every case judged by it (`o.thread`: see {@link judgeCases}).
 * @throws ExperimentError "invalid" at `$.evaluator` (unknown name, or none configured) or at
 *   `$.cases` (a case it cannot judge; the message names the cases and the reasons)
 */
export async function assertJudgeable(db: Db, caseIds: readonly string[], o: { evaluator?: string | null; options?: EvaluatorOption[]; thread?: boolean } = {}): Promise<EvaluatorOption> {
  const options = o.options ?? configuredEvaluators();
  const ev = o.evaluator ? options.find((e) => e.name === o.evaluator || e.command === o.evaluator) : options[0];
  if (!ev) {
    throw new ExperimentError(
      "invalid",
      o.evaluator ? `no evaluator named ${JSON.stringify(o.evaluator)} is configured (configured: ${options.map((e) => e.name).join(", ") || "none"})` : "no evaluator is configured, so no attempt could get a verdict: set SYMTRACE_REPLAY_EVALUATOR (or pass --evaluator)",
      "$.evaluator",
    );
  }
  const rows = await judgeCases(db, ev, await loadJudgeableCases(db, caseIds), { thread: o.thread });
  const msg = refusalMessage(ev.name, rows);
  if (msg) throw new ExperimentError("invalid", msg, "$.cases");
  return ev;
}

/** A reproduction judge the server offers: a name, the frozen setting, and what it is. */
export interface JudgeOption {
  name: string;
  setting: { kind: "command"; command: string } | { kind: "llm"; upstream: string; model: string | null } | null;
  description: string;
}

/**
 * The reproduction judges on offer for an evaluator: its own (`<evaluator>-judge`, when it has
 * one), SYMTRACE_EXPERIMENT_JUDGE (`command`), an LLM judge at SYMTRACE_JUDGE_UPSTREAM (`llm`), and `none`.
 */
export function configuredJudges(ev: EvaluatorOption | null, env: Record<string, string | undefined> = process.env): JudgeOption[] {
  const out: JudgeOption[] = [];
  if (ev?.reproductionJudge) out.push({ name: `${ev.name}-judge`, setting: { kind: "command", command: ev.reproductionJudge }, description: `the reproduction judge of ${ev.name}` });
  const cmd = env.SYMTRACE_EXPERIMENT_JUDGE?.trim();
  if (cmd && cmd !== ev?.reproductionJudge) out.push({ name: "command", setting: { kind: "command", command: cmd }, description: "SYMTRACE_EXPERIMENT_JUDGE" });
  const up = env.SYMTRACE_JUDGE_UPSTREAM?.trim();
  if (up) out.push({ name: "llm", setting: { kind: "llm", upstream: up, model: env.SYMTRACE_JUDGE_MODEL?.trim() || null }, description: `an LLM judge at ${up}` });
  out.push({ name: "none", setting: null, description: "no reproduction judge (rep_k not measured)" });
  return out;
}

/**
 * The evaluation settings of a new experiment: {@link assertJudgeable} with the chosen evaluator,
 * and the chosen reproduction judge (default: the evaluator's own, else SYMTRACE_EXPERIMENT_JUDGE,
 * else the LLM judge, else none).
 * @throws ExperimentError "invalid" (`$.evaluator`, `$.judge`, `$.cases`)
 */
export async function chooseEvaluation(
  db: Db,
  caseIds: readonly string[],
  o: { evaluator?: string | null; judge?: string | null; env?: Record<string, string | undefined> } = {},
): Promise<{ evaluator: string; reproductionJudge: JudgeOption["setting"] }> {
  const env = o.env ?? process.env;
  const ev = await assertJudgeable(db, caseIds, { evaluator: o.evaluator, options: configuredEvaluators(env) });
  const judges = configuredJudges(ev, env);
  const j = o.judge ? judges.find((x) => x.name === o.judge) : judges[0];
  if (!j) throw new ExperimentError("invalid", `no reproduction judge named ${JSON.stringify(o.judge)} is configured (configured: ${judges.map((x) => x.name).join(", ")})`, "$.judge");
  return { evaluator: ev.command, reproductionJudge: j.setting };
}

/**
 * The evaluator option of a command given on the command line (`experiment run --evaluator <cmd>`):
 * a built-in's scope when it runs a built-in's script, else probed (no declared scope).
 */
export function commandEvaluatorOption(command: string, root: string = process.cwd()): EvaluatorOption {
  const same = BUILTINS(root).find((b) => scriptOf(b.command) === scriptOf(command));
  return same
    ? { ...same, command, source: "--evaluator" }
    : { name: command, command, source: "--evaluator", description: "the cases it answers 0 or 1 for (probed on each case's source run)", tasks: null, reproductionJudge: null };
}
