import type { Metadata } from "next";
import { headers } from "next/headers";
import { getDb, listApiKeys, listCaseFacets, listOpenAssignments, listRecentAudit, listSubmittedAnnotations, listUsers } from "@/lib/db";
import { requireViewer } from "@/lib/session";
import { RunnersTable, type RunnerRow } from "@/components/admin/runners-table";
import { loadRunnerRegistry } from "@/lib/services/runners";
import { AssignForm, RemoveAssignmentForm, ReopenForm, UserForm } from "@/components/admin/admin-forms";
import { ApiKeys } from "@/components/admin/api-keys";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const admin = await requireViewer("admin");
  const db = getDb();
  const [users, facets, submitted, audit, open, apiKeys] = await Promise.all([
    listUsers(db),
    listCaseFacets(db),
    listSubmittedAnnotations(db, admin),
    listRecentAudit(db, admin, { take: 150 }),
    listOpenAssignments(db, admin),
    listApiKeys(db),
  ]);
  const h = await headers();
  const origin = `${h.get("x-forwarded-proto") ?? "http"}://${h.get("host") ?? "localhost:3000"}`;
  const adjudicators = users.filter((u) => u.roles.includes("adjudicator"));
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-3 font-semibold">Assign cases</h2>
        <AssignForm
          facets={facets}
          adjudicators={adjudicators.map((a) => ({ id: a.id, email: a.email }))}
          annotators={users.filter((u) => u.roles.includes("annotator")).map((a) => ({ id: a.id, email: a.email }))}
        />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-3 font-semibold">Accounts</h2>
        <UserForm existingEmails={users.map((u) => u.email)} />
        <table className="mt-4 w-full text-left text-xs" data-testid="users">
          <thead className="text-slate-500">
            <tr>
              <th className="py-1">Email</th>
              <th>Name</th>
              <th>Roles</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} className="border-t border-slate-100">
                <td className="py-1 font-mono">{u.email}</td>
                <td>{u.name}</td>
                <td>{u.roles.join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-3 font-semibold">Open assignments</h2>
        <ul className="flex max-h-96 flex-col gap-1 overflow-auto text-xs" data-testid="open-assignments">
          {open.map((a) => (
            <li key={a.id} className="flex flex-wrap items-center gap-2 border-b border-slate-100 pb-1">
              <span className="font-mono">{a.bundleId}</span>
              <span>{a.role}</span>
              <span className="text-slate-500">{a.email}</span>
              <span className="text-slate-400">{a.status.replace("_", " ")}</span>
              <RemoveAssignmentForm assignmentId={a.id} />
            </li>
          ))}
          {open.length === 0 ? <li className="text-slate-500">none</li> : null}
        </ul>
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-3 font-semibold">Submitted annotations</h2>
        <ul className="flex flex-col gap-2 text-xs">
          {submitted.map((a) => (
            <li key={a.id} className="flex flex-wrap items-center gap-2 border-b border-slate-100 pb-2">
              <span className="font-mono">{a.bundleId}</span>
              <span>{a.kind}</span>
              <span className="text-slate-500">{a.author}</span>
              <ReopenForm annotationId={a.id} />
            </li>
          ))}
        </ul>
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-3 font-semibold">Audit trail (latest)</h2>
        <ol className="flex max-h-96 flex-col gap-1 overflow-auto font-mono text-[11px]" data-testid="audit">
          {audit.map((e) => (
            <li key={e.id} title={e.data}>
              {e.at.slice(0, 19).replace("T", " ")} · {e.actor ?? "system"} · {e.action} · {e.bundleId ?? `${e.entityType} ${e.entityId.slice(0, 10)}`}
              {e.reason ? <span className="text-amber-800"> · reason: {e.reason}</span> : null}
            </li>
          ))}
        </ol>
      </section>
      <section className="rounded border border-slate-200 bg-white p-4 lg:col-span-2">
        <h2 className="mb-1 font-semibold">API keys (live OTLP ingest)</h2>
        <p className="mb-3 text-xs text-slate-500">
          For OpenTelemetry exporters sending traces to <span className="font-mono">{origin}/api/public/otel/v1/traces</span> (or <span className="font-mono">/v1/traces</span>). Only a hash of each key is stored.
        </p>
        <ApiKeys keys={apiKeys} endpoint={`${origin}/api/public/otel`} />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4 lg:col-span-2">
        <h2 className="mb-3 font-semibold">Replay runners</h2>
        <RunnersTable {...registeredRunners()} />
      </section>
    </div>
  );
}

/** The registered runners, or the configuration error (shown, not thrown: the rest of the page still works). */
function registeredRunners(): { runners: RunnerRow[]; error: string | null } {
  try {
    return { runners: loadRunnerRegistry(), error: null };
  } catch (e) {
    return { runners: [], error: (e as Error).message };
  }
}
