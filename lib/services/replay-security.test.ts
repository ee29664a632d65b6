/**
 * Issue 10 item 1: a command that came inside an imported bundle is never run by the app — not
 * by the replay routes (their service functions, lib/services/replay-start.ts), not by the job
 * worker (lib/jobs with the production executor) — and by the CLI only with
 * `--allow-bundle-command`. The bundle is a real recording of the reference conversation MAS
 * (scripted local OpenAI-compatible server) whose `config.runner` was rewritten to write a marker
 * file; before the fix, "Replay from here" spawned it even without an upstream.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../bundle";
import { findCaseId, getRun, upsertUser, type DbHandle } from "../db";
import { freshTestDb } from "../db/test-db";
import { createWorker } from "../jobs";
import { startReplayStack, stopReplayStack, type ReplayStack } from "../testing/replay-stack";
import { DEMO_TASK } from "../../mas/scripted-policy";
import { recordCommand, replayCommand } from "../../cli/replay";
import { importPaths } from "./import-files";
import { mayReplay } from "./replay-access";
import { describeReplayTarget, startCaseReplays } from "./replay-start";
import { builtinRunners, loadRunnerRegistry, parseRunnersFile, planReplay, registryForRoute, runnerEnv } from "./runners";

const ROOT = path.resolve(import.meta.dirname, "../..");
const MAS = (name: string) => ["node", "--import", "tsx", path.join(ROOT, "mas", `${name}.ts`)];
const REGISTRY = builtinRunners(ROOT);
let stack: ReplayStack;
let h: DbHandle;
let recorded: ReplayBundle;
let researcher: { id: string; roles: ["researcher"] };

/** A copy of the recording whose runner writes `marker` (and, through NODE_OPTIONS, `marker`.env). */
function hostile(id: string, marker: string, runner: Record<string, unknown>): string {
  const preload = `${marker}.cjs`;
  writeFileSync(preload, `require("node:fs").writeFileSync(${JSON.stringify(marker + ".env")}, "pwned");\n`);
  const b = { ...recorded, id, config: { ...recorded.config, mas: "evil-mas", runner: { command: ["sh", "-c", `echo pwned > '${marker}'`], env: { NODE_OPTIONS: `--require ${preload}` }, ...runner } } };
  const file = path.join(stack.dir, `${id.replace(/\//g, "_")}.bundle.json`);
  writeFileSync(file, JSON.stringify(b));
  return file;
}

async function importHostile(file: string): Promise<{ caseId: string; bundleId: string }> {
  const r = await importPaths(h.db, [file]);
  expect(r.failed).toEqual([]);
  const bundleId = (JSON.parse(readFileSync(file, "utf8")) as { id: string }).id;
  return { caseId: (await findCaseId(h.db, { bundleId }))!, bundleId };
}

beforeAll(async () => {
  stack = await startReplayStack("symtrace-replay-security-");
  h = await freshTestDb();
  const file = path.join(stack.dir, "conversation.bundle.json");
  const r = await recordCommand(["--out", file, "--upstream", stack.llm.url, "--tool-upstream", stack.tools.url, "--task", DEMO_TASK, "--id", "test/sec-source", "--", ...MAS("conversation")]);
  expect(r.code, JSON.stringify(r.output)).toBe(0);
  const v = validateBundle(JSON.parse(readFileSync(file, "utf8")));
  if (!v.ok) throw new Error(JSON.stringify(v.issues.slice(0, 3)));
  recorded = v.bundle;
  const u = await upsertUser(h.db, { email: "researcher-sec@symtrace.local", roles: ["researcher"] });
  researcher = { id: u.id, roles: ["researcher"] };
}, 90_000);
afterAll(async () => {
  await h?.db.$disconnect();
  await stopReplayStack(stack ?? {});
});

const llmTarget = () => recorded.records.filter((r) => r.boundary === "llm")[1].nodeId;

describe("a bundle's own runner command is never run by the app (route services and job worker)", () => {
  test("unregistered runner: the dialog shows the recorded command and the reason, the run is a transcript continuation, no marker", async () => {
    const marker = path.join(stack.dir, "marker-app");
    const { caseId } = await importHostile(hostile("test/sec-evil", marker, {}));
    expect(await mayReplay(h.db, researcher, caseId)).toBe(true);
    const settings = { upstream: null, model: null, toolUpstream: null };
    const target = await describeReplayTarget(h.db, { viewer: researcher, caseId, node: llmTarget(), registry: REGISTRY, settings });
    expect(target.status).toBe(200);
    expect(target.body).toMatchObject({
      mode: "transcript",
      runner: null,
      runnerName: "evil-mas",
      recordedCommand: ["sh", "-c", `echo pwned > '${marker}'`],
      reason: expect.stringMatching(/runner "evil-mas" is not registered.*never run/),
    });
    const started = await startCaseReplays(h.db, { caseId, targetNodeId: llmTarget(), guidance: "g", count: 1, endpoint: settings, createdById: researcher.id, registry: REGISTRY });
    expect(started!.plan).toMatchObject({ mode: "transcript", reason: expect.stringContaining("not registered") });
    // The job worker with the production executor runs it.
    const worker = createWorker("replay", { db: h.db, runners: REGISTRY, log: () => {} });
    expect(await worker.process(started!.runs[0].id)).toBe(true);
    const run = await getRun(h.db, started!.runs[0].id);
    expect(run).toMatchObject({ status: "prefix_verified", mode: "transcript" });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(marker + ".env")).toBe(false);
  }, 60_000);

  test("a bundle naming a registered runner runs the registered command, never its own command or env (NODE_OPTIONS dropped)", async () => {
    const marker = path.join(stack.dir, "marker-named");
    const { caseId } = await importHostile(hostile("test/sec-named", marker, { name: "conversation" }));
    const settings = { upstream: null, model: null, toolUpstream: null };
    const target = await describeReplayTarget(h.db, { viewer: researcher, caseId, node: llmTarget(), registry: REGISTRY, settings });
    expect(target.body).toMatchObject({ mode: "native", reason: null, runner: { name: "conversation", command: REGISTRY.find((r) => r.name === "conversation")!.command, cwd: ROOT, source: "built-in" } });
    const started = await startCaseReplays(h.db, { caseId, targetNodeId: llmTarget(), guidance: "", count: 1, endpoint: settings, createdById: researcher.id, registry: REGISTRY });
    const worker = createWorker("replay", { db: h.db, runners: REGISTRY, log: () => {} });
    expect(await worker.process(started!.runs[0].id)).toBe(true);
    const run = await getRun(h.db, started!.runs[0].id);
    const seq = recorded.records.find((r) => r.nodeId === llmTarget())!.seq;
    expect(run, JSON.stringify(run?.error)).toMatchObject({ status: "prefix_verified", mode: "native", boundaryNodeId: llmTarget() });
    expect(run!.progress.verified).toBe(seq);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(marker + ".env")).toBe(false);
  }, 60_000);
});

describe("symtrace replay and a bundle's command", () => {
  test("refused without --allow-bundle-command (exit 2, nothing runs); run with it", async () => {
    const marker = path.join(stack.dir, "marker-cli");
    const file = hostile("test/sec-cli", marker, {});
    const args = [file, "--target", llmTarget(), "--out", path.join(stack.dir, "never.json")];
    const refused = await replayCommand(args, REGISTRY);
    expect(refused.code).toBe(2);
    expect(JSON.stringify(refused.output)).toContain("--allow-bundle-command");
    expect((refused.output as { errors: { path: string }[] }).errors[0].path).toBe("$.config.runner.command");
    expect(existsSync(marker)).toBe(false);
    // An unknown --runner is refused too; a registered one runs (prefix verified up to the target).
    expect((await replayCommand([...args, "--runner", "nope"], REGISTRY)).code).toBe(2);
    const viaRunner = await replayCommand([...args, "--runner", "conversation"], REGISTRY);
    expect(viaRunner.output).toMatchObject({ ok: true, status: "prefix-verified" });
    expect(existsSync(marker)).toBe(false);
    await replayCommand([...args, "--allow-bundle-command"], REGISTRY);
    expect(readFileSync(marker, "utf8").trim()).toBe("pwned");
    expect(existsSync(marker + ".env")).toBe(false); // sh is not node: NODE_OPTIONS had nothing to load
  }, 60_000);

  test("validate: ok, with a warning that the bundle's runner command (and env) will not be executed", () => {
    const marker = path.join(stack.dir, "marker-validate");
    const file = hostile("test/sec-validate", marker, {});
    const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "cli/symtrace.ts"), "validate", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const o = JSON.parse(r.stdout) as { ok: boolean; warnings: { path: string; message: string }[] };
    expect(o.ok).toBe(true);
    expect(o.warnings.map((w) => w.path)).toEqual(["$.config.runner.command", "$.config.runner.env"]);
    expect(o.warnings[0].message).toContain("will not be executed");
    expect(o.warnings[0].message).toContain(`echo pwned > '${marker}'`);
    const plain = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "cli/symtrace.ts"), "validate", path.join(process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared"), "fixtures/bundles/gold-c1.bundle.json")], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(plain.status, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty("warnings");
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test("record --runner writes the runner name; replay finds the registered runner by it", async () => {
    const file = path.join(stack.dir, "named.bundle.json");
    const r = await recordCommand(["--out", file, "--upstream", stack.llm.url, "--tool-upstream", stack.tools.url, "--task", DEMO_TASK, "--runner", "conversation", "--", ...MAS("conversation")]);
    expect(r.code, JSON.stringify(r.output)).toBe(0);
    const b = JSON.parse(readFileSync(file, "utf8")) as ReplayBundle;
    expect(b.config.runner).toEqual({ name: "conversation", command: MAS("conversation") });
    expect(planReplay({ ...b, config: { ...b.config, mas: "other" } }, REGISTRY)).toMatchObject({ mode: "native", runner: { name: "conversation" } });
    expect((await recordCommand(["--out", file, "--upstream", stack.llm.url, "--runner", "bad name!", "--", "true"])).code).toBe(2);
  }, 60_000);
});

describe("runner registry", () => {
  test("runners file: valid entries are registered; errors name the file and the JSON path", () => {
    const [r] = parseRunnersFile(JSON.stringify({ runners: [{ name: "py-mas", command: ["python3", "run.py"], cwd: "/srv/mas", passEnv: ["HF_HOME"] }] }), "runners.json");
    expect(r).toEqual({ name: "py-mas", command: ["python3", "run.py"], cwd: "/srv/mas", env: {}, passEnv: ["HF_HOME"], bundleEnv: [], source: "file" });
    expect(() => parseRunnersFile(JSON.stringify({ runners: [{ name: "a", command: [] }] }), "r.json")).toThrow("runners file r.json is invalid: $.runners[0].command: a non-empty argv array");
    expect(() => parseRunnersFile(JSON.stringify({ runners: [{ name: "a", command: ["x"], cwd: "rel" }] }), "r.json")).toThrow("$.runners[0].cwd: an absolute path");
    expect(() => parseRunnersFile(JSON.stringify({ runners: [{ name: "a", command: ["x"] }, { name: "a", command: ["y"] }] }), "r.json")).toThrow('$.runners[1].name: "a" is registered twice');
    expect(() => parseRunnersFile("{", "r.json")).toThrow("runners file r.json is not JSON");
  });

  test("loadRunnerRegistry: built-ins plus the file (a file entry replaces a built-in); SYMTRACE_BUILTIN_RUNNERS=0; a bad file is a 500 naming it", async () => {
    const file = path.join(stack.dir, "runners.json");
    writeFileSync(file, JSON.stringify({ runners: [{ name: "workflow", command: ["/opt/wf"], cwd: "/opt" }, { name: "extra", command: ["x"] }] }));
    const all = loadRunnerRegistry({ SYMTRACE_RUNNERS_FILE: file });
    expect(all.map((r) => `${r.name}:${r.source}`)).toEqual(["orchestrator:built-in", "workflow:file", "conversation:built-in", "calibrated:built-in", "extra:file"]);
    expect(all.find((r) => r.name === "workflow")!.command).toEqual(["/opt/wf"]);
    expect(loadRunnerRegistry({ SYMTRACE_RUNNERS_FILE: file, SYMTRACE_BUILTIN_RUNNERS: "0" }).map((r) => r.name)).toEqual(["workflow", "extra"]);
    writeFileSync(file, JSON.stringify({ runners: [{ name: "bad", command: "rm -rf /" }] }));
    const res = registryForRoute({ SYMTRACE_RUNNERS_FILE: file });
    expect(res).toBeInstanceOf(Response);
    expect((res as Response).status).toBe(500);
    expect(((await (res as Response).json()) as { error: string }).error).toContain(`runners file ${file} is invalid: $.runners[0].command`);
    expect(() => loadRunnerRegistry({ SYMTRACE_RUNNERS_FILE: path.join(stack.dir, "missing.json") })).toThrow("cannot read the runners file");
  });

  test("runnerEnv: base + passEnv from the server, only allowed bundle keys, fixed env last; nothing else leaks", () => {
    const runner = { ...REGISTRY[0], env: { FIXED: "1" }, passEnv: ["HF_HOME"], bundleEnv: ["SYMTRACE_STREAM"] };
    const env = runnerEnv(runner, { SYMTRACE_STREAM: "1", NODE_OPTIONS: "--require /tmp/x.cjs", FIXED: "bundle" }, { PATH: "/bin", HF_HOME: "/hf", DATABASE_URL: "file:secret.db", BETTER_AUTH_SECRET: "s" } as unknown as NodeJS.ProcessEnv);
    expect(env).toEqual({ PATH: "/bin", HF_HOME: "/hf", SYMTRACE_STREAM: "1", FIXED: "1" });
  });

  test("planReplay: imported transcript (no runner) and a bundle with a command but no name are transcript continuations with the reason", () => {
    const noRunner = { ...recorded, config: { ...recorded.config, runner: null } };
    expect(planReplay(noRunner, REGISTRY)).toMatchObject({ mode: "transcript", reason: expect.stringContaining("no runner") });
    const noName = { ...recorded, config: { ...recorded.config, mas: null, runner: { command: ["x"] } } };
    expect(planReplay(noName, REGISTRY)).toMatchObject({ mode: "transcript", reason: expect.stringContaining("names no runner") });
    // An older bundle (no name): its config.mas names the runner.
    expect(planReplay(recorded, REGISTRY)).toMatchObject({ mode: "native", runner: { name: "conversation" }, ref: { inferred: true } });
  });
});
