import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { Badge } from "@/components/ui/badge";

export interface ReferenceLabelView {
  id: string;
  source: string;
  annotator: string;
  nodeId: string | null;
  agent: string | null;
  reason: string | null;
  failureModes: Array<{ mode: string; code: string | null; present: boolean | null }>;
  extra: Record<string, unknown>;
}

const SOURCE_NAMES: Record<string, string> = { who_and_when: "Who&When", mad: "MAST / MAD", langfuse: "Langfuse" };

function Mark({ v }: { v: boolean | null | undefined }) {
  if (v === true) return <span className="font-semibold text-red-700" aria-label="yes">✓</span>;
  if (v === false) return <span className="text-slate-400" aria-label="no">·</span>;
  return <span className="text-amber-700" title="no value in the dataset (NaN)" aria-label="no value">n/a</span>;
}

/** The dataset's own labels (kept apart from our annotators' work), annotator by annotator. */
export function ReferenceLabels({ bundleId, labels }: { bundleId: string; labels: ReferenceLabelView[] }) {
  if (labels.length === 0) return null;
  const withModes = labels.filter((l) => l.failureModes.length > 0);
  const others = labels.filter((l) => l.failureModes.length === 0);
  const modes = withModes.length ? withModes[0].failureModes.map((m) => m.mode) : [];
  return (
    <section aria-labelledby="ref-labels" className="rounded border border-violet-200 bg-white" data-testid="reference-labels">
      <h2 id="ref-labels" className="border-b border-violet-100 bg-violet-50 px-4 py-2 text-sm font-semibold text-violet-900">
        Reference labels from the source dataset
        <span className="ml-2 font-normal text-violet-700">(published with the data; not our annotators&apos; work)</span>
      </h2>
      {others.map((l) => (
        <div key={l.id} className="border-b border-slate-100 px-4 py-3 text-sm last:border-0" data-testid="reference-label">
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone="violet">{SOURCE_NAMES[l.source] ?? l.source}</Badge>
            <span className="font-medium">{l.annotator}</span>
            {l.agent ? (
              <span>
                blames agent <span className="font-mono">{l.agent}</span>
              </span>
            ) : null}
            {l.nodeId ? (
              <span>
                at node{" "}
                <Link className="font-mono text-blue-700 underline" href={caseHref(bundleId, l.nodeId)}>
                  {l.nodeId}
                </Link>
              </span>
            ) : null}
            {l.extra.agentMatchesStep === false ? (
              <Badge tone="amber" title="The message at the labelled step was written by another agent (as published).">
                agent/step mismatch in the dataset
              </Badge>
            ) : null}
          </div>
          {l.reason ? <p className="trace-text mt-2 text-slate-700">{l.reason}</p> : null}
        </div>
      ))}
      {withModes.length > 0 ? (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-xs">
            <thead className="bg-slate-50 text-slate-500">
              <tr>
                <th className="px-3 py-2">Failure mode</th>
                {withModes.map((l) => (
                  <th key={l.id} className="px-3 py-2 text-center">
                    {l.annotator}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {modes.map((mode, i) => (
                <tr key={mode}>
                  <td className="px-3 py-1.5" title={mode}>
                    {mode.split("\n")[0].trim()}
                  </td>
                  {withModes.map((l) => (
                    <td key={l.id} className="px-3 py-1.5 text-center">
                      <Mark v={l.failureModes[i]?.present} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
