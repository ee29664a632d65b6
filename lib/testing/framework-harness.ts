/**
 * Test support for the framework proofs (issue 21 item 6, `examples/<framework>/*.test.ts`): record
 * an unmodified framework example behind `symtrace record` against the seeded stochastic model
 * server, validate and import the bundle, read its lanes and tool nodes, and replay it from an
 * LLM node with guidance. Nothing here is a model or a framework: the examples are real framework
 * code, the model is lib/testing/stochastic-model (its answers say `[seeded-stochastic-test-model]`).
 *
 * Which framework agent made an LLM request is read from the request's system prompt /
 * instructions (`systemText`), matched against a distinctive piece of each agent's instructions
 * as written in the example (`FrameworkCase.agents`).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { validateBundle, type ReplayBundle } from "../bundle";
import type { Db } from "../db";
import { importPaths } from "../services/import-files";
import { recordCommand, replayCommand } from "../../cli/replay";
import { partsText } from "./stochastic-model/conversation";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** One framework example under test. */
export interface FrameworkCase {
  /** Short name, used in file names and bundle ids. */
  name: string;
  /** The MAS command (run from the repo root). */
  command: string[];
  /** Framework agent name → a piece of text only that agent's system prompt / instructions contain. */
  agents: Record<string, string>;
  /** In-process tools the run is expected to call (tool_call nodes). */
  tools: string[];
  /** Extra `symtrace record` options (e.g. `--tool-upstream`). */
  recordArgs?: string[];
}

/** The command a user runs for an example (its README): `node --import tsx <script> ...args`. */
export const node = (script: string, ...args: string[]) => ["node", "--import", "tsx", path.join(ROOT, script), ...args];

/**
 * The same example without tsx's loader: its TypeScript file compiled once to a plain ES module
 * (esbuild transform only, nothing bundled: every `import` stays, and Node resolves the installed
 * framework packages from the repo's node_modules exactly as under tsx). On Node 20 tsx's hooks
 * run on a loader thread and every module of a framework passes through them: start-up to the
 * first model request measured 1.1–1.5 s under tsx and 0.5–0.7 s compiled (LangGraph supervisor,
 * idle 2-core machine). The suites record with {@link node} (the README's command) and replay
 * with this, which is what keeps `npm test` short (issue 25 item 4).
 *
 * The module is kept in `node_modules/.cache/symtrace/examples/` under the sha256 of the source
 * (a changed example compiles again); written through a temporary name (vitest workers race).
 * @param command a command made by {@link node}; any other command is returned unchanged
 * @returns `["node", <compiled .mjs>, ...args]`
 */
export function precompiled(command: string[]): string[] {
  const [bin, flag, loader, script, ...args] = command;
  if (bin !== "node" || flag !== "--import" || loader !== "tsx" || !script?.endsWith(".ts")) return command;
  return ["node", compiledExample(script), ...args];
}

const compiledFiles = new Map<string, string>();

function compiledExample(script: string): string {
  const hit = compiledFiles.get(script);
  if (hit) return hit;
  const source = readFileSync(script, "utf8");
  const hash = createHash("sha256").update(script).update("\0").update(source).digest("hex").slice(0, 16);
  const dir = path.join(ROOT, "node_modules", ".cache", "symtrace", "examples");
  const file = path.join(dir, `${path.basename(path.dirname(script))}-${path.basename(script, ".ts")}-${hash}.mjs`);
  if (!existsSync(file)) {
    const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
    const { code } = esbuild.transformSync(source, { loader: "ts", format: "esm", platform: "node", target: "node20", sourcefile: script });
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  compiledFiles.set(script, file);
  return file;
}

/** A fresh temp folder for one test file's bundles. */
export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The system prompt / instructions of a recorded LLM request, whatever its protocol ("" if none). */
export function systemText(request: unknown): string {
  const r = (request ?? {}) as Record<string, unknown>;
  if (typeof r.instructions === "string") return r.instructions; // OpenAI Responses
  if (r.system !== undefined) return partsText(r.system); // Anthropic Messages
  const parts: string[] = [];
  const items = Array.isArray(r.messages) ? r.messages : Array.isArray(r.input) ? r.input : [];
  for (const m of items as Array<Record<string, unknown>>) if (m && (m.role === "system" || m.role === "developer")) parts.push(partsText(m.content));
  return parts.join("\n\n");
}

/** The framework agent whose instructions a request carries, or null. */
export function frameworkAgentOf(fc: FrameworkCase, request: unknown): string | null {
  const sys = systemText(request);
  const hits = Object.entries(fc.agents).filter(([, marker]) => sys.includes(marker));
  return hits.length === 1 ? hits[0][0] : null;
}

export function readBundle(file: string): ReplayBundle {
  const r = validateBundle(JSON.parse(readFileSync(file, "utf8")));
  if (!r.ok) throw new Error(`${file} is not a valid bundle v1: ${JSON.stringify(r.issues.slice(0, 3))}`);
  return r.bundle;
}

/**
 * `symtrace record` of the example; returns the CLI result and (when it wrote one) the bundle.
 * `precompiled`: run the MAS {@link precompiled} instead of the README's command.
 */
export async function recordExample(fc: FrameworkCase, upstream: string, file: string, extra: string[] = [], opts: { precompiled?: boolean } = {}) {
  const command = opts.precompiled ? precompiled(fc.command) : fc.command;
  const r = await recordCommand(["--out", file, "--upstream", upstream, "--id", `frameworks/${path.basename(file, ".json")}`, ...(fc.recordArgs ?? []), ...extra, "--", ...command]);
  return r;
}

/** An embeddings record (an `llm` boundary of protocol `openai-embeddings`: no agent's model call). */
export const isEmbeddings = (r: ReplayBundle["records"][number]) => (r.meta as { protocol?: unknown } | undefined)?.protocol === "openai-embeddings";

/** The LLM records of a bundle (model calls of agents; embeddings excluded) with the framework agent of each. */
export function llmRecords(fc: FrameworkCase, b: ReplayBundle) {
  return b.records.filter((r) => r.boundary === "llm" && !isEmbeddings(r)).map((r) => ({ seq: r.seq, nodeId: r.nodeId, agent: frameworkAgentOf(fc, r.request), request: r.request }));
}

/**
 * Lanes of an imported case as the inspector draws them: the `agent` of every llm_call row, per
 * framework agent (from the stored record's request).
 * @returns `lanesByAgent`: framework agent → the distinct lanes its LLM calls are in
 */
export async function importedLanes(db: Db, fc: FrameworkCase, file: string) {
  const imp = await importPaths(db, [file]);
  if (imp.failed.length) throw new Error(`import failed: ${JSON.stringify(imp.failed)}`);
  const b = readBundle(file);
  const c = await db.case.findUniqueOrThrow({ where: { bundleId: b.id } });
  const rows = await db.node.findMany({ where: { caseId: c.id }, select: { nodeId: true, type: true, agent: true } });
  const laneOf = new Map(rows.map((r) => [r.nodeId, r.agent]));
  const lanesByAgent: Record<string, string[]> = {};
  for (const rec of llmRecords(fc, b)) {
    const key = rec.agent ?? "(unknown)";
    const lane = laneOf.get(rec.nodeId) ?? "(none)";
    lanesByAgent[key] = [...new Set([...(lanesByAgent[key] ?? []), lane])];
  }
  return { rows, lanesByAgent, bundle: b };
}

/** `symtrace replay` of a bundle from one node, with guidance, live against `upstream`; the MAS runs {@link precompiled}. */
export async function replayFrom(fc: FrameworkCase, srcFile: string, target: string, guidance: string, upstream: string | null, out: string, extra: string[] = []) {
  const args = [srcFile, "--target", target, ...(guidance ? ["--guidance", guidance] : []), ...(upstream ? ["--upstream", upstream] : []), "--out", out, ...(fc.recordArgs ?? []).filter((a, i, all) => a === "--tool-upstream" || all[i - 1] === "--tool-upstream"), ...extra, "--", ...precompiled(fc.command)];
  return replayCommand(args);
}

/** Run async jobs with at most `limit` at a time, results in input order. */
export async function pool<T>(limit: number, jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

/** Data-edge reachability in a bundle's graph: can `from` reach `to` along data edges? */
export function dataReaches(b: ReplayBundle, from: string, to: string): boolean {
  const next = new Map<string, string[]>();
  for (const e of b.graph.edges) if (e.kind === "data") next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const seen = new Set<string>([from]);
  const stack = [from];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === to) return true;
    for (const m of next.get(n) ?? []) {
      if (seen.has(m)) continue;
      seen.add(m);
      stack.push(m);
    }
  }
  return false;
}
