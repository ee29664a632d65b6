import { Badge, NODE_TYPE_TONE, type BadgeTone } from "@/components/ui/badge";
import type { AlignedRow, SuffixAlignment, SuffixNode } from "@/lib/replay";

const MARK: Record<AlignedRow["marker"], { tone: BadgeTone; text: string }> = {
  same: { tone: "green", text: "=" },
  differs: { tone: "amber", text: "≠" },
  "source-only": { tone: "slate", text: "source only" },
  "replay-only": { tone: "blue", text: "replay only" },
};

function Cell({ n }: { n: SuffixNode | null }) {
  if (!n) return <td className="py-1 pr-2 text-slate-400">—</td>;
  return (
    <td className="max-w-md py-1 pr-2">
      <span className="font-mono">{n.id}</span> <Badge tone={NODE_TYPE_TONE[n.type] ?? "slate"}>{n.type}</Badge> <span className="text-slate-600">{n.agent ?? "—"}</span>
      <span className="trace-text block text-slate-800">{n.summary}</span>
    </td>
  );
}

/** Source suffix and live suffix side by side: row i = the i-th node after the intervention point in each. */
export function ReplaySuffixTable({ alignment }: { alignment: SuffixAlignment }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="suffix">
      <h2 id="suffix" className="font-semibold">
        Suffix after the intervention, aligned
      </h2>
      <p className="mb-2 text-xs text-slate-500">
        Row i is the i-th node after <span className="font-mono">{alignment.sourceAnchor}</span> in the source and after{" "}
        <span className="font-mono">{alignment.replayAnchor}</span> in the replay (observed order); — where one side has ended. = same agent, type and content; ≠ names what differs.
      </p>
      <table className="w-full text-left text-xs" data-testid="replay-suffix">
        <thead className="text-slate-500">
          <tr>
            <th className="py-1 pr-2">#</th>
            <th className="pr-2">Source</th>
            <th className="pr-2">Replay</th>
            <th>Diff</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {alignment.rows.map((r) => (
            <tr key={r.index} className="align-top" data-marker={r.marker}>
              <td className="py-1 pr-2 font-mono">{r.index}</td>
              <Cell n={r.source} />
              <Cell n={r.replay} />
              <td>
                <Badge tone={MARK[r.marker].tone}>{MARK[r.marker].text}</Badge>
                {r.differences.length ? <span className="block text-slate-600">{r.differences.join(", ")}</span> : null}
              </td>
            </tr>
          ))}
          {alignment.rows.length === 0 ? (
            <tr>
              <td colSpan={4} className="py-1 text-slate-500">
                Neither run has nodes after the intervention point.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </section>
  );
}
