"use client";

import { useActionState, useState } from "react";
import { assignByFilterAction, removeAssignmentAction, reopenAction, upsertUserAction, type ActionState } from "@/app/admin/actions";
import { datasetName } from "@/components/trace/case-filters";
import { SelectField } from "@/components/ui/select-field";
import { existingUserHint } from "@/lib/user-form";

function Result({ s }: { s: ActionState }) {
  if (s.ok) return <p className="text-sm text-emerald-700" role="status">{s.ok}</p>;
  if (s.error) return <p className="text-sm text-red-700" role="alert">{s.error}</p>;
  return null;
}

/** Bulk assignment by filter: preview the matching cases, then assign them. */
export function AssignForm({
  facets,
  adjudicators,
  annotators,
}: {
  facets: { benchmarks: string[]; mas: string[]; datasets: string[] };
  adjudicators: Array<{ id: string; email: string }>;
  annotators: Array<{ id: string; email: string }>;
}) {
  const [s, action, pending] = useActionState(assignByFilterAction, {});
  const v = s.values ?? {};
  const chosen = s.annotatorIds ?? [];
  const emailOf = new Map(annotators.map((a) => [a.id, a.email]));
  const sel = (name: string, label: string, opts: string[], render?: (x: string) => string) => (
    <SelectField name={name} label={label} options={opts} defaultValue={v[name]} emptyLabel="Any" render={render} />
  );
  // key: React resets a form after its action; re-mount with the submitted values instead.
  return (
    <form key={JSON.stringify([v, chosen])} action={action} className="grid grid-cols-2 gap-3">
      {sel("dataset", "Source dataset", facets.datasets, datasetName)}
      {sel("mas", "MAS", facets.mas)}
      {sel("benchmark", "Benchmark", facets.benchmarks)}
      <label className="flex flex-col gap-1 text-xs text-slate-600">
        <span>Task text contains</span>
        <input name="q" defaultValue={v.q ?? ""} className="rounded border border-slate-300 px-2 py-1 text-sm" />
      </label>
      <label className="flex flex-col gap-1 text-xs text-slate-600">
        <span>Annotators per case (when none are chosen below)</span>
        <input name="perCase" type="number" min={1} max={10} defaultValue={v.perCase ?? 3} className="rounded border border-slate-300 px-2 py-1 text-sm" />
      </label>
      <label className="flex flex-col gap-1 text-xs text-slate-600">
        <span>Adjudicator</span>
        <select name="adjudicatorId" defaultValue={v.adjudicatorId ?? ""} className="rounded border border-slate-300 px-2 py-1 text-sm">
          <option value="">none</option>
          {adjudicators.map((a) => (
            <option key={a.id} value={a.id}>
              {a.email}
            </option>
          ))}
        </select>
      </label>
      <label className="col-span-2 flex items-start gap-2 text-xs text-slate-600" title="Annotators see the symptom layer (detector output) before submitting; recorded with each annotation so assisted and unassisted agreement can be compared">
        <input type="checkbox" name="assisted" defaultChecked={v.assisted === "on"} data-testid="assign-assisted" />
        <span>Assisted annotation: these annotators see the symptom layer before they submit (recorded with each annotation)</span>
      </label>
      <label className="col-span-2 flex flex-col gap-1 text-xs text-slate-600">
        <span>Annotators (chosen: each of them gets every case; none chosen: drawn from all, least loaded first)</span>
        <select name="annotatorIds" multiple defaultValue={chosen} size={Math.min(6, Math.max(2, annotators.length))} className="rounded border border-slate-300 px-2 py-1 text-sm">
          {annotators.map((a) => (
            <option key={a.id} value={a.id}>
              {a.email}
            </option>
          ))}
        </select>
      </label>
      {s.preview ? <input type="hidden" name="confirmCount" value={s.preview.matched} /> : null}
      <div className="col-span-2 flex flex-wrap items-center gap-3">
        <button type="submit" name="intent" value="preview" disabled={pending} className="rounded border border-slate-400 px-3 py-1.5 text-sm disabled:opacity-50">
          Preview matching cases
        </button>
        {s.preview ? (
          <button type="submit" name="intent" value="assign" disabled={pending || s.preview.matched === 0} className="rounded bg-slate-900 px-3 py-1.5 text-sm text-white disabled:opacity-50">
            Assign {s.preview.matched} case(s)
          </button>
        ) : null}
        {s.preview ? (
          <span className="text-xs text-slate-600" role="status">
            {s.preview.matched} case(s) match{s.preview.caseIds.length ? `: ${s.preview.caseIds.join(", ")}${s.preview.matched > s.preview.caseIds.length ? ", …" : ""}` : ""}
            {chosen.length ? `; each goes to ${chosen.map((id) => emailOf.get(id) ?? id).join(", ")}` : `; ${v.perCase ?? 3} least-loaded annotator(s) each`}
          </span>
        ) : null}
        <Result s={s} />
      </div>
    </form>
  );
}

/**
 * Create or update an account (roles, password). `existingEmails` are the accounts listed on the
 * page: typing one of them shows that saving updates that user.
 */
export function UserForm({ existingEmails = [] }: { existingEmails?: string[] }) {
  const [s, action, pending] = useActionState(upsertUserAction, {});
  const [email, setEmail] = useState("");
  const hint = existingUserHint(email, existingEmails);
  return (
    <form action={action} className="flex flex-wrap items-end gap-2 text-xs">
      <label className="flex flex-col gap-1">
        Email
        <input
          name="email"
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-describedby="user-email-hint"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
        />
        <span id="user-email-hint" data-testid="user-email-hint" className="text-amber-700" aria-live="polite">
          {hint}
        </span>
      </label>
      <label className="flex flex-col gap-1">
        Name
        <input name="name" className="rounded border border-slate-300 px-2 py-1 text-sm" />
      </label>
      <label className="flex flex-col gap-1">
        Password
        <input name="password" type="password" minLength={8} className="rounded border border-slate-300 px-2 py-1 text-sm" />
      </label>
      <fieldset className="flex gap-2">
        {["annotator", "adjudicator", "researcher", "admin"].map((r) => (
          <label key={r} className="flex items-center gap-1">
            <input type="checkbox" name="roles" value={r} />
            {r}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={pending} className="rounded bg-slate-900 px-3 py-1.5 text-white disabled:opacity-50">
        Save account
      </button>
      <Result s={s} />
    </form>
  );
}

/** Reopen one submitted annotation with a reason. */
export function ReopenForm({ annotationId }: { annotationId: string }) {
  const [s, action, pending] = useActionState(reopenAction, {});
  return (
    <form action={action} className="flex items-center gap-1">
      <input type="hidden" name="annotationId" value={annotationId} />
      <input name="reason" required placeholder="reason" className="w-32 rounded border border-slate-300 px-1 py-0.5" aria-label="Reason to reopen" />
      <button type="submit" disabled={pending} className="rounded border border-slate-300 px-2 py-0.5">
        Reopen
      </button>
      <Result s={s} />
    </form>
  );
}

/** Remove one open (not submitted) assignment. */
export function RemoveAssignmentForm({ assignmentId }: { assignmentId: string }) {
  const [s, action, pending] = useActionState(removeAssignmentAction, {});
  return (
    <form action={action} className="flex items-center gap-1">
      <input type="hidden" name="assignmentId" value={assignmentId} />
      <button type="submit" disabled={pending} className="rounded border border-slate-300 px-2 py-0.5 text-red-700">
        Remove
      </button>
      <Result s={s} />
    </form>
  );
}
