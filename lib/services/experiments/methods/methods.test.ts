/**
 * The experiment method plug-ins on a real recorded source failure: the reference workflow MAS
 * (mas/workflow.ts, registered runner) recorded through the proxy against the LOCAL scripted
 * OpenAI-compatible server (lib/testing/scripted-openai.ts with the stand-in policy,
 * lib/testing/standin.ts) and the local tool server. The source run's first fetch_page is sent to a
 * missing page (a failed tool_result: a C3 symptom the detector anchors on); its final answer is
 * the policy's €21.00, which scripts/hilltop-evaluator.mjs fails. The scripted server also answers
 * the critic (a fixed reply that mentions the family ticket) and, when the request mentions the
 * family ticket, lets the Writer answer €16.00 (so a Critic-Agent attempt passes).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../../../bundle";
import { messageText, type ChatRequest, type ScriptedReply } from "../../../testing/scripted-openai";
import { startScriptedOpenAI, type ScriptedOpenAI } from "../../../testing/scripted-openai";
import { standinRespond } from "../../../testing/standin";
import { startToolServer, type ToolServer } from "../../../../mas/tools/server";
import { DEMO_TASK } from "../../../../mas/scripted-policy";
import { CONTROL_GUIDANCE, CRITIC_SYSTEM_PROMPT, REPAIR_SIGNALS, annotatedNodeGuidance, criticTaskPrompt, rerunTaskPrompt, selfReflectionTaskPrompt, suspiciousNodeGuidance } from "../../../experiments/prompts";
import { recordRun } from "../../replay";
import { resolveTarget } from "../../../replay";
import { builtinRunners, type RegisteredRunner } from "../../runners";
import { detectionOf, interventionCandidates, lastAnchor, randomAnchor, suspiciousAnchor } from "./anchors";
import { methodLevel } from "../../../experiments/methods";
import { METHODS, parseMethodList } from "./index";
import type { AttemptContext, AttemptOutcome, ExperimentCaseInput, ExperimentSettings, MethodName } from "./types";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const EVALUATOR = `node ${path.join(ROOT, "scripts/hilltop-evaluator.mjs")}`;
/** Command judge: exit 3 unless the source bundle file and the reference reach it; else reproduced (0) iff the answer still lacks €16.00. */
const JUDGE = `node -e 'const fs=require("fs");const s=JSON.parse(fs.readFileSync(process.env.SYMTRACE_SOURCE_BUNDLE,"utf8"));const ref=JSON.parse(process.env.SYMTRACE_REFERENCE);const f=JSON.stringify(JSON.parse(process.env.SYMTRACE_FINAL));if(!s.id||!process.env.SYMTRACE_TASK.startsWith("What does")){console.log(JSON.stringify({error:"bad env"}));process.exit(3)}console.log(JSON.stringify({reason:"source "+s.id+" ref "+(ref&&ref.nodeId)}));process.exit(f.includes("€16.00")?1:0)'`;
const CRITIC_REPLY = "Check the prices page for a family ticket before computing the total; the per-person sum may not be the cheapest entry.";

let llm: ScriptedOpenAI;
let tools: ToolServer;
let runner: RegisteredRunner;
let source: ReplayBundle;
let clean: ReplayBundle;
let breakFetch = false;

const sysOf = (req: ChatRequest) => messageText(req.messages.find((m) => m.role === "system"));

function respond(req: ChatRequest, n: number): ScriptedReply {
  if (sysOf(req) === CRITIC_SYSTEM_PROMPT) return { content: CRITIC_REPLY };
  const r = standinRespond(req, n);
  if (breakFetch && r.toolCalls?.[0]?.name === "fetch_page") {
    const [first, ...rest] = r.toolCalls;
    r.toolCalls = [{ ...first, arguments: { path: "hilltop-gardens-2019" } }, ...rest];
  }
  if (typeof r.content === "string" && r.content.includes("€21.00") && JSON.stringify(req.messages).includes("family ticket")) {
    return { content: "For 2 adults and 3 children the family ticket is cheapest: €16.00 in total; on Saturday Hilltop Gardens is open 09:00–18:00." };
  }
  return r;
}

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  llm = await startScriptedOpenAI({ respond });
  tools = await startToolServer();
  runner = builtinRunners(ROOT).find((r) => r.name === "workflow")!;
  const rec = async (id: string) => {
    const r = await recordRun({ id, task: { prompt: DEMO_TASK, id: "hilltop-demo", benchmark: "lindenbrook" }, config: { mas: "workflow" }, upstream: llm.url, toolUpstream: tools.url, runner, timeoutMs: 60_000 });
    if (r.status !== "recorded") throw new Error(JSON.stringify(r));
    return r.bundle;
  };
  breakFetch = true;
  source = await rec("test/exp-source");
  breakFetch = false;
  clean = await rec("test/exp-clean");
}, 120_000);
afterAll(async () => {
  await llm?.close();
  await tools?.close();
});

const settings = (o: Partial<ExperimentSettings> = {}): ExperimentSettings => ({
  upstream: llm.url,
  toolUpstream: tools.url,
  model: null,
  evaluator: EVALUATOR,
  reproductionJudge: { kind: "command", command: JUDGE },
  command: null,
  seed: 7,
  attempts: 3,
  budget: { maxCalls: null, maxTokens: null },
  timeoutMs: 60_000,
  ...o,
});

const failedToolResult = () => source.graph.nodes.find((n) => n.type === "tool_result" && (n.content as { status?: string }).status === "failed")!;

const kase = (o: Partial<ExperimentCaseInput> = {}): ExperimentCaseInput => ({
  caseId: "case-1",
  bundle: source,
  mas: "workflow",
  benchmark: "lindenbrook",
  task: DEMO_TASK,
  reference: { nodeId: failedToolResult().id, primaryCategory: "C3", categories: ["C3"], rationale: "The page fetch failed." },
  runner,
  ...o,
});

async function attempt(method: MethodName, o: { c?: ExperimentCaseInput; s?: ExperimentSettings; seed?: number; attempt?: number } = {}): Promise<{ out: AttemptOutcome; requests: ChatRequest[] }> {
  const before = llm.requests.length;
  const ctx: AttemptContext = { case: o.c ?? kase(), method, attempt: o.attempt ?? 1, settings: o.s ?? settings(), seed: o.seed ?? 11, previous: [], signal: new AbortController().signal };
  const out = await METHODS[method].run(ctx);
  return { out, requests: llm.requests.slice(before) };
}

/** Token sum of the bundle's last `n` records' usage (what the scripted server reported). */
const usageSum = (b: ReplayBundle, n: number) =>
  b.records.slice(b.records.length - n).reduce((a, r) => a + (r.boundary === "llm" ? ((r.response as { usage?: { total_tokens?: number } }).usage?.total_tokens ?? 0) : 0), 0);
const firstUser = (req: ChatRequest) => messageText(req.messages.find((m) => m.role === "user"));

describe("source failure (scripted local OpenAI-compatible server)", () => {
  test("the recorded source has a failed tool_result the detector anchors on; the clean run has no anchor", () => {
    expect(failedToolResult()).toBeTruthy();
    const d = detectionOf(source);
    expect(d.anchorNode).not.toBeNull();
    expect(d.nodes.find((n) => n.id === d.anchorNode)!.categories).toContain("C3");
    expect(detectionOf(clean).anchorNode).toBeNull();
  });
});

describe("task-level methods (record a new run with SYMTRACE_TASK; scripted local OpenAI-compatible server)", () => {
  test("rerun: the original task unchanged, a new bundle, failed by the evaluator, reproduced by the command judge, calls and tokens from the recording", async () => {
    const { out, requests } = await attempt("rerun");
    expect(out.status, JSON.stringify(out.error)).toBe("failed");
    expect(out).toMatchObject({ passed: false, reproduced: true, guidance: null, anchorNodeId: null, auxCalls: 0, error: null, skipReason: null });
    // E.1's framing exists as a documented text, but the rerun sends the original task.
    expect(rerunTaskPrompt({ task: DEMO_TASK, taskId: "hilltop-demo", benchmark: "lindenbrook" })).toBe(
      `Mode: fail-then-rerun\nTask id: hilltop-demo\nBenchmark: lindenbrook\nTask: ${DEMO_TASK}\nThis is an unguided rerun after an initial failed or uncertain attempt. Solve from scratch.`,
    );
    const b = out.bundle!;
    expect(b.task).toMatchObject({ prompt: DEMO_TASK, originalPrompt: DEMO_TASK, id: "hilltop-demo", benchmark: "lindenbrook", repair: { method: "rerun", attempt: 1, sourceBundleId: source.id } });
    expect(firstUser(requests[0])).toContain(DEMO_TASK);
    expect(JSON.stringify(requests)).not.toContain("Mode:");
    // Every request the server saw belongs to this attempt (workflow: 6 LLM calls) and every record is live.
    expect(requests.length).toBe(b.records.filter((r) => r.boundary === "llm").length);
    expect(requests.length).toBe(6);
    expect(out.calls).toBe(b.records.length);
    expect(out.calls).toBe(6 + b.records.filter((r) => r.boundary === "tool").length);
    expect(out.tokens.total).toBe(usageSum(b, b.records.length));
    expect(out.tokens.total).toBe(out.tokens.prompt + out.tokens.completion);
    expect(out.tokens.total).toBeGreaterThan(0);
    expect(out.judgeReason).toContain(`source ${source.id} ref ${failedToolResult().id}`);
    expect(out.masMs).toBeGreaterThan(0);
  }, 60_000);

  test("self-reflection: the source's failed final answer + 'identify possible mistakes' in the task; no aux call", async () => {
    const { out, requests } = await attempt("self-reflection");
    expect(out.status, JSON.stringify(out.error)).toBe("failed");
    const srcFinal = source.graph.nodes.find((n) => n.type === "final_result")!.content as { final: string };
    const task = selfReflectionTaskPrompt({ task: DEMO_TASK, taskId: "hilltop-demo", benchmark: "lindenbrook" }, srcFinal.final);
    expect(task).toContain(`Previous final answer: ${srcFinal.final}\nReflect on why the previous attempt may be incomplete or wrong and identify possible mistakes, then solve the task again.`);
    expect(out.guidance).toBe(task);
    expect(out.bundle!.task.prompt).toBe(task);
    expect(firstUser(requests[0])).toContain("identify possible mistakes");
    expect(out.auxCalls).toBe(0);
    expect(out.calls).toBe(out.bundle!.records.length);
  }, 60_000);

  test("critic: one separate critic call (aux), its feedback in the new task; the run passes and is not reproduced", async () => {
    const { out, requests } = await attempt("critic");
    expect(out.status, JSON.stringify(out.error)).toBe("passed");
    expect(out).toMatchObject({ passed: true, reproduced: false, auxCalls: 1 });
    const critic = requests.filter((r) => sysOf(r) === CRITIC_SYSTEM_PROMPT);
    expect(critic.length).toBe(1);
    const srcFinal = (source.graph.nodes.find((n) => n.type === "final_result")!.content as { final: string }).final;
    expect(firstUser(critic[0])).toBe(`Task: ${DEMO_TASK}\nFailed final answer: ${srcFinal}`);
    expect(requests.indexOf(critic[0])).toBe(0);
    const task = criticTaskPrompt({ task: DEMO_TASK, taskId: "hilltop-demo", benchmark: "lindenbrook" }, srcFinal, CRITIC_REPLY);
    expect(out.bundle!.task.prompt).toBe(task);
    expect(task).toContain(`Critic feedback: ${CRITIC_REPLY}`);
    const b = out.bundle!;
    expect(out.calls).toBe(b.records.length);
    expect(requests.length - 1).toBe(b.records.filter((r) => r.boundary === "llm").length);
    // Tokens: the MAS's recorded usage plus the critic call's (> 0).
    expect(out.tokens.total).toBeGreaterThan(usageSum(b, b.records.length));
    // ... and the critic call's share is the method's own (auxTokens), not 0
    expect(out.auxTokens).toBe(out.tokens.total - usageSum(b, b.records.length));
    expect(out.auxTokens).toBeGreaterThan(0);
    expect(String(out.final)).toContain("€16.00");
  }, 60_000);

  test("skip: no runner and no command → skipped with the reason; a command that cannot start → error, never thrown", async () => {
    const c = kase({ runner: null });
    for (const m of ["rerun", "self-reflection", "critic"] as const) {
      expect(METHODS[m].skipReason(c, settings())).toMatch(/no registered runner and no MAS command/);
      const { out, requests } = await attempt(m, { c });
      expect(out).toMatchObject({ status: "skipped", passed: null, calls: 0, bundle: null });
      expect(requests.length).toBe(0);
    }
    expect(METHODS.rerun.skipReason(c, settings({ command: ["node", "x.js"] }))).toBeNull();
    const { out } = await attempt("rerun", { s: settings({ command: ["/nonexistent/mas-binary"] }) });
    expect(out).toMatchObject({ status: "error", passed: false, error: expect.stringContaining("cannot start /nonexistent/mas-binary") });
  }, 60_000);

  test("critic with an unreachable endpoint → error naming it, the aux call counted, no MAS run", async () => {
    const { out } = await attempt("critic", { s: settings({ upstream: "http://127.0.0.1:9/v1" }) });
    expect(out).toMatchObject({ status: "error", passed: false, auxCalls: 1, calls: 0, bundle: null, error: expect.stringMatching(/^critic call: http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions unreachable/) });
  });
});

describe("node-level methods (one selective replay; scripted local OpenAI-compatible server)", () => {
  const liveOf = (out: AttemptOutcome) => {
    const b = out.bundle!;
    const boundary = b.parent!.targetNodeId;
    const seq = source.records.find((r) => r.nodeId === boundary)?.seq;
    return { b, seq: seq ?? -1 };
  };

  test("suspicious-node: the detector anchor, the F.3 evidence prompt as the first live request's last message, only post-prefix records counted", async () => {
    const a = suspiciousAnchor(kase(), settings());
    expect(a.skip).toBeNull();
    const d = detectionOf(source);
    const { out, requests } = await attempt("suspicious-node");
    expect(out.status, JSON.stringify(out.error)).toBe("failed");
    expect(out.anchorNodeId).toBe(d.anchorNode);
    expect(out.guidance).toBe(suspiciousNodeGuidance(d.anchorNode!, a.categories!, a.evidence!));
    expect(out.guidance).toMatch(new RegExp(`^Reconsider the decision at target ${d.anchorNode}\\. Confirmed runtime symptoms: C3[^.]*\\. Trace evidence: "`));
    const { b } = liveOf(out);
    const seq = source.records.find((r) => r.nodeId === d.anchor)!.seq;
    expect(b.records.slice(0, seq)).toEqual(source.records.slice(0, seq));
    expect(requests[0].messages.at(-1)).toEqual({ role: "user", content: out.guidance });
    expect(out.calls).toBe(b.records.length - seq);
    expect(requests.length).toBe(b.records.slice(seq).filter((r) => r.boundary === "llm").length);
    expect(out.tokens.total).toBe(usageSum(b, out.calls));
    expect(out.reproduced).toBe(true);
  }, 60_000);

  test("node-resample: the same anchor, no guidance; nudge: the same anchor, CONTROL_GUIDANCE", async () => {
    const d = detectionOf(source);
    const r = await attempt("node-resample");
    expect(r.out.status, JSON.stringify(r.out.error)).toBe("failed");
    expect(r.out).toMatchObject({ anchorNodeId: d.anchorNode, guidance: null });
    for (const q of r.requests) expect(JSON.stringify(q)).not.toContain("Reconsider");
    const n = await attempt("nudge");
    expect(n.out).toMatchObject({ status: "failed", anchorNodeId: d.anchorNode, guidance: CONTROL_GUIDANCE });
    expect(n.requests[0].messages.at(-1)).toEqual({ role: "user", content: CONTROL_GUIDANCE });
    expect(n.out.calls).toBe(r.out.calls);
  }, 60_000);

  test("annotated-node: the reference node + its primary category's Table 1 repair signal; skipped without a reference", async () => {
    const ref = failedToolResult().id;
    const { out, requests } = await attempt("annotated-node");
    expect(out.status, JSON.stringify(out.error)).toBe("failed");
    expect(out.anchorNodeId).toBe(ref);
    expect(out.guidance).toBe(annotatedNodeGuidance(ref, "C3"));
    expect(out.guidance).toContain(REPAIR_SIGNALS.C3);
    expect(out.guidance).toContain("Show the unresolved condition and its evidence; require resolution before continuing.");
    expect(requests[0].messages.at(-1)).toEqual({ role: "user", content: out.guidance });
    const none = await attempt("annotated-node", { c: kase({ reference: null }) });
    expect(none.out).toMatchObject({ status: "skipped", skipReason: "case case-1 has no reference label (no final annotation and no dataset label)" });
    const final = source.graph.nodes.find((n) => n.type === "final_result")!.id;
    expect(METHODS["annotated-node"].skipReason(kase({ reference: { nodeId: final, primaryCategory: "C1", categories: ["C1"] } }), settings())).toMatch(/no LLM boundary at or after/);
  }, 60_000);

  test("random-node: seeded (same seed → same node, from the candidates), CONTROL_GUIDANCE; last-node: the last LLM call", async () => {
    const c = kase();
    const s = settings();
    const cands = interventionCandidates(c, s);
    const picks = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => randomAnchor(c, s, seed).nodeId);
    expect(picks.map((_, i) => randomAnchor(c, s, i + 1).nodeId)).toEqual(picks);
    for (const p of picks) expect(cands).toContain(p);
    expect(new Set(picks).size).toBeGreaterThan(1);
    expect(cands).not.toContain(source.order[0]); // the task node
    // native candidates = exactly the non-task nodes resolveTarget maps (a trailing agent_action → the call that produced it)
    const maps = (id: string) => {
      try {
        resolveTarget(source, id);
        return true;
      } catch {
        return false;
      }
    };
    expect(cands).toEqual(source.order.slice(1).filter(maps));
    const lastAction = source.order.filter((id) => source.graph.nodes.find((n) => n.id === id)?.type === "agent_action").at(-1)!;
    expect(cands).toContain(lastAction);
    expect(resolveTarget(source, lastAction).boundaryNodeId).toBe(source.records.filter((r) => r.boundary === "llm").at(-1)!.nodeId);
    const { out } = await attempt("random-node", { seed: 3 });
    expect(out.status, JSON.stringify(out.error)).toBe("failed");
    expect(out).toMatchObject({ anchorNodeId: randomAnchor(c, s, 3).nodeId, guidance: CONTROL_GUIDANCE });
    const lastLlm = source.records.filter((r) => r.boundary === "llm").at(-1)!;
    expect(lastAnchor(c, s).nodeId).toBe(lastLlm.nodeId);
    const last = await attempt("last-node");
    expect(last.out).toMatchObject({ status: "failed", anchorNodeId: lastLlm.nodeId, guidance: CONTROL_GUIDANCE });
    expect(last.out.calls).toBe(source.records.length - lastLlm.seq);
  }, 90_000);

  test("suspicious-node, node-resample, nudge skip a case without an eligible node", async () => {
    const c = kase({ bundle: clean });
    for (const m of ["suspicious-node", "node-resample", "nudge"] as const) {
      const { out, requests } = await attempt(m, { c });
      expect(out).toMatchObject({ status: "skipped", skipReason: expect.stringContaining("found no eligible node") });
      expect(requests.length).toBe(0);
    }
  });

  test("a bundle the detector rejects: skipReason null (not a skip), run → status error naming the problem", async () => {
    const broken = { ...clean, id: "test/broken", order: [...clean.order, "ghost_0000"] } as ReplayBundle;
    const c = kase({ bundle: broken });
    expect(METHODS["suspicious-node"].skipReason(c, settings())).toBeNull();
    const { out, requests } = await attempt("suspicious-node", { c });
    expect(out).toMatchObject({ status: "error", passed: false, error: expect.stringContaining('order[') });
    expect(out.error).toContain('"ghost_0000" is not a node of bundle "test/broken"');
    expect(requests.length).toBe(0);
  });

  test("transcript mode (no runner, no command): last-node continues the conversation with one live call", async () => {
    const c = kase({ runner: null });
    const { out, requests } = await attempt("last-node", { c });
    expect(out.status, JSON.stringify(out.error)).toBe("failed");
    expect(requests.length).toBe(1);
    expect(out.calls).toBe(1);
    expect(out.bundle!.parent).toMatchObject({ mode: "transcript", guidance: CONTROL_GUIDANCE });
    expect(out.tokens.total).toBe(usageSum(out.bundle!, 1));
    expect(out.tokens.total).toBeGreaterThan(0);
  }, 30_000);

  test("an unreachable endpoint is an error outcome, never a throw", async () => {
    const { out } = await attempt("nudge", { s: settings({ upstream: "http://127.0.0.1:9/v1" }) });
    expect(out).toMatchObject({ status: "error", passed: false, anchorNodeId: detectionOf(source).anchorNode, calls: 1 });
    expect(out.error).toMatch(/^live LLM call seq \d+ failed \(symtrace_upstream_error\): upstream unreachable/);
    expect(out.bundle).not.toBeNull();
    // Transcript mode: the continuation call itself fails.
    const t = await attempt("nudge", { c: kase({ runner: null }), s: settings({ upstream: "http://127.0.0.1:9/v1" }) });
    expect(t.out).toMatchObject({ status: "error", passed: false, error: expect.stringContaining("unreachable") });
  }, 60_000);
});

describe("cancellation and progress (scripted local OpenAI-compatible server)", () => {
  test("abort during a task-level run → cancelled with the live calls so far; progress is monotone; an aborted signal starts nothing", async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    const out = await METHODS.rerun.run({
      case: kase(),
      method: "rerun",
      attempt: 2,
      settings: settings(),
      seed: 1,
      previous: [],
      signal: ac.signal,
      onProgress: (p) => {
        seen.push(p.liveCalls);
        if (p.liveCalls === 2) ac.abort();
      },
    });
    expect(out.status).toBe("cancelled");
    expect(out.calls).toBeGreaterThanOrEqual(2);
    expect(seen.slice(1).every((x, i) => x >= seen[i])).toBe(true);
    const before = llm.requests.length;
    for (const m of ["rerun", "suspicious-node"] as const) {
      const r = await METHODS[m].run({ case: kase(), method: m, attempt: 1, settings: settings(), seed: 1, previous: [], signal: AbortSignal.abort() });
      expect(r.status).toBe("cancelled");
    }
    expect(llm.requests.length).toBe(before);
  }, 60_000);
});

describe("registry", () => {
  test("every method name has a plug-in of the right level; method lists parse strictly", () => {
    expect(Object.entries(METHODS).map(([k, m]) => [k, m.name, methodLevel(m.name)])).toEqual([
      ["rerun", "rerun", "task"],
      ["self-reflection", "self-reflection", "task"],
      ["critic", "critic", "task"],
      ["suspicious-node", "suspicious-node", "node"],
      ["annotated-node", "annotated-node", "node"],
      ["random-node", "random-node", "node"],
      ["last-node", "last-node", "node"],
      ["node-resample", "node-resample", "node"],
      ["nudge", "nudge", "node"],
      ["correction", "correction", "node"],
      ["correction-control", "correction-control", "node"],
      ["mars", "mars", "node"],
    ]);
    expect(parseMethodList("rerun, nudge,rerun")).toEqual(["rerun", "nudge"]);
    expect(() => parseMethodList("rerun,mcts")).toThrow('unknown method "mcts" (known: rerun, self-reflection, critic, suspicious-node, annotated-node, random-node, last-node, node-resample, nudge, correction, correction-control, mars)');
  });
});
