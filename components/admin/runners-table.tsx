/**
 * The registered runners of native replay (issue 10 item 1), read-only: they are registered in
 * server configuration (SYMTRACE_RUNNERS_FILE and the built-ins of mas/), never by a bundle.
 */
export interface RunnerRow {
  name: string;
  description?: string;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  passEnv: string[];
  bundleEnv: string[];
  source: "built-in" | "file";
}

export function RunnersTable({ runners, error }: { runners: RunnerRow[]; error: string | null }) {
  return (
    <>
      {error ? (
        <p role="alert" className="mb-2 text-xs text-red-700">
          {error}
        </p>
      ) : null}
      <table className="w-full text-left text-xs" data-testid="runners">
        <thead className="text-slate-500">
          <tr>
            <th className="py-1">Name</th>
            <th>Command</th>
            <th>Working directory</th>
            <th>Environment</th>
          </tr>
        </thead>
        <tbody>
          {runners.map((r) => (
            <tr key={r.name} className="border-t border-slate-100 align-top">
              <td className="py-1 font-mono">
                {r.name}
                <div className="font-sans text-slate-400">{r.source === "built-in" ? "built-in" : "runners file"}</div>
              </td>
              <td className="font-mono break-all">{r.command.join(" ")}</td>
              <td className="font-mono break-all">{r.cwd}</td>
              <td>
                {Object.keys(r.env).length ? <div>set: {Object.keys(r.env).join(", ")}</div> : null}
                {r.passEnv.length ? <div>from server: {r.passEnv.join(", ")}</div> : null}
                {r.bundleEnv.length ? <div>from bundle: {r.bundleEnv.join(", ")}</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="mt-2 text-xs text-slate-500">
        Register runners in the JSON file named by <span className="font-mono">SYMTRACE_RUNNERS_FILE</span>. A bundle only names its runner; a command inside a bundle is never run.
      </p>
    </>
  );
}
