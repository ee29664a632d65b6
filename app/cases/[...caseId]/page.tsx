import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { caseHref } from "@/lib/case-links";
import { bundleIdFromParam } from "@/lib/case-links";
import { caseVerdict, getCaseAnnotationsFor, getCaseForViewer, getCaseGraph, getCaseLanes, getCaseTimeZero, getDb, getGraphWindow, getOtlpTraceState, getOwnAnnotation, listQueue, locateNode } from "@/lib/db";
import { casePageQuerySchema } from "@/lib/schemas/cases";
import { BLOCK_ROWS, compactGraph } from "@/lib/layout";
import type { BigTraceProps } from "@/components/trace/inspector";
import { requireViewer } from "@/lib/session";
import { CaseHeader } from "@/components/trace/case-header";
import { OtlpTraceStatus } from "@/components/trace/otlp-status";
import { ReferenceLabels } from "@/components/trace/reference-labels";
import { CaseWorkbench, type WorkbenchMode } from "@/components/annotation/case-workbench";
import { canReplay as canReplayCase } from "@/lib/services/replay-access";
import { symptomLayerFor } from "@/lib/services/symptoms-case";

export const dynamic = "force-dynamic";

/**
 * Cases with more nodes than this (SYMTRACE_WINDOWED_NODES, default 5,000) open in the windowed
 * inspector (issue 16): the page carries the lanes and one window around the selected node,
 * never the whole graph.
 */
function windowedFrom(): number {
  const n = Number(process.env.SYMTRACE_WINDOWED_NODES ?? 5000);
  return Number.isFinite(n) && n >= 0 ? n : 5000;
}

type Params = Promise<{ caseId: string[] }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: bundleIdFromParam((await params).caseId.join("/")) };
}

export default async function CasePage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer();
  const bundleId = bundleIdFromParam((await params).caseId.join("/"));
  const { node: requested, finalized: justFinalized } = casePageQuerySchema.parse(await searchParams);
  const db = getDb();
  // The case's fields through the one projection of lib/db: the reference layer (labels, reference
  // answer, file name, label-derived notes) is withheld by the server from a viewer who is blind on it.
  const seen = await getCaseForViewer(db, viewer, { bundleId });
  if (!seen) notFound();
  const { case: c, gate } = seen;
  const windowed = c.nodeCount > windowedFrom();
  const [full, bigGraph, ann, queue] = await Promise.all([
    windowed ? null : getCaseGraph(db, { caseId: c.id }),
    windowed ? bigTrace(c.id, c.nodeCount, requested, async () => gate.detector) : null,
    getCaseAnnotationsFor(db, viewer, { caseId: c.id }),
    listQueue(db, viewer),
  ]);
  const graph = full ?? { nodes: [], edges: [] };
  const known = requested ? (bigGraph ? bigGraph.initial?.id === requested : graph.nodes.some((n) => n.id === requested)) : false;

  // Which side panel: annotate (assigned annotator), adjudicate (adjudicator, three submitted,
  // not finalized, not one of the annotators), else view.
  let mode: WorkbenchMode = "view";
  if (ann.access.isAssignedAnnotator) mode = "annotate";
  else if (!ann.blind && viewer.roles.includes("adjudicator") && ann.initials.length >= 3 && !ann.final) mode = "adjudicate";
  const canReplay = canReplayCase(viewer, ann.access);
  const ownFinal = mode === "adjudicate" ? await getOwnAnnotation(db, viewer, { caseId: c.id, kind: "final" }) : null;
  // Detector output is a label: null (no toggle) for an annotator before submitting, unless assisted.
  // (windowed cases: the inspector fetches it from /symptoms when the viewer turns it on)
  const symptoms = windowed ? null : await symptomLayerFor(db, viewer, c.id);
  const otlpState = await getOtlpTraceState(db, c.bundleId);
  const verdict = await caseVerdict(db, c, viewer);

  const qi = queue.findIndex((q) => q.caseId === c.id);
  const prev = qi > 0 ? queue[qi - 1] : null;
  const next = qi >= 0 && qi < queue.length - 1 ? queue[qi + 1] : null;

  return (
    <div className="flex flex-col gap-4">
      <CaseHeader c={{ ...c, outcomePassed: verdict.passed, outcomeVia: verdict.via, outcomeEvaluator: verdict.evaluator }} finalized={gate.references && !!c.finalizedAt} withheld={c.withheld} />
      <OtlpTraceStatus state={otlpState} />
      {viewer.roles.some((r) => r === "researcher" || r === "admin") ? (
        <p className="text-sm">
          <Link href={`/repair-searches?caseId=${encodeURIComponent(c.id)}`} className="text-blue-700 underline" data-testid="case-repair-searches">
            Repair searches
          </Link>{" "}
          <span className="text-xs text-slate-500">(MARS tree searches from this case)</span>
        </p>
      ) : null}
      {justFinalized === "1" && !ann.blind && c.finalizedAt ? (
        <p role="status" data-testid="finalized-message" className="rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
          Finalized: the final annotation is saved and the case is closed for adjudication. An admin can reopen it.
        </p>
      ) : null}
      {qi >= 0 ? (
        <nav className="flex items-center gap-3 text-sm" aria-label="My queue">
          <span className="text-slate-600">
            Queue {qi + 1} / {queue.length}
          </span>
          {prev ? (
            <Link data-queue-prev href={caseHref(prev.bundleId)} className="text-blue-700 underline">
              ← previous ([)
            </Link>
          ) : null}
          {next ? (
            <Link data-queue-next href={caseHref(next.bundleId)} className="text-blue-700 underline">
              next (]) →
            </Link>
          ) : null}
          <Link href="/queue" className="text-slate-600 underline">
            all
          </Link>
        </nav>
      ) : null}
      {requested && !known ? (
        <p role="alert" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          This case has no node &quot;{requested}&quot;; showing the first node instead.
        </p>
      ) : null}
      {ann.blind && ann.access.isAssignedAnnotator ? (
        <p className="rounded border border-blue-200 bg-blue-50 px-3 py-2 text-xs text-blue-900" data-testid="blind-notice">
          Blind annotation: other annotators&apos; work, the final annotation, the reference answer and the dataset&apos;s labels stay hidden until you submit.
        </p>
      ) : null}
      <CaseWorkbench
        key={`${mode}:${ann.own?.status ?? "none"}:${ann.final?.id ?? ""}`}
        bundleId={c.bundleId}
        graph={compactGraph(graph.nodes, graph.edges)}
        big={bigGraph}
        initialNodeId={known ? (requested as string) : (bigGraph ? (bigGraph.initial?.id ?? null) : (graph.nodes[0]?.id ?? null))}
        mode={mode}
        own={ann.own}
        ownFinal={ownFinal}
        initials={ann.initials}
        final={ann.final}
        canReplay={canReplay}
        symptoms={symptoms}
      />
      {gate.references ? <ReferenceLabels bundleId={c.bundleId} labels={c.referenceLabels} /> : null}
    </div>
  );
}

/**
 * The lanes and the window of whole blocks around the requested node (or the first) of a large
 * case, the timeline's time origin, and whether the viewer may turn on the symptom layer.
 */
async function bigTrace(caseId: string, count: number, requested: string | undefined, maySeeSymptoms: () => Promise<boolean>): Promise<BigTraceProps> {
  const db = getDb();
  const [lanes, at, timeZeroNs, symptomsAvailable] = await Promise.all([
    getCaseLanes(db, { caseId }),
    requested ? locateNode(db, { caseId, nodeId: requested }) : Promise.resolve(null),
    getCaseTimeZero(db, { caseId }),
    maySeeSymptoms(),
  ]);
  const row = at ?? 0;
  const b = Math.floor(row / BLOCK_ROWS);
  const from = Math.max(0, (b - 1) * BLOCK_ROWS);
  const to = Math.min(count, (b + 2) * BLOCK_ROWS);
  const window = await getGraphWindow(db, { caseId, from, to });
  const node = window.nodes.find((n) => n.orderIndex === row) ?? window.nodes[0];
  return { count, lanes, window, initial: node ? { id: node.id, orderIndex: node.orderIndex } : null, timeZeroNs, symptomsAvailable };
}
