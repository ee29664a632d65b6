"use client";

import type { SymptomLayer } from "@/lib/symptoms";

/**
 * The symptom layer's part of the node panel (issue 12 item 4): which rules fired on the node, c_f,
 * whether it is the anchor, and each rule's evidence (JSON path + quote, as text). Rendered only
 * for viewers the server sent the layer to.
 */
export function SymptomRules({ layer, nodeId, onSelect }: { layer: SymptomLayer; nodeId: string; onSelect: (id: string) => void }) {
  const v = layer.nodes.find((n) => n.id === nodeId);
  const isAnchor = layer.anchor === nodeId || (!layer.anchor && layer.anchorNode === nodeId);
  return (
    <section className="border-t border-slate-200 p-3 text-xs" data-testid="symptom-rules" aria-label="Symptoms">
      <p className="mb-1 font-semibold">
        Symptoms <span className="font-normal text-slate-500">({layer.mode}, θ = {layer.threshold})</span>
        {isAnchor ? <span className="ml-2 rounded bg-red-700 px-1 font-semibold text-white">intervention anchor</span> : null}
      </p>
      {!v ? (
        <p className="text-slate-500">No rule fired on this node.</p>
      ) : (
        <>
          <p className="mb-1">
            c_f = <span className="font-mono">{v.cf.toFixed(3)}</span> · {v.eligible ? "eligible" : "not eligible"} · {v.categories.join(", ")}
          </p>
          <ul className="flex flex-col gap-1">
            {v.rules.map((r) => (
              <li key={r.id} className="rounded border border-red-200 bg-red-50 p-1.5" data-rule={r.id}>
                <span className="font-mono font-semibold">{r.id}</span>
                <ul className="mt-0.5 flex flex-col gap-0.5">
                  {r.evidence.map((e, i) => (
                    <li key={i}>
                      {e.nodeId ? (
                        <button type="button" className="mr-1 font-mono text-blue-700 underline" onClick={() => onSelect(e.nodeId!)}>
                          {e.nodeId}
                        </button>
                      ) : null}
                      <span className="font-mono text-slate-500">{e.path}</span> <q className="trace-text">{e.quote}</q>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
