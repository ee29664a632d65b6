/**
 * What the replay routes do (app/api/cases/[caseId]/replay-target and /replays), kept here so the
 * routes stay thin and the security rule is tested where it is enforced (issue 10 item 1):
 * `describeReplayTarget` tells the dialog how a replay would run — the registered runner and the
 * exact command, or transcript continuation and why — before anything runs; `startCaseReplays`
 * queues runs and answers the same plan. Neither runs a command; the worker resolves the runner
 * again from the registry (lib/jobs buildReplaySpec), never from the bundle.
 */
import { guidanceFromAnnotation } from "../annotation";
import type { ReplayBundle } from "../bundle";
import { exportBundle, getCaseAnnotationsFor, type Db, type ReplayEndpoint, type ReplayRunView } from "../db";
import type { Viewer } from "../annotation";
import { startReplayRuns } from "../jobs";
import { resolveTarget, TargetError } from "../replay";
import { planReplay, type RegisteredRunner, type ReplayPlan } from "./runners";

/** The plan as the API answers it: `{ mode, runner: { name, command, cwd, source } | null, recordedCommand, reason }`. */
export interface ReplayPlanView {
  mode: "native" | "transcript";
  /** The registered runner that will run (native), with the exact argv and working directory. */
  runner: { name: string; command: string[]; cwd: string; source: "built-in" | "file" } | null;
  /** The runner name the bundle gives (or infers from config.mas), registered or not. */
  runnerName: string | null;
  /** `config.runner.command` as recorded in the bundle: shown, never run. */
  recordedCommand: string[] | null;
  /** Why the run is a transcript continuation (null when native). */
  reason: string | null;
}

/** The API view of a plan. */
export function planView(plan: ReplayPlan): ReplayPlanView {
  return {
    mode: plan.mode,
    runner: plan.runner ? { name: plan.runner.name, command: plan.runner.command, cwd: plan.runner.cwd, source: plan.runner.source } : null,
    runnerName: plan.ref.name,
    recordedCommand: plan.ref.recordedCommand,
    reason: plan.reason,
  };
}

/** How a replay of `bundle` from `node` would run (see the route for the fields). @throws TargetError for an unknown node */
export function replayBoundary(bundle: ReplayBundle, plan: ReplayPlan, node: string): { boundaryNodeId: string; seq: number | null; rule: string } {
  if (plan.mode === "native") {
    const t = resolveTarget(bundle, node);
    return { boundaryNodeId: t.boundaryNodeId, seq: t.seq, rule: t.rule };
  }
  if (!bundle.graph.nodes.some((n) => n.id === node)) throw new TargetError(`node "${node}" is not in this case`);
  return { boundaryNodeId: node, seq: null, rule: "transcript continuation: the recorded conversation up to this node is replayed as one chat and continued live" };
}

/**
 * The replay dialog's information for `node` of a case: the plan (runner + command, or transcript
 * continuation with its reason), the boundary, the endpoint settings (`scripted`: the upstream is
 * the scripted stand-in model), prefilled guidance, and `correction`: the annotation's proposed
 * correction when the annotation names this node (else null).
 * @returns `{ status: 200, body }`, 404 (no case) or 400 (`{ error }` for an unknown node / no LLM boundary after it)
 */
export async function describeReplayTarget(
  db: Db,
  o: { viewer: Viewer; caseId: string; node: string; registry: readonly RegisteredRunner[]; settings: { upstream: string | null; model: string | null; toolUpstream: string | null; anthropicUpstream?: string | null; scripted?: boolean } },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const bundle = await exportBundle(db, { caseId: o.caseId });
  if (!bundle) return { status: 404, body: { error: "no such case" } };
  const plan = planReplay(bundle, o.registry);
  let boundary;
  try {
    boundary = replayBoundary(bundle, plan, o.node);
  } catch (e) {
    return { status: 400, body: { error: e instanceof Error ? e.message : String(e), ...planView(plan) } };
  }
  const ann = await getCaseAnnotationsFor(db, o.viewer, { caseId: o.caseId });
  const source = ann.final ?? ann.own;
  return {
    status: 200,
    body: {
      node: o.node,
      ...planView(plan),
      ...boundary,
      upstream: o.settings.upstream,
      model: o.settings.model ?? bundle.config.model ?? null,
      toolUpstream: o.settings.toolUpstream,
      // where the case's Anthropic Messages calls go live (null: it made none): the set endpoint, else the upstream without /v1
      anthropicUpstream: bundle.records.some((r) => (r.meta as { protocol?: unknown } | undefined)?.protocol === "anthropic-messages") ? (o.settings.anthropicUpstream ?? (o.settings.upstream ? o.settings.upstream.replace(/\/+$/, "").replace(/\/v1$/, "") : null)) : null,
      scripted: o.settings.scripted === true && !!o.settings.upstream,
      guidance: guidanceFromAnnotation(source, o.node),
      guidanceFrom: ann.final ? "final annotation" : ann.own ? "your annotation" : null,
      // The proposed correction a* of that annotation (issue 14), when it names this node: the
      // dialog offers it alone as the guidance.
      correction: source?.correction?.trim() && source.nodeId === o.node ? source.correction.trim() : null,
    },
  };
}

/**
 * Queue 1–5 replays of a case from `targetNodeId` (startReplayRuns) and answer how they will run.
 * The endpoint must not carry a command (routes never set one).
 * @returns `{ groupId, runs, plan }`; null when the case is gone
 * @throws ReplayRunError for bad input (count, guidance)
 */
export async function startCaseReplays(
  db: Db,
  o: { caseId: string; targetNodeId: string; guidance: string; count: number; endpoint: ReplayEndpoint; createdById: string | null; registry: readonly RegisteredRunner[] },
): Promise<{ groupId: string; runs: ReplayRunView[]; plan: ReplayPlanView } | null> {
  const bundle = await exportBundle(db, { caseId: o.caseId });
  if (!bundle) return null;
  const plan = planView(planReplay(bundle, o.registry));
  const { command: _ignored, ...endpoint } = o.endpoint;
  const { groupId, runs } = await startReplayRuns(db, { sourceCaseId: o.caseId, targetNodeId: o.targetNodeId, guidance: o.guidance, count: o.count, endpoint, createdById: o.createdById });
  return { groupId, runs, plan };
}
