import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { CompareRow } from "@/lib/replay/node-compare";

const TONE: Record<CompareRow["kind"], BadgeTone> = { prefix: "green", intervention: "violet", changed: "amber", new: "blue", "source-only": "slate" };
const LABEL: Record<CompareRow["kind"], string> = { prefix: "verified prefix", intervention: "intervention (Δ)", changed: "changed", new: "new (live)", "source-only": "source only" };

/** Source vs replay, node by node in the replay's observed order, then the source's replaced suffix. */
export function ReplayCompareTable({ rows }: { rows: CompareRow[] }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="cmp">
      <h2 id="cmp" className="mb-2 font-semibold">
        Node by node
      </h2>
      <table className="w-full text-left text-xs" data-testid="replay-compare">
        <thead className="text-slate-500">
          <tr>
            <th className="py-1">Source</th>
            <th>Relation</th>
            <th>Replay</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r, i) => (
            <tr key={i} data-kind={r.kind} className="align-top">
              <td className="py-1 pr-2">{r.source ? <NodeCell n={r.source} /> : null}</td>
              <td className="pr-2">
                <Badge tone={TONE[r.kind]}>{LABEL[r.kind]}</Badge>
                {r.diff.length ? (
                  <ul className="mt-1 font-mono">
                    {r.diff.slice(0, 8).map((d, j) => (
                      <li key={j} className="trace-text max-w-xl">
                        {d.op} {d.path}: {JSON.stringify(d.expected)?.slice(0, 200)} → {JSON.stringify(d.actual)?.slice(0, 200)}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </td>
              <td>{r.replay ? <NodeCell n={r.replay} /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function NodeCell({ n }: { n: { id: string; type: string; label: string | null } }) {
  return (
    <span>
      <span className="font-mono">{n.id}</span> <span className="text-slate-500">{n.type}</span>
      {n.label ? <span className="block truncate text-slate-700">{n.label}</span> : null}
    </span>
  );
}
