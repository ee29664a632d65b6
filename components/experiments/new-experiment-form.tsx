"use client";
/**
 * The New experiment form (issue 22 item 2). Step 1: choose the cases (a filter, or bundle ids one
 * per line) and check them — POST /api/experiments/check answers, per configured evaluator, which
 * cases it can judge and why not, per dataset. Step 2: choose the evaluator (and its reproduction
 * judge), methods, k, seed and budget; start — POST /api/experiments — with the selection as it is
 * when every case can be judged, else with only the judgeable cases (the button says how many).
 * Opens the experiment's page (live progress) on 201; any refusal is shown with its reason.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";

interface DatasetRow {
  dataset: string;
  cases: number;
  judgeable: number;
  reasons: string[];
}
interface EvaluatorCheck {
  name: string;
  description: string;
  source: string;
  judges: Array<{ name: string; description: string }>;
  datasets: DatasetRow[];
  cases: Array<{ bundleId: string; dataset: string; reason: string | null }>;
}
interface CheckResult {
  caseCount: number;
  evaluators: EvaluatorCheck[];
}

const DEFAULT_METHODS = ["suspicious-node", "node-resample"];
const input = "rounded border border-slate-300 px-2 py-1 text-sm";

export function NewExperimentForm({ datasets, methods }: { datasets: Array<{ name: string; cases: number }>; methods: Array<{ name: string; label: string }> }) {
  const router = useRouter();
  const [mode, setMode] = useState<"filter" | "list">("filter");
  const [dataset, setDataset] = useState(datasets[0]?.name ?? "");
  const [mas, setMas] = useState("");
  const [benchmark, setBenchmark] = useState("");
  const [limit, setLimit] = useState("5");
  const [includePassed, setIncludePassed] = useState(false);
  const [bundleIds, setBundleIds] = useState("");
  const [check, setCheck] = useState<CheckResult | null>(null);
  const [evaluator, setEvaluator] = useState<string | null>(null);
  const [judge, setJudge] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string[]>(DEFAULT_METHODS);
  const [k, setK] = useState("1");
  const [seed, setSeed] = useState("7");
  const [maxCalls, setMaxCalls] = useState("");
  const [maxTokens, setMaxTokens] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const cases = () =>
    mode === "list"
      ? { bundleIds: bundleIds.split(/\s+/).filter(Boolean) }
      : { filter: { dataset: dataset || null, mas: mas.trim() || null, benchmark: benchmark.trim() || null, includePassed, limit: limit.trim() ? Number(limit) : null } };

  async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }
  const errorOf = (r: { status: number; body: Record<string, unknown> }) => `${typeof r.body.error === "string" ? r.body.error : `HTTP ${r.status}`}${typeof r.body.at === "string" ? ` (${r.body.at})` : ""}`;

  async function runCheck() {
    setBusy(true);
    setError(null);
    setCheck(null);
    try {
      const r = await post("/api/experiments/check", { cases: cases() });
      if (r.status !== 200) setError(errorOf(r));
      else {
        const c = r.body as unknown as CheckResult;
        setCheck(c);
        // Default: the evaluator that can judge the most cases.
        const best = [...c.evaluators].sort((a, b) => judgeableCount(b) - judgeableCount(a))[0] ?? null;
        setEvaluator(best?.name ?? null);
        setJudge(best?.judges[0]?.name ?? null);
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
    setBusy(false);
  }

  const current = check?.evaluators.find((e) => e.name === evaluator) ?? null;
  const judgeable = current ? current.cases.filter((c) => c.reason === null).map((c) => c.bundleId) : [];
  const all = current !== null && judgeable.length === current.cases.length;

  async function start() {
    if (!current) return;
    setBusy(true);
    setError(null);
    const num = (s: string) => (s.trim() ? Number(s) : undefined);
    try {
      const r = await post("/api/experiments", {
        methods: chosen,
        attempts: Number(k),
        seed: num(seed),
        maxCalls: num(maxCalls) ?? null,
        maxTokens: num(maxTokens) ?? null,
        evaluator: current.name,
        ...(judge ? { judge } : {}),
        cases: all ? cases() : { bundleIds: judgeable },
      });
      const e = r.body.experiment as { id?: string } | undefined;
      if (r.status === 201 && e?.id) {
        router.push(`/experiments/${encodeURIComponent(e.id)}`);
        return;
      }
      setError(errorOf(r));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  }

  return (
    <div className="flex flex-col gap-4" data-testid="new-experiment">
      <section className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4">
        <h2 className="text-sm font-semibold">1. Cases</h2>
        <div className="flex gap-4 text-sm">
          <label>
            <input type="radio" name="mode" checked={mode === "filter"} onChange={() => setMode("filter")} /> by filter
          </label>
          <label>
            <input type="radio" name="mode" checked={mode === "list"} onChange={() => setMode("list")} /> by bundle ids
          </label>
        </div>
        {mode === "filter" ? (
          <div className="flex flex-wrap items-end gap-3 text-xs text-slate-600">
            <label className="flex flex-col">
              Dataset
              <select name="dataset" className={input} value={dataset} onChange={(e) => setDataset(e.target.value)}>
                <option value="">any (not replays or attempts)</option>
                {datasets.map((d) => (
                  <option key={d.name} value={d.name}>
                    {d.name} ({d.cases})
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col">
              MAS
              <input name="mas" className={input} value={mas} onChange={(e) => setMas(e.target.value)} placeholder="any" />
            </label>
            <label className="flex flex-col">
              Benchmark
              <input name="benchmark" className={input} value={benchmark} onChange={(e) => setBenchmark(e.target.value)} placeholder="any" />
            </label>
            <label className="flex flex-col">
              At most
              <input name="limit" type="number" min={1} className={`${input} w-20`} value={limit} onChange={(e) => setLimit(e.target.value)} />
            </label>
            <label className="flex items-center gap-1">
              <input type="checkbox" checked={includePassed} onChange={(e) => setIncludePassed(e.target.checked)} /> include passed cases
            </label>
          </div>
        ) : (
          <textarea name="bundleIds" className={`${input} h-24 font-mono`} value={bundleIds} onChange={(e) => setBundleIds(e.target.value)} placeholder="one bundle id per line" />
        )}
        <div>
          <button type="button" onClick={runCheck} disabled={busy} className="rounded border border-blue-700 px-3 py-1.5 text-sm text-blue-700 disabled:opacity-50" data-testid="check-cases">
            Check which cases can be judged
          </button>
        </div>
      </section>

      {check ? (
        <section className="flex flex-col gap-3 rounded border border-slate-200 bg-white p-4" data-testid="judgeability">
          <h2 className="text-sm font-semibold">2. Evaluator — {check.caseCount} case(s) selected</h2>
          {check.evaluators.length === 0 ? <p className="text-sm text-red-700">No evaluator is configured (SYMTRACE_REPLAY_EVALUATOR, SYMTRACE_EVALUATORS_FILE): no attempt could get a verdict.</p> : null}
          {check.evaluators.map((ev) => (
            <div key={ev.name} className="rounded border border-slate-100 p-2" data-evaluator={ev.name}>
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="evaluator"
                  checked={evaluator === ev.name}
                  onChange={() => {
                    setEvaluator(ev.name);
                    setJudge(ev.judges[0]?.name ?? null);
                  }}
                />
                <span className="font-mono">{ev.name}</span>
                <span className="text-xs text-slate-500">
                  {ev.description} · {ev.source}
                </span>
                <span className="ml-auto text-xs" data-field="judgeable">
                  can judge {judgeableCount(ev)} of {ev.cases.length}
                </span>
              </label>
              <table className="mt-1 w-full text-left text-xs">
                <tbody>
                  {ev.datasets.map((d) => (
                    <tr key={d.dataset} data-dataset={d.dataset}>
                      <td className="w-32 py-0.5 font-mono">{d.dataset}</td>
                      <td className="w-24">
                        {d.judgeable} / {d.cases}
                      </td>
                      <td className="trace-text text-slate-600">{d.reasons.length ? `cannot judge: ${d.reasons.join(" · ")}` : "all can be judged"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
          {current ? (
            <label className="flex items-center gap-2 text-xs text-slate-600">
              Reproduction judge
              <select name="judge" className={input} value={judge ?? ""} onChange={(e) => setJudge(e.target.value)}>
                {current.judges.map((j) => (
                  <option key={j.name} value={j.name}>
                    {j.name} — {j.description}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
        </section>
      ) : null}

      {check && current ? (
        <section className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4">
          <h2 className="text-sm font-semibold">3. Methods, k, seed, budget</h2>
          <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
            {methods.map((m) => (
              <label key={m.name} className="flex items-center gap-1">
                <input type="checkbox" name="method" value={m.name} checked={chosen.includes(m.name)} onChange={(e) => setChosen((c) => (e.target.checked ? [...c, m.name] : c.filter((x) => x !== m.name)))} />
                {m.label} <span className="font-mono text-xs text-slate-500">{m.name}</span>
              </label>
            ))}
          </div>
          <div className="flex flex-wrap items-end gap-3 text-xs text-slate-600">
            <label className="flex flex-col">
              k (attempts per case and method)
              <input name="k" type="number" min={1} max={20} className={`${input} w-20`} value={k} onChange={(e) => setK(e.target.value)} />
            </label>
            <label className="flex flex-col">
              Seed
              <input name="seed" type="number" min={0} className={`${input} w-24`} value={seed} onChange={(e) => setSeed(e.target.value)} />
            </label>
            <label className="flex flex-col">
              Max calls
              <input name="maxCalls" type="number" min={1} className={`${input} w-24`} value={maxCalls} onChange={(e) => setMaxCalls(e.target.value)} placeholder="no cap" />
            </label>
            <label className="flex flex-col">
              Max tokens
              <input name="maxTokens" type="number" min={1} className={`${input} w-24`} value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} placeholder="no cap" />
            </label>
          </div>
          <div>
            <button type="button" onClick={start} disabled={busy || judgeable.length === 0 || chosen.length === 0} className="rounded bg-blue-700 px-3 py-1.5 text-sm text-white disabled:opacity-50" data-testid="start-experiment">
              {all ? `Start experiment (${judgeable.length} case(s))` : `Start with the ${judgeable.length} judgeable case(s)`}
            </button>
          </div>
        </section>
      ) : null}
      {error ? (
        <p role="alert" className="trace-text text-sm text-red-700" data-testid="experiment-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function judgeableCount(ev: EvaluatorCheck): number {
  return ev.cases.filter((c) => c.reason === null).length;
}
