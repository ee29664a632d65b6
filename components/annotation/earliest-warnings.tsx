"use client";

import { useEffect, useState } from "react";
import type { AnnotationFields } from "@/lib/annotation";
import type { EarliestWarning } from "@/lib/symptoms";

/**
 * The earliest-node check (issue 12 item 5): non-blocking warnings when a rule of a chosen
 * category fires upstream of the chosen failure node, or an evidence quote lies downstream of it.
 * Asks the server for just these warnings (POST /api/cases/[caseId]/earliest-check), so an
 * annotator never receives the detection result itself. Quotes are rendered as text.
 */
export function EarliestWarnings({ caseKey, value, onSelectNode }: { caseKey: string; value: AnnotationFields; onSelectNode: (id: string) => void }) {
  const [warnings, setWarnings] = useState<EarliestWarning[]>([]);
  const key = JSON.stringify({ node: value.nodeId, categories: value.categories, evidence: value.evidence });
  useEffect(() => {
    const { node, categories, evidence } = JSON.parse(key) as { node: string | null; categories: string[]; evidence: Array<{ nodeId: string; quote: string }> };
    if (!node) {
      const t = setTimeout(() => setWarnings([]), 0);
      return () => clearTimeout(t);
    }
    const ctrl = new AbortController();
    const t = setTimeout(() => {
      fetch(`/api/cases/${caseKey}/earliest-check`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ node, categories, evidence }), signal: ctrl.signal })
        .then(async (res) => (res.ok ? ((await res.json()) as { warnings: EarliestWarning[] }).warnings : []))
        .then(setWarnings)
        .catch(() => {});
    }, 250);
    return () => {
      clearTimeout(t);
      ctrl.abort();
    };
  }, [caseKey, key]);
  if (!warnings.length) return null;
  return (
    <ul className="mt-2 flex flex-col gap-1 rounded border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900" role="status" data-testid="earliest-warnings">
      <li className="font-semibold">Is this really the earliest node?</li>
      {warnings.map((w, i) =>
        w.kind === "upstream-rule" ? (
          <li key={i} data-testid="earliest-warning">
            Rule <span className="font-mono">{w.ruleId}</span> ({w.category}) fires upstream on{" "}
            <button type="button" className="font-mono text-blue-700 underline" onClick={() => onSelectNode(w.nodeId)}>
              {w.nodeId}
            </button>
            {w.evidence[0] ? (
              <>
                : <span className="font-mono">{w.evidence[0].path}</span> <q className="trace-text">{w.evidence[0].quote}</q>
              </>
            ) : null}
          </li>
        ) : (
          <li key={i} data-testid="earliest-warning">
            Evidence <q className="trace-text">{w.quote}</q> lies in{" "}
            <button type="button" className="font-mono text-blue-700 underline" onClick={() => onSelectNode(w.nodeId)}>
              {w.nodeId}
            </button>
            , downstream of the chosen node.
          </li>
        ),
      )}
    </ul>
  );
}
