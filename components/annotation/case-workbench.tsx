"use client";

import { useCallback, useMemo, useState } from "react";
import { expandGraph, type CompactGraph } from "@/lib/layout";
import { Inspector, type BigTraceProps, type SideTab } from "@/components/trace/inspector";
import type { SymptomLayer } from "@/lib/symptoms";
import { ReplayDialog } from "@/components/replay/replay-dialog";
import { ReplayRuns } from "@/components/replay/replay-runs";
import { AdjudicatePanel, type InitialView } from "./adjudicate-panel";
import { AnnotatePanel } from "./annotate-panel";
import { AnnotationSummary } from "./annotation-form";
import { useDraft, type OwnAnnotation } from "./use-draft";

export type WorkbenchMode = "view" | "annotate" | "adjudicate";

/**
 * The case page's client side: the inspector plus, depending on the viewer, the annotation
 * form (annotators), the adjudication view (adjudicators once three are submitted) or the
 * finished annotations (everyone allowed to see them).
 */
export function CaseWorkbench({
  bundleId,
  graph,
  big = null,
  initialNodeId,
  mode,
  own,
  ownFinal,
  initials,
  final,
  canReplay = false,
  symptoms = null,
}: {
  bundleId: string;
  /** The event-dependency graph in its compact wire form (lib/layout/compact.ts). */
  graph: CompactGraph;
  /** A large case (issue 16): shown in windows by the Inspector; `graph` is then empty. */
  big?: BigTraceProps | null;
  initialNodeId: string | null;
  mode: WorkbenchMode;
  own: OwnAnnotation | null;
  ownFinal: OwnAnnotation | null;
  initials: InitialView[];
  final: InitialView | null;
  /** The viewer may start and see replays of this case. */
  canReplay?: boolean;
  /** The symptom layer, only when the server allows this viewer to see it (lib/services symptomLayerFor). */
  symptoms?: SymptomLayer | null;
}) {
  const [replayNode, setReplayNode] = useState<string | null>(null);
  const [replayTick, setReplayTick] = useState(0);
  const caseKey = encodeURIComponent(bundleId);
  const { nodes, edges } = useMemo(() => expandGraph(graph), [graph]);
  const initialDraft = useDraft(caseKey, "initial", own);
  const finalDraft = useDraft(caseKey, "final", ownFinal);
  const active = mode === "adjudicate" ? finalDraft : initialDraft;

  const marks = useMemo(() => {
    const m = new Map<string, string[]>();
    const add = (id: string | null, tag: string) => {
      if (!id) return;
      m.set(id, [...(m.get(id) ?? []), tag]);
    };
    initials.forEach((a, i) => add(a.nodeId, `A${i + 1}`));
    if (final) add(final.nodeId, "F");
    if (mode === "annotate") add(initialDraft.fields.nodeId, "you");
    if (mode === "adjudicate") add(finalDraft.fields.nodeId, "final");
    return m;
  }, [initials, final, mode, initialDraft.fields.nodeId, finalDraft.fields.nodeId]);

  const { fields, setFields } = active;
  const onQuote = useCallback(
    (nodeId: string, quote: string) => setFields({ ...fields, evidence: [...fields.evidence, { nodeId, quote }] }),
    [fields, setFields],
  );

  const tabs: SideTab[] = [];
  if (mode === "annotate") {
    tabs.push({ id: "annotate", label: "Annotate", render: ({ selectedNode, select }) => <AnnotatePanel caseKey={caseKey} draft={initialDraft} selectedNode={selectedNode} select={select} reopened={own?.reopened} /> });
  }
  if (mode === "adjudicate") {
    tabs.push({
      id: "adjudicate",
      label: "Adjudicate",
      render: ({ selectedNode, select }) => <AdjudicatePanel caseKey={caseKey} initials={initials} draft={finalDraft} selectedNode={selectedNode} select={select} />,
    });
  }
  if (mode !== "adjudicate" && (initials.length || final)) {
    tabs.push({
      id: "annotations",
      label: final ? "Final" : "Annotations",
      render: ({ select }) => (
        <div className="flex flex-col gap-2 p-3" data-testid="annotations-view">
          {final ? <AnnotationSummary a={final} onSelectNode={select} title={`Final · ${final.author.name}`} /> : <p className="text-xs text-slate-500">Not finalized yet.</p>}
          {initials.map((a, i) => (
            <AnnotationSummary key={a.id} a={a} onSelectNode={select} title={`A${i + 1} · ${a.author.name}`} />
          ))}
        </div>
      ),
    });
  }
  if (canReplay) {
    tabs.push({ id: "replays", label: "Replays", render: () => <ReplayRuns caseKey={caseKey} refreshKey={replayTick} /> });
  }
  const canQuote = (mode === "annotate" && initialDraft.status !== "submitted") || mode === "adjudicate";
  return (
    <>
    <Inspector
      bundleId={bundleId}
      big={big}
      nodes={nodes}
      edges={edges}
      initialNodeId={initialNodeId}
      sideTabs={tabs}
      marks={marks}
      onQuote={canQuote ? onQuote : undefined}
      evidence={fields.evidence}
      onReplay={canReplay ? setReplayNode : undefined}
      defaultTab={mode === "annotate" ? "annotate" : mode === "adjudicate" ? "adjudicate" : "node"}
      symptoms={symptoms}
    />
    {replayNode ? (
      <ReplayDialog
        caseKey={caseKey}
        nodeId={replayNode}
        onClose={() => setReplayNode(null)}
        onStarted={() => {
          setReplayNode(null);
          setReplayTick((t) => t + 1);
          document.querySelector<HTMLButtonElement>('[role=tab][data-tab-id="replays"]')?.click();
        }}
      />
    ) : null}
    </>
  );
}
