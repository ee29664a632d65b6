"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { FieldError } from "@/lib/annotation";
import type { GraphNodeLite } from "@/lib/layout";
import { AnnotationForm } from "./annotation-form";
import { SaveStatus } from "./save-status";
import type { useDraft } from "./use-draft";

/** The annotator's own initial annotation: autosaved draft, then submit (locked afterwards). */
export function AnnotatePanel({
  caseKey,
  draft,
  selectedNode,
  select,
  reopened,
}: {
  caseKey: string;
  reopened?: { at: string; reason: string | null } | null;
  draft: ReturnType<typeof useDraft>;
  selectedNode: GraphNodeLite | null;
  select: (id: string) => void;
}) {
  const router = useRouter();
  const [submitting, setSubmitting] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const locked = draft.status === "submitted";

  async function submit() {
    if (!window.confirm("Submit your annotation? It is locked afterwards (an admin can reopen it).")) return;
    setSubmitting(true);
    setMessage(null);
    try {
      if (!(await draft.saveNow())) return;
      const res = await fetch(`/api/cases/${caseKey}/annotations/mine/submit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ version: draft.latestVersion() }),
      });
      const body = (await res.json()) as { annotation?: { version: number }; error?: string; fieldErrors?: FieldError[] };
      if (!res.ok) {
        draft.setErrors(body.fieldErrors ?? []);
        setMessage(body.error ?? `submit failed (HTTP ${res.status})`);
        return;
      }
      draft.setStatus("submitted");
      draft.setVersion(body.annotation!.version);
      router.refresh();
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <div className="flex flex-col gap-3 p-3" data-testid="annotate-panel">
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-semibold">Your annotation</h3>
        {locked ? <span className="rounded bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-800">submitted · locked</span> : <SaveStatus save={draft.save} onAdopt={draft.adoptServerCopy} />}
      </div>
      {reopened && !locked ? (
        <p className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900" role="status">
          An admin reopened this annotation{reopened.reason ? `: ${reopened.reason}` : ""}. Revise it and submit again.
        </p>
      ) : null}
      <AnnotationForm value={draft.fields} onChange={draft.setFields} errors={draft.errors} selectedNode={selectedNode} onSelectNode={select} readOnly={locked} idPrefix="initial" caseKey={caseKey} />
      {message ? (
        <p role="alert" className="rounded bg-red-50 px-2 py-1 text-sm text-red-800">
          {message}
        </p>
      ) : null}
      {!locked ? (
        <button type="button" onClick={() => void submit()} disabled={submitting} className="rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50">
          {submitting ? "Submitting…" : "Submit annotation"}
        </button>
      ) : (
        <p className="text-xs text-slate-600">Submitted annotations are locked. An admin can reopen it with a reason.</p>
      )}
    </div>
  );
}
