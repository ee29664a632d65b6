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
import { mkdtempSync, readFileSync } from "node:fs";
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

export const node = (script: string, ...args: string[]) => ["node", "--import", "tsx", path.join(ROOT, script), ...args];

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

/** `symtrace record` of the example; returns the CLI result and (when it wrote one) the bundle. */
export async function recordExample(fc: FrameworkCase, upstream: string, file: string, extra: string[] = []) {
  const r = await recordCommand(["--out", file, "--upstream", upstream, "--id", `frameworks/${path.basename(file, ".json")}`, ...(fc.recordArgs ?? []), ...extra, "--", ...fc.command]);
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

/** `symtrace replay` of a bundle from one node, with guidance, live against `upstream`. */
export async function replayFrom(fc: FrameworkCase, srcFile: string, target: string, guidance: string, upstream: string | null, out: string, extra: string[] = []) {
  const args = [srcFile, "--target", target, ...(guidance ? ["--guidance", guidance] : []), ...(upstream ? ["--upstream", upstream] : []), "--out", out, ...(fc.recordArgs ?? []).filter((a, i, all) => a === "--tool-upstream" || all[i - 1] === "--tool-upstream"), ...extra, "--", ...fc.command];
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
