"use client";

import { useActionState } from "react";
import { createApiKeyAction, revokeApiKeyAction, type ActionState, type ApiKeyActionState } from "@/app/admin/actions";

/** One listed key (never the key itself: only its prefix). */
export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function Result({ s }: { s: ActionState }) {
  if (s.ok) return <p className="text-sm text-emerald-700" role="status">{s.ok}</p>;
  if (s.error) return <p className="text-sm text-red-700" role="alert">{s.error}</p>;
  return null;
}

const when = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");

/**
 * API keys for the OTLP/HTTP receiver (`/v1/traces`, `/api/public/otel/v1/traces`): create (the
 * key is shown once, with the two exporter variables to set), list, revoke.
 */
export function ApiKeys({ keys, endpoint }: { keys: ApiKeyRow[]; endpoint: string }) {
  const [s, create, pending] = useActionState<ApiKeyActionState, FormData>(createApiKeyAction, {});
  return (
    <div className="flex flex-col gap-3 text-sm">
      <form action={create} className="flex items-end gap-2">
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          <span>Key name</span>
          <input name="name" required maxLength={100} placeholder="e.g. staging agents" className="rounded border border-slate-300 px-2 py-1 text-sm" />
        </label>
        <button type="submit" disabled={pending} className="rounded bg-slate-800 px-3 py-1 text-white">
          Create key
        </button>
      </form>
      <Result s={s} />
      {s.key ? (
        <div className="rounded border border-amber-300 bg-amber-50 p-2 text-xs" data-testid="new-api-key">
          <p className="mb-1">Set these in the environment of the instrumented program (Python or TS):</p>
          <pre className="overflow-x-auto whitespace-pre-wrap break-all font-mono">{`OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint}\nOTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20${s.key}`}</pre>
        </div>
      ) : null}
      <table className="w-full text-left text-xs" data-testid="api-keys">
        <thead className="text-slate-500">
          <tr>
            <th className="py-1">Name</th>
            <th>Key</th>
            <th>Created</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} className="border-t border-slate-100">
              <td className="py-1">{k.name}</td>
              <td className="font-mono">{k.prefix}…</td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.lastUsedAt)}</td>
              <td>{k.revokedAt ? <span className="text-slate-400">revoked {when(k.revokedAt)}</span> : <RevokeForm id={k.id} />}</td>
            </tr>
          ))}
          {keys.length === 0 ? (
            <tr>
              <td colSpan={5} className="py-1 text-slate-500">
                no keys yet
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}

function RevokeForm({ id }: { id: string }) {
  const [s, action, pending] = useActionState(revokeApiKeyAction, {});
  return (
    <form action={action} className="flex items-center gap-1">
      <input type="hidden" name="apiKeyId" value={id} />
      <button type="submit" disabled={pending} className="rounded border border-slate-300 px-2 py-0.5 text-red-700">
        Revoke
      </button>
      <Result s={s} />
    </form>
  );
}
