"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { CATEGORIES, type AnnotationFields, type FieldError } from "@/lib/annotation";
import type { GraphNodeLite } from "@/lib/layout";
import { AnnotationForm, AnnotationSummary } from "./annotation-form";
import { SaveStatus } from "./save-status";
import type { useDraft } from "./use-draft";

export interface InitialView extends AnnotationFields {
  id: string;
  author: { name: string; email: string };
}

/** Where the three initial annotations agree and differ (for highlighting). */
export function disagreement(initials: InitialView[]) {
  const sets = initials.map((a) => new Set(a.categories));
  const union = new Set(initials.flatMap((a) => a.categories));
  const contested = new Set([...union].filter((c) => !sets.every((s) => s.has(c))));
  const nodes = new Set(initials.map((a) => a.nodeId));
  const primaries = new Set(initials.map((a) => a.primary));
  return { union, contested, nodesAgree: nodes.size === 1, primaryAgree: primaries.size === 1 };
}

/**
 * The adjudicator's view: the three submitted annotations side by side (union and disagreements
 * highlighted; their nodes are marked A1–A3 on the graph) and the final strict tuple, which may
 * be any tuple, also one no annotator proposed.
 */
export function AdjudicatePanel({
  caseKey,
  initials,
  draft,
  selectedNode,
  select,
}: {
  caseKey: string;
  initials: InitialView[];
  draft: ReturnType<typeof useDraft>;
  selectedNode: GraphNodeLite | null;
  select: (id: string) => void;
}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: "error" | "ok"; text: string } | null>(null);
  const d = disagreement(initials);

  async function finalize() {
    if (!window.confirm("Finalize this case with this tuple? The final annotation cannot be edited afterwards (an admin can reopen it).")) return;
    setBusy(true);
    setMessage(null);
    try {
      const res = await fetch(`/api/cases/${caseKey}/finalize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fields: draft.fields }),
      });
      const body = (await res.json()) as { error?: string; fieldErrors?: FieldError[] };
      if (!res.ok) {
        draft.setErrors(body.fieldErrors ?? []);
        setMessage({ tone: "error", text: body.error ?? `finalize failed (HTTP ${res.status})` });
        return;
      }
      setMessage({ tone: "ok", text: "Finalized. Reloading…" });
      // The reloaded page confirms it (the panel itself is replaced by the finalized view).
      const u = new URL(window.location.href);
      u.searchParams.set("finalized", "1");
      router.replace(u.pathname + u.search);
      router.refresh();
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-3 p-3" data-testid="adjudicate-panel">
      <h3 className="text-sm font-semibold">Three initial annotations</h3>
      <div className="rounded bg-slate-50 p-2 text-xs" data-testid="disagreement">
        <p>
          Union of categories: <span className="font-mono">{[...d.union].sort().join(", ") || "—"}</span>
          {d.contested.size ? (
            <>
              {" "}
              · disputed: <span className="rounded bg-amber-200 px-1 font-mono">{[...d.contested].sort().join(", ")}</span>
            </>
          ) : (
            " · all agree on the set"
          )}
        </p>
        <p>
          Primary: {d.primaryAgree ? "all agree" : "differs"} · Node: {d.nodesAgree ? "all agree" : "differs"}
        </p>
      </div>
      {initials.map((a, i) => (
        <div key={a.id} className="flex flex-col gap-1">
          <AnnotationSummary a={a} onSelectNode={select} title={`A${i + 1} · ${a.author.name}`} highlight={d.contested} />
          <button type="button" className="self-start text-xs text-blue-700 underline" onClick={() => draft.setFields({ ...a, evidence: [...a.evidence] })}>
            Start the final from A{i + 1}
          </button>
        </div>
      ))}
      <div className="flex items-center justify-between border-t border-slate-200 pt-3">
        <h3 className="text-sm font-semibold">Final annotation</h3>
        <SaveStatus save={draft.save} onAdopt={draft.adoptServerCopy} />
      </div>
      <p className="text-xs text-slate-500">Not a vote: you may revise any decision or choose a tuple no annotator proposed. Categories: {CATEGORIES.join(", ")}.</p>
      <AnnotationForm value={draft.fields} onChange={draft.setFields} errors={draft.errors} selectedNode={selectedNode} onSelectNode={select} readOnly={false} idPrefix="final" caseKey={caseKey} />
      {message ? (
        <p role="alert" className={`rounded px-2 py-1 text-sm ${message.tone === "error" ? "bg-red-50 text-red-800" : "bg-emerald-50 text-emerald-800"}`}>
          {message.text}
        </p>
      ) : null}
      <button type="button" onClick={() => void finalize()} disabled={busy} className="rounded bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50">
        {busy ? "Finalizing…" : "Finalize case"}
      </button>
    </div>
  );
}
