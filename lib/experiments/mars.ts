/**
 * Settings of the `mars` experiment method (issue 15 item 5): one MARS repair-tree search
 * (seeds/002 Algorithm 1, lib/repair-search) per attempt, with its own budget. Pure: frozen into
 * the experiment's settings (`settings.mars`) when the experiment runs `mars`, shown on the page
 * and in every export.
 */
import { DEFAULT_SETTINGS } from "../repair-search/types";

/** Where the MARS judge's verdict comes from (lib/services/repair-search/environment.ts SearchJudgeConfig without secrets). */
export type MarsJudgeSetting = { kind: "llm"; upstream: string; model: string | null } | { kind: "command"; command: string };

/** The `mars` method's settings (all resolved once frozen). */
export interface MarsSettings {
  /** N_iter: expansions per search (paper: 75). */
  iterations: number;
  /** K children per node (paper: 3). */
  k: number;
  /** L live LLM steps per partial rollout (paper: 4). */
  l: number;
  /** D_max, root = 0 (paper: 8). */
  maxDepth: number;
  /** UCT exploration weight C (eq. 1; paper: 1.41). */
  c: number;
  /** Cap on the search's calls (selector + judge + live MAS LLM steps), or null. */
  maxCalls: number | null;
  /** Cap on the search's tokens (same three sources), or null. */
  maxTokens: number | null;
  /** The action selector's endpoint and model; null = the experiment's endpoint and model. */
  selector: { upstream: string; model: string | null } | null;
  /**
   * The judge: null = an LLM judge through the experiment's endpoint and model; a command with the
   * evaluator's environment contract printing `{score, failureMode, feedback}` replaces it. (The
   * experiment's reproduction-judge command is NOT used: its contract is exit 0 = reproduced.)
   */
  judge: MarsJudgeSetting | null;
}

/** The defaults: the paper's search settings (C 1.41, K 3, L 4, D_max 8, 75 iterations), no call/token cap, the experiment's endpoint for selector and judge. */
export const DEFAULT_MARS_SETTINGS: Readonly<MarsSettings> = Object.freeze({
  iterations: DEFAULT_SETTINGS.iterations,
  k: DEFAULT_SETTINGS.k,
  l: DEFAULT_SETTINGS.l,
  maxDepth: DEFAULT_SETTINGS.maxDepth,
  c: DEFAULT_SETTINGS.c,
  maxCalls: null,
  maxTokens: null,
  selector: null,
  judge: null,
});

/** The note the page and the report carry when an experiment runs `mars`. */
export const MARS_REPORT_NOTE = "MARS reports pass rates over all tasks; we report over failures, as SymTrace does.";

/**
 * Fill the defaults and check a (partial) MARS settings object.
 * @param at JSON path prefix for messages (default `$.settings.mars`)
 * @throws RangeError naming the field (`$.settings.mars.iterations must be …`)
 */
export function resolveMarsSettings(partial: Partial<MarsSettings> | null | undefined, at = "$.settings.mars"): MarsSettings {
  const p = partial ?? {};
  if (typeof p !== "object" || Array.isArray(p)) throw new RangeError(`${at} must be an object or null`);
  const s: MarsSettings = { ...DEFAULT_MARS_SETTINGS, ...Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) };
  for (const key of ["iterations", "k", "l", "maxDepth"] as const) {
    if (!Number.isInteger(s[key]) || s[key] < 1) throw new RangeError(`${at}.${key} must be a positive integer (got ${JSON.stringify(s[key])})`);
  }
  if (typeof s.c !== "number" || !Number.isFinite(s.c) || s.c < 0) throw new RangeError(`${at}.c must be a finite number ≥ 0 (got ${JSON.stringify(s.c)})`);
  for (const key of ["maxCalls", "maxTokens"] as const) {
    const v = s[key];
    if (v !== null && (!Number.isInteger(v) || v < 1)) throw new RangeError(`${at}.${key} must be a positive integer or null (got ${JSON.stringify(v)})`);
  }
  const url = (v: unknown, where: string) => {
    if (typeof v !== "string" || !/^https?:\/\/\S+$/i.test(v)) throw new RangeError(`${where} must be an http(s) URL (got ${JSON.stringify(v)})`);
    return v;
  };
  if (s.selector !== null) {
    if (typeof s.selector !== "object") throw new RangeError(`${at}.selector must be {upstream, model} or null`);
    s.selector = { upstream: url(s.selector.upstream, `${at}.selector.upstream`), model: s.selector.model ?? null };
  }
  if (s.judge !== null) {
    const j = s.judge as MarsJudgeSetting;
    if (j.kind === "command") {
      if (typeof j.command !== "string" || !j.command.trim()) throw new RangeError(`${at}.judge.command must be a non-empty command`);
      s.judge = { kind: "command", command: j.command };
    } else if (j.kind === "llm") s.judge = { kind: "llm", upstream: url(j.upstream, `${at}.judge.upstream`), model: j.model ?? null };
    else throw new RangeError(`${at}.judge.kind must be "llm" or "command"`);
  }
  return s;
}

/** One line describing frozen MARS settings (the page's settings table and the CSV export). */
export function marsSettingsLine(s: MarsSettings): string {
  const judge = s.judge === null ? "LLM judge via the experiment endpoint" : s.judge.kind === "command" ? `judge command: ${s.judge.command}` : `LLM judge ${s.judge.upstream} ${s.judge.model ?? ""}`.trim();
  const selector = s.selector === null ? "selector via the experiment endpoint" : `selector ${s.selector.upstream} ${s.selector.model ?? ""}`.trim();
  return `N_iter ${s.iterations}, K ${s.k}, L ${s.l}, D_max ${s.maxDepth}, C ${s.c}, max calls ${s.maxCalls ?? "none"}, max tokens ${s.maxTokens ?? "none"}; ${selector}; ${judge}`;
}
