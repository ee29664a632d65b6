/**
 * Issue 21 item 4: concurrency without false divergence or mis-targeting, through the real proxy.
 *
 * The MAS here is a test-only stand-in for a Vercel-AI-SDK-style orchestrator with two sub-agents
 * run in parallel (plain `fetch` clients, one per agent), against a test-only scripted upstream
 * (below) whose latency per agent is set by the test so that the two sub-agents' calls overlap.
 * The replay then makes the Writer's second call arrive first at the recorded position of the
 * Researcher's second call — the target. Before this fix the guidance landed in the Writer's
 * request and replay exited 0.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession, type BoundarySession } from "../lib/replay";
import { startBoundaryProxy, type ProxyStop } from ".";

type Msg = { role: string; content: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Test-only scripted upstream: answers by agent and turn; latency per `<agent>:<turn>` from `delays` (ms). */
interface Upstream {
  url: string;
  requests: { messages: Msg[] }[];
  delays: Record<string, number>;
  close(): Promise<void>;
}
async function startUpstream(): Promise<Upstream> {
  const requests: { messages: Msg[] }[] = [];
  const delays: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const q = JSON.parse(body) as { messages: Msg[] };
      requests.push(q);
      const agent = /You are (\w+)/.exec(q.messages[0].content)?.[1] ?? "?";
      const turn = q.messages.filter((m) => m.role === "assistant").length;
      const content = `${agent} answer ${turn} (scripted)`;
      setTimeout(() => {
        const text = JSON.stringify({ id: `cmpl-${agent}-${turn}`, object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(text);
      }, delays[`${agent}:${turn}`] ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    delays,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function chat(base: string, messages: Msg[]): Promise<{ status: number; content: string; error?: string }> {
  const r = await fetch(`${base}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages }) });
  const j = (await r.json()) as { choices?: { message: { content: string } }[]; error?: { message: string } };
  return { status: r.status, content: j.choices?.[0]?.message.content ?? "", error: j.error?.message };
}

/** One sub-agent: two turns, the second carrying the first answer; `pause` ms before the second. */
async function subAgent(base: string, name: string, task: string, pause: number, pauseFirst = 0): Promise<string> {
  const msgs: Msg[] = [{ role: "system", content: `You are ${name}, a sub-agent.` }, { role: "user", content: task }];
  await sleep(pauseFirst);
  const a1 = await chat(base, msgs);
  if (a1.status !== 200) throw new Error(a1.error);
  await sleep(pause);
  msgs.push({ role: "assistant", content: a1.content }, { role: "user", content: "Now finish." });
  const a2 = await chat(base, msgs);
  if (a2.status !== 200) throw new Error(a2.error);
  return a2.content;
}

/** The orchestrator: plan, then both sub-agents in parallel, then the synthesis. */
async function orchestrator(base: string, pauses: { Researcher: number; Writer: number; ResearcherFirst?: number }): Promise<string> {
  const sys = { role: "system", content: "You are Orchestrator, the lead agent." };
  const plan = await chat(base, [sys, { role: "user", content: "Write a note on parks." }]);
  const [r, w] = await Promise.all([subAgent(base, "Researcher", `Research: ${plan.content}`, pauses.Researcher, pauses.ResearcherFirst), subAgent(base, "Writer", `Draft: ${plan.content}`, pauses.Writer)]);
  const fin = await chat(base, [sys, { role: "user", content: `Combine: ${r} | ${w}` }]);
  return fin.content;
}

async function run(session: BoundarySession, upstream: string | undefined, pauses: { Researcher: number; Writer: number; ResearcherFirst?: number }, reorderWaitMs?: number) {
  let stop: ProxyStop | null = null;
  const proxy = await startBoundaryProxy({ session, upstream, onStop: (s) => (stop = s), reorderWaitMs });
  try {
    const final = await orchestrator(proxy.llmUrl, pauses).catch((e: Error) => `error: ${e.message}`);
    await proxy.idle();
    return { final, stop: stop as ProxyStop | null };
  } finally {
    await proxy.close();
  }
}

let up: Upstream;
let bundle: ReplayBundle;
beforeAll(async () => {
  up = await startUpstream();
  // Recording: R1 0-10 ms, R2 10-210, W1 0-60, W2 60-70: seq 0 O, 1 R1, 2 W1, 3 R2, 4 W2, 5 O;
  // R2 and W2 overlap, so either may come first on replay.
  Object.assign(up.delays, { "Researcher:0": 10, "Researcher:1": 200, "Writer:0": 60, "Writer:1": 10 });
  const rec = new RecordSession({ id: "test/parallel", task: { prompt: "Write a note on parks." } });
  const { final } = await run(rec, up.url, { Researcher: 0, Writer: 0 });
  expect(final).toMatch(/Orchestrator answer 0/);
  bundle = rec.toBundle({ final });
}, 20_000);
afterAll(() => up?.close());

const agents = (b: ReplayBundle) => b.records.map((r) => b.graph.nodes.find((n) => n.id === r.nodeId)?.agent);

describe("parallel sub-agents through the proxy (issue 21 item 4)", () => {
  test("the recording stores which calls were in flight together (meta.observed start/end)", () => {
    expect(validateBundle(bundle).ok).toBe(true);
    expect(agents(bundle)).toEqual(["Orchestrator", "Researcher", "Writer", "Researcher", "Writer", "Orchestrator"]);
    const span = (i: number) => bundle.records[i].meta!.observed as { start: number; end: number };
    for (let i = 0; i < 6; i++) expect(span(i).end).toBeGreaterThan(span(i).start);
    // R1 (1) and W1 (2) overlap; R2 (3) began while W1 (2) was in flight, W2 (4) while R2 was; the last call began after all ended.
    expect(span(2).start).toBeLessThan(span(1).end);
    expect(span(3).start).toBeLessThan(span(2).end);
    expect(span(4).start).toBeLessThan(span(3).end);
    for (let i = 0; i < 5; i++) expect(span(i).end).toBeLessThan(span(5).start);
  });

  test("data edges come from content: two parallel branches from the plan that join at the synthesis", () => {
    const llm = bundle.records.map((r) => r.nodeId);
    const action = (i: number) => bundle.graph.edges.find((e) => e.from === llm[i] && e.kind === "data" && e.to.startsWith("agent_action"))!.to;
    const into = (i: number) => bundle.graph.edges.filter((e) => e.to === llm[i] && e.kind === "data").map((e) => e.from).sort();
    expect(into(1)).toEqual([action(0)]); // R1 carries the plan
    expect(into(2)).toEqual([action(0)]); // W1 carries the plan (not R1's answer, which completed first)
    expect(into(3)).toEqual([action(1)]); // R2: its own history only
    expect(into(4)).toEqual([action(2)]); // W2: its own history only, not R2's
    expect(into(5)).toEqual([action(3), action(4)].sort()); // the join: both sub-agents' answers
  });

  test("a valid reordering of the concurrent agents verifies (no false divergence)", async () => {
    // Replay: the Researcher pauses before its second call, so the Writer's calls arrive first.
    const session = new ReplaySession({ source: bundle });
    const { final, stop } = await run(session, undefined, { Researcher: 80, Writer: 0 });
    expect(stop).toBeNull();
    expect(session.end()).toBeNull();
    expect(session.verified).toBe(6);
    expect(final).toBe((bundle.graph.nodes.find((n) => n.type === "final_result")!.content as { final: string }).final);
  });

  test("the guidance goes only into the target's own request, even when the other sub-agent arrives at its position", async () => {
    const target = bundle.records[3];
    expect(bundle.graph.nodes.find((n) => n.id === target.nodeId)?.agent).toBe("Researcher");
    const before = up.requests.length;
    const session = new ReplaySession({ source: bundle, targetNodeId: target.nodeId, guidance: "Cite the park's opening year." });
    // The Writer's second call (recorded seq 4) now arrives third, at the target's recorded position.
    const { stop } = await run(session, up.url, { Researcher: 80, Writer: 0 });
    expect(stop).toBeNull();
    const live = up.requests.slice(before);
    const withGuidance = live.filter((q) => q.messages.some((m) => m.content === "Cite the park's opening year."));
    expect(withGuidance).toHaveLength(1);
    expect(withGuidance[0].messages[0].content).toMatch(/^You are Researcher/);
    // The Writer's second call began after the target in the recording: it is held until the
    // target went live, then goes live itself (no guidance); the prefix is what the recording had
    // before the target, whatever the arrival order.
    expect(live.map((q) => /You are (\w+)/.exec(q.messages[0].content)![1])).toEqual(["Researcher", "Writer", "Orchestrator"]);
    expect(session.verified).toBe(3);
    const out = session.toBundle({ id: "test/parallel/replay" });
    expect(validateBundle(out).ok).toBe(true);
    expect(out.records.slice(0, 3)).toEqual(bundle.records.slice(0, 3));
    expect(out.records.map((r) => out.graph.nodes.find((n) => n.id === r.nodeId)?.agent)).toEqual(["Orchestrator", "Researcher", "Writer", "Researcher", "Writer", "Orchestrator"]);
    expect(out.records[3].meta?.guidance).toBe("Cite the park's opening year.");
    expect(out.records[4].meta?.guidance).toBeUndefined();
    // The live synthesis depends on both live sub-agents' answers (the join), and the Writer's live
    // second call on its own served first answer, not on the Researcher's.
    const actionOf = (i: number) => out.graph.edges.find((e) => e.from === out.records[i].nodeId && e.to.startsWith("agent_action"))!.to;
    expect(out.graph.edges.filter((e) => e.to === out.records[5].nodeId && e.kind === "data").map((e) => e.from).sort()).toEqual([actionOf(3), actionOf(4)].sort());
    expect(out.graph.edges.filter((e) => e.to === out.records[4].nodeId && e.kind === "data").map((e) => e.from)).toEqual([actionOf(2)]);
  });

  test("a call that began after the target is served from the recording when the target does not come within the wait", async () => {
    const before = up.requests.length;
    const session = new ReplaySession({ source: bundle, targetNodeId: bundle.records[3].nodeId, guidance: "Cite the park's opening year." });
    // The Researcher pauses 300 ms before its second call; the Writer's waits at most 50 ms.
    const { stop } = await run(session, up.url, { Researcher: 300, Writer: 0 }, 50);
    expect(stop).toBeNull();
    const live = up.requests.slice(before);
    expect(live.map((q) => /You are (\w+)/.exec(q.messages[0].content)![1])).toEqual(["Researcher", "Orchestrator"]);
    expect(live[0].messages.at(-1)).toEqual({ role: "user", content: "Cite the park's opening year." });
    // the prefix then holds the Writer's later record too (a valid reordering)
    expect(session.verified).toBe(4);
  });

  test("a request that overtakes another agent's recorded predecessor waits for it, then is served", async () => {
    // The Researcher starts late: the Writer's second call (whose recorded predecessors include R1) arrives before R1.
    const session = new ReplaySession({ source: bundle });
    const { stop } = await run(session, undefined, { Researcher: 0, Writer: 0, ResearcherFirst: 150 });
    expect(stop).toBeNull();
    expect(session.end()).toBeNull();
    expect(session.verified).toBe(6);
    // With no wait, the same arrival order is a reordered divergence.
    const strict = new ReplaySession({ source: bundle });
    const r2 = await run(strict, undefined, { Researcher: 0, Writer: 0, ResearcherFirst: 150 }, 0);
    expect(r2.stop).toMatchObject({ kind: "diverged", report: { reason: "reordered", seq: 1 } });
  });

  test("an order the recording forbids fails closed as reordered, not skipped", async () => {
    // W2 began after R1 completed in the recording; serve W1 then W2 before R1 has been asked.
    const session = new ReplaySession({ source: bundle });
    const req = (i: number) => ({ boundary: "llm" as const, request: bundle.records[i].request });
    expect(session.begin(req(0)).kind).toBe("recorded");
    expect(session.begin(req(2)).kind).toBe("recorded");
    // Another agent's predecessor may still come: the request is held (nothing consumed) ...
    expect(session.begin(req(4))).toEqual({ kind: "blocked", seq: 4, waitingFor: [1] });
    // ... and once the caller's wait is over it is a divergence.
    const step = session.begin({ ...req(4), final: true });
    expect(step).toMatchObject({ kind: "diverged", report: { reason: "reordered", seq: 1 } });
    if (step.kind === "diverged") expect(step.report.message).toMatch(/reordered: the llm request equals seq 4 .*Writer.*began after seq 1 of agent Researcher had completed/);
    // The same agent going past its own recorded call is a skip (missing-call).
    const s2 = new ReplaySession({ source: bundle });
    s2.begin(req(0));
    s2.begin(req(1));
    const skip = s2.begin(req(4));
    expect(skip).toMatchObject({ kind: "diverged", report: { reason: "missing-call", seq: 2 } });
    if (skip.kind === "diverged") expect(skip.report.message).toMatch(/skipped the recorded llm request of agent Writer; its request equals seq 4/);
  });
});
