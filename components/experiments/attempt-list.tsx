import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { methodLabel, type AttemptListItem } from "@/lib/experiments";
import { Badge, type BadgeTone } from "@/components/ui/badge";

const TONE: Record<AttemptListItem["status"], BadgeTone> = { passed: "green", failed: "red", error: "red", no_verdict: "slate", skipped: "slate", cancelled: "amber", queued: "slate", running: "blue" };
const yesNo = (v: boolean | null) => (v === null ? "—" : v ? "yes" : "no");

/**
 * The attempts behind a table cell: case, method, attempt, status, evaluator and judge verdicts,
 * calls and tokens, and links to the attempt's bundle and to its diff against the source.
 * Error and skip texts are rendered as text (trace content is never HTML).
 */
export function AttemptList({ attempts, experimentId, title }: { attempts: AttemptListItem[]; experimentId: string; title: string }) {
  return (
    <section id="attempts" className="rounded border border-slate-200 bg-white p-4" data-testid="attempt-list">
      <h2 className="mb-2 font-semibold">
        {title} <span className="text-sm font-normal text-slate-500">({attempts.length})</span>
      </h2>
      <table className="w-full text-left text-xs">
        <thead className="border-b border-slate-200 text-slate-500">
          <tr>
            <th className="px-2 py-1.5">Case</th>
            <th className="px-2">MAS</th>
            <th className="px-2">Category</th>
            <th className="px-2">Method</th>
            <th className="px-2">#</th>
            <th className="px-2">Status</th>
            <th className="px-2">Passed</th>
            <th className="px-2">Reproduced</th>
            <th className="px-2">Calls</th>
            <th className="px-2">Tokens</th>
            <th className="px-2">Bundle</th>
            <th className="px-2">Note</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {attempts.map((a) => (
            <tr key={a.id} data-attempt={a.id} data-status={a.status} className="align-top">
              <td className="px-2 py-1 font-mono">
                <Link className="text-blue-700 underline" href={caseHref(a.caseBundleId)}>
                  {a.caseBundleId}
                </Link>
              </td>
              <td className="px-2">{a.mas}</td>
              <td className="px-2">{a.primaryCategory ?? "—"}</td>
              <td className="px-2">{methodLabel(a.method)}</td>
              <td className="px-2 font-mono">{a.attempt}</td>
              <td className="px-2">
                <Badge tone={TONE[a.status]}>{a.status}</Badge>
              </td>
              <td className="px-2">{yesNo(a.passed)}</td>
              <td className="px-2">{yesNo(a.reproduced)}</td>
              <td className="px-2 font-mono">
                {a.calls}
                {a.auxCalls ? ` + ${a.auxCalls}` : ""}
              </td>
              <td className="px-2 font-mono">{a.tokens}</td>
              <td className="px-2">
                {a.bundleId ? (
                  <span className="flex flex-col gap-0.5">
                    <Link className="text-blue-700 underline" href={`/experiments/${encodeURIComponent(experimentId)}/attempts/${encodeURIComponent(a.id)}`} data-testid="attempt-diff-link">
                      diff vs source
                    </Link>
                    <Link className="font-mono text-blue-700 underline" href={caseHref(a.bundleId)}>
                      bundle
                    </Link>
                  </span>
                ) : (
                  "—"
                )}
              </td>
              <td className="trace-text max-w-md px-2 text-slate-600">{a.error ?? a.skipReason ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
