import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import type { ReplayBundle } from "../lib/bundle";
import { startStochasticModel } from "../lib/testing/stochastic-model";
import { createUser, seedBundle, signIn, storedBundle, type TestUser } from "./fixtures";

/**
 * Issue 21, the last "Done when": the inspector shows a parallel Vercel AI SDK run as parallel
 * lanes with joins, and a replay of it from a sub-agent's second call shows the verified prefix
 * and the live suffix.
 *
 * The run: the unmodified example examples/ai-sdk/main.ts (`ai` 6.0.325: an orchestrator
 * `ToolLoopAgent` whose one step calls both subagent tools, so the weather and the travel-guide
 * subagents run in parallel), recorded by the real `symtrace record` CLI against the seeded
 * stochastic local model server (lib/testing/stochastic-model: TEST SUPPORT, not a model; every
 * answer starts with `[seeded-stochastic-test-model]`), then imported through lib/db.
 *
 * Protocol: the example runs with `--chat` (Chat Completions). "Replay from here" goes live to the
 * e2e server's scripted stand-in (scripts/replay-stack.ts → lib/testing/standin.ts, TEST SUPPORT),
 * which serves only `POST /v1/chat/completions` (no `/v1/responses`, no `/v1/embeddings`): a
 * Responses-API recording would fail at its first live call. The app replays the run natively
 * because the e2e server registers the example as the runner `ai-sdk-chat` (e2e/runners.json).
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const LLM = `http://127.0.0.1:${process.env.E2E_LLM_PORT ?? 3291}/v1`;
const TASK = "Plan a day in Lisbon for tomorrow.";
const SEED = 51;
const RUNNER = "ai-sdk-chat";
/** A piece of each framework agent's instructions, as written in examples/ai-sdk/main.ts. */
const AGENTS = { orchestrator: "You plan trips", weather: "You are a weather researcher", guide: "You are a travel guide researcher" } as const;
type Agent = keyof typeof AGENTS;

type Rec = ReplayBundle["records"][number];
const isEmbeddings = (r: Rec) => (r.meta as { protocol?: unknown } | undefined)?.protocol === "openai-embeddings";

/** The framework agent of a recorded chat request, from its system message (null: none or ambiguous). */
function agentOf(request: unknown): Agent | null {
  const msgs = ((request ?? {}) as { messages?: Array<{ role?: string; content?: unknown }> }).messages ?? [];
  const sys = msgs
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
  const hits = (Object.keys(AGENTS) as Agent[]).filter((a) => sys.includes(AGENTS[a]));
  return hits.length === 1 ? hits[0] : null;
}

/** The agents' model calls of a bundle (embeddings excluded), in record order, with their framework agent. */
function llmCalls(b: ReplayBundle) {
  return b.records.filter((r) => r.boundary === "llm" && !isEmbeddings(r)).map((r) => ({ seq: r.seq, nodeId: r.nodeId, agent: agentOf(r.request) }));
}

/** The orchestrator's last model call: the one that consumes both subagents' outputs. */
const join = (bundle: ReplayBundle) => llmCalls(bundle).filter((c) => c.agent === "orchestrator").at(-1)!;

/** Run a command without blocking this process (the stochastic model answers from here). */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `symtrace record` (the real CLI) of the AI SDK example against a fresh seeded stochastic model. */
async function recordAiSdk(): Promise<ReplayBundle> {
  const model = await startStochasticModel({ seed: SEED });
  try {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), "e2e-ai-sdk-")), "ai-sdk.bundle.json");
    const env: NodeJS.ProcessEnv = { ...process.env, SYMTRACE_TASK: TASK, OPENAI_API_KEY: "symtrace-e2e-key" };
    delete env.OPENAI_BASE_URL;
    const r = await run(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", "cli/symtrace.ts", "record", "--out", out, "--upstream", model.url, "--runner", RUNNER, "--id", `e2e/ai-sdk-${randomUUID()}`, "--task", TASK, "--", "node", "--import", "tsx", "examples/ai-sdk/main.ts", "--chat"],
      env,
    );
    if (r.code !== 0) throw new Error(`record failed (${r.code}): ${r.stdout} ${r.stderr}`);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({ ok: true, status: "recorded", masExitCode: 0 });
    // every call the model served is in the bundle
    const b = JSON.parse(readFileSync(out, "utf8")) as ReplayBundle;
    expect(b.records.filter((x) => x.boundary === "llm").length).toBe(model.requests.length);
    return b;
  } finally {
    await model.close();
  }
}

let researcher: TestUser;
let b: ReplayBundle;
/** Framework agent → the inspector lane (node agent) of its LLM calls. */
let laneOf: Record<Agent, string>;
let calls: ReturnType<typeof llmCalls>;

test.beforeAll(async () => {
  test.setTimeout(90_000); // the recording spawns the CLI and the framework (tsx) on a loaded machine
  researcher = await createUser(["researcher"]);
  const recorded = await recordAiSdk();
  b = await seedBundle((id) => ({ ...recorded, id }));
  calls = llmCalls(b);
  const lanes = {} as Record<Agent, string>;
  for (const a of Object.keys(AGENTS) as Agent[]) {
    const mine = calls.filter((c) => c.agent === a);
    expect(mine.length, `${a}: LLM calls`).toBeGreaterThanOrEqual(2);
    const agentsOfNodes = new Set(mine.map((c) => b.graph.nodes.find((n) => n.id === c.nodeId)!.agent));
    expect([...agentsOfNodes], `${a}: one lane`).toHaveLength(1);
    lanes[a] = [...agentsOfNodes][0]!;
    expect(lanes[a], a).toBeTruthy();
  }
  expect(new Set(Object.values(lanes)).size, "a lane per framework agent").toBe(3);
  expect(calls.every((c) => c.agent !== null), "every model call belongs to a framework agent").toBe(true);
  laneOf = lanes;
});

/** Screen x-range of a lane header and screen box of a node in the graph. */
async function box(page: Page, selector: string) {
  const bb = await page.locator(selector).boundingBox();
  if (!bb) throw new Error(`not rendered: ${selector}`);
  return bb;
}

test("the inspector: one lane per AI SDK agent, the two subagents in parallel lanes, their data edges joining in the orchestrator", async ({ page }) => {
  // Tall and wide enough that the lane layout of the whole run fits (every node and edge drawn).
  await page.setViewportSize({ width: 2200, height: 1500 });
  await signIn(page, researcher);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  const graph = page.getByTestId("trace-graph");
  await expect(graph.locator("[data-testid=graph-node]")).toHaveCount(b.graph.nodes.length, { timeout: 15_000 });

  // One lane per framework agent, each headed by its name; every LLM call of the agent is drawn in it.
  const headers = page.getByTestId("lane-headers");
  const laneBox: Partial<Record<Agent, { left: number; right: number }>> = {};
  for (const a of Object.keys(AGENTS) as Agent[]) {
    await expect(headers.locator(`[data-lane="${laneOf[a]}"]`)).toHaveText(laneOf[a]);
    const h = await box(page, `[data-testid=lane-headers] [data-lane="${laneOf[a]}"]`);
    laneBox[a] = { left: h.x, right: h.x + h.width };
    for (const c of calls.filter((x) => x.agent === a)) {
      await expect(graph.locator(`[data-testid=graph-node][data-node-id="${c.nodeId}"][title^="${c.nodeId} · llm_call · ${laneOf[a]}"]`)).toHaveCount(1);
      const n = await box(page, `[data-testid=graph-node][data-node-id="${c.nodeId}"]`);
      const cx = n.x + n.width / 2;
      expect(cx, `${c.nodeId} (${a}) in lane "${laneOf[a]}"`).toBeGreaterThan(laneBox[a]!.left);
      expect(cx, `${c.nodeId} (${a}) in lane "${laneOf[a]}"`).toBeLessThan(laneBox[a]!.right);
    }
  }
  // The lanes are side by side, apart.
  const lanesSorted = Object.values(laneBox).sort((x, y) => x!.left - y!.left);
  for (let i = 1; i < lanesSorted.length; i++) expect(lanesSorted[i]!.left).toBeGreaterThanOrEqual(lanesSorted[i - 1]!.right);

  // Parallel: the subagents' calls interleave in the observed order (rows overlap on screen) ...
  const rows = async (a: Agent) => Promise.all(calls.filter((c) => c.agent === a).map(async (c) => (await box(page, `[data-testid=graph-node][data-node-id="${c.nodeId}"]`)).y));
  const [w, g] = [await rows("weather"), await rows("guide")];
  expect(Math.min(...g), "the guide starts before the weather subagent is done").toBeLessThan(Math.max(...w));
  expect(Math.min(...w), "the weather subagent starts before the guide is done").toBeLessThan(Math.max(...g));

  // ... and their data edges, as drawn, never connect one subagent to the other.
  const drawn = (await graph.locator("path.edge-data").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? "")))
    .map((l) => /^Edge from (\S+) to (\S+)$/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => [m[1], m[2]] as const);
  const expected = b.graph.edges.filter((e) => e.kind === "data").map((e) => `${e.from}>${e.to}`);
  expect(drawn.map(([f, t]) => `${f}>${t}`).sort(), "every data edge of the run is drawn").toEqual(expected.sort());
  const next = new Map<string, string[]>();
  for (const [f, t] of drawn) next.set(f, [...(next.get(f) ?? []), t]);
  const reach = (from: string): Set<string> => {
    const seen = new Set([from]);
    const stack = [from];
    while (stack.length) {
      for (const m of next.get(stack.pop()!) ?? []) {
        if (seen.has(m)) continue;
        seen.add(m);
        stack.push(m);
      }
    }
    return seen;
  };
  const nodesIn = (lane: string) => b.graph.nodes.filter((n) => n.agent === lane).map((n) => n.id);
  const [weatherNodes, guideNodes] = [nodesIn(laneOf.weather), nodesIn(laneOf.guide)];
  for (const x of weatherNodes) for (const y of guideNodes) {
    expect(reach(x).has(y), `${x} ↛ ${y}`).toBe(false);
    expect(reach(y).has(x), `${y} ↛ ${x}`).toBe(false);
  }

  // The join: the orchestrator's last call consumes both subagents' outputs, a data edge in from each lane.
  const joinCall = join(b);
  expect(joinCall.seq, "the join is the run's last model call").toBe(calls.at(-1)!.seq);
  const into = drawn.filter(([, t]) => t === joinCall.nodeId).map(([f]) => f);
  const fromWeather = into.filter((f) => weatherNodes.includes(f));
  const fromGuide = into.filter((f) => guideNodes.includes(f));
  expect(fromWeather.length, `a data edge weather → ${joinCall.nodeId}`).toBeGreaterThanOrEqual(1);
  expect(fromGuide.length, `a data edge guide → ${joinCall.nodeId}`).toBeGreaterThanOrEqual(1);
  // both subagents' branches, from their first call on, reach the join
  for (const a of ["weather", "guide"] as const) expect(reach(calls.find((c) => c.agent === a)!.nodeId).has(joinCall.nodeId), `${a} ⇝ ${joinCall.nodeId}`).toBe(true);
  await page.screenshot({ path: "e2e-artifacts/frameworks-ai-sdk-lanes.png" });
});

test("Replay from here on a subagent's second call: the verified prefix, then the live suffix", async ({ page }) => {
  test.setTimeout(90_000);
  // The target: the second call of whichever subagent made it later, so every other call of both
  // parallel subagents (and the guide's embeddings, which the stand-in cannot serve) is in the prefix.
  const seconds = (["weather", "guide"] as const).map((a) => ({ a, c: calls.filter((x) => x.agent === a)[1] }));
  const { a: agent, c: target } = seconds.sort((x, y) => y.c.seq - x.c.seq)[0];
  const liveExpected = calls.filter((c) => c.seq >= target.seq);
  // After it, only the orchestrator's joining call was recorded (the stand-in answers both live calls with text).
  expect(liveExpected.map((c) => c.agent)).toEqual([agent, "orchestrator"]);
  const guidance = `Prefer indoor options (e2e ${randomUUID().slice(0, 8)}).`;

  await signIn(page, researcher);
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${target.nodeId}`);
  await expect(page.locator(`[data-testid=node-detail][data-node-id="${target.nodeId}"]`)).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Replay from here" }).click();
  const dialog = page.getByTestId("replay-dialog");
  await expect(dialog.getByTestId("replay-boundary")).toContainText("Native replay");
  await expect(dialog.getByTestId("replay-boundary")).toContainText(`${target.nodeId} (record ${target.seq})`);
  await expect(dialog.getByTestId("replay-runner")).toContainText(`registered runner ${RUNNER}`);
  await expect(dialog.getByTestId("replay-runner-command")).toContainText("examples/ai-sdk/main.ts --chat");
  await expect(dialog.getByTestId("replay-endpoint")).toContainText(LLM);
  await dialog.getByLabel("Guidance").fill(guidance);
  await dialog.getByRole("button", { name: "Start replay" }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole("tab", { name: "Replays" }).click();
  const runItem = page.getByTestId("replay-runs").locator("li").first();
  await expect(runItem).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  const progress = `${target.seq}/${target.seq} verified · ${liveExpected.length} live call(s)`;
  await expect(runItem.getByTestId("replay-progress")).toContainText(`prefix ${progress}`);

  await runItem.getByRole("link", { name: "open" }).click();
  await expect(page.getByTestId("replay-status")).toHaveText("completed");
  await expect(page.getByTestId("replay-progress-summary")).toContainText(`Prefix ${progress}`);
  // Node by node: every model call before the target is a verified-prefix row, the target is the
  // intervention, and the live suffix is new nodes (the orchestrator's joining call, a final result).
  const table = page.getByTestId("replay-compare");
  for (const c of calls.filter((x) => x.seq < target.seq)) await expect(table.locator('tr[data-kind="prefix"]').filter({ hasText: c.nodeId })).toHaveCount(1);
  const prefixRows = await table.locator('tr[data-kind="prefix"]').count();
  const intervention = table.locator('tr[data-kind="intervention"]');
  await expect(intervention).toHaveCount(1);
  await expect(intervention.locator("td").first()).toContainText(target.nodeId);
  const newRows = table.locator('tr[data-kind="new"]');
  await expect(newRows.filter({ hasText: "llm_call" })).toHaveCount(liveExpected.length - 1);
  await expect(newRows.filter({ hasText: "final_result" })).toHaveCount(1);
  await expect(page.locator('[data-mark="Δ"]').first()).toBeVisible();
  // The source's answer came from the seeded test model; the replay's from the live stand-in.
  await expect(page.getByTestId("final-answer-source")).toContainText("[seeded-stochastic-test-model]");
  await expect(page.getByTestId("final-answer-replay")).toContainText("Scripted stand-in reply (no model was called");

  // The stored result: the prefix records byte for byte, the guidance only in the target agent's live request.
  const resultId = (await page.getByTestId("replay-header").locator("p").filter({ hasText: "result case" }).locator("a").last().textContent())?.trim() ?? "";
  const result = await storedBundle(resultId);
  expect(result, `result bundle ${resultId}`).not.toBeNull();
  expect(result!.records.slice(0, target.seq)).toEqual(b.records.slice(0, target.seq));
  const live = result!.records.slice(target.seq);
  expect(live.map((r) => agentOf(r.request))).toEqual([agent, "orchestrator"]);
  expect(JSON.stringify(live[0].request)).toContain(guidance);
  // The orchestrator's live call gets no guidance of its own: apart from the tool results (the
  // subagents' answers, one of them now the stand-in's, which quotes the instruction it received)
  // its messages are the recorded joining call's.
  type Msg = { role?: string; content?: unknown };
  const ownMessages = (r: Rec) => ((r.request as { messages?: Msg[] }).messages ?? []).filter((m) => m.role !== "tool");
  expect(ownMessages(live[1])).toEqual(ownMessages(b.records.find((r) => r.seq === join(b).seq)!));
  expect(JSON.stringify(ownMessages(live[1]))).not.toContain(guidance);
  console.log(
    `ai-sdk e2e: ${b.graph.nodes.length} nodes, lanes ${JSON.stringify(laneOf)}, replay from ${target.nodeId} (${agent}, record ${target.seq}): ${target.seq} verified, ${live.length} live; compare rows: ${prefixRows} prefix, 1 intervention, ${await newRows.count()} new`,
  );
  await page.screenshot({ path: "e2e-artifacts/frameworks-ai-sdk-replay.png", fullPage: true });
});
