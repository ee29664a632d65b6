/**
 * The experiment's frozen settings (issue 13 item 1): shown as key/value text, objects as JSON
 * text (never HTML).
 */
export function FrozenSettings({ entries }: { entries: Array<[string, unknown]> }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-xs" data-testid="frozen-settings">
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-slate-500">{k}</dt>
          <dd className="trace-text font-mono break-all" data-setting={k}>
            {v === null || v === undefined ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v)}
          </dd>
        </div>
      ))}
    </dl>
  );
}
