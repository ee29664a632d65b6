"use client";
/**
 * The attribution page's "New attribution run" form (issue 24): run name, attributors (the
 * registry's; the LLM ones disabled with the reason when the server has no model endpoint), ground
 * truth with / without / both, the cases — the Who&When subsets the server ships, or the Who&When
 * cases imported into the database — and how many of each subset,
 * seed and budget caps. Start posts {action: "start", …} to /api/experiments/attribution (the run
 * and its jobs are made as `symtrace detect --eval --attribution --background` makes them) and
 * opens the run on the page (its progress follows while the workers run it). Refusals are shown
 * with the field they name.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { AttributionAppOptions } from "@/lib/services/attribution/app-start";
import { postAttribution, type PostResult } from "./post";

const input = "rounded border border-slate-300 px-2 py-1 text-sm";
type Gt = "with" | "without" | "both";

/** Jobs of a plan: one per case for an attributor without ground-truth variants, one per setting otherwise. */
export function plannedJobs(attributors: AttributionAppOptions["attributors"], chosen: readonly string[], gt: Gt, cases: number): number {
  return attributors.filter((a) => chosen.includes(a.name)).reduce((n, a) => n + (a.groundTruthVariants ? (gt === "both" ? 2 : 1) : 1) * cases, 0);
}

export function NewAttributionRunForm({ options }: { options: AttributionAppOptions }) {
  const router = useRouter();
  const usable = options.attributors.filter((a) => !a.disabled).map((a) => a.name);
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<string[]>(usable);
  const [gt, setGt] = useState<Gt>("both");
  const [source, setSource] = useState<"dataset" | "database">(options.subsets.length || !options.database.subsets.length ? "dataset" : "database");
  const offered = source === "dataset" ? options.subsets : options.database.subsets;
  const [subsets, setSubsets] = useState<string[]>(offered.map((s) => s.subset));
  const [limit, setLimit] = useState("");
  const [seed, setSeed] = useState(String(options.defaultSeed));
  const [maxCalls, setMaxCalls] = useState("");
  const [maxTokens, setMaxTokens] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<PostResult["error"]>(null);

  const per = limit.trim() ? Number(limit) : null;
  const counts = offered.filter((s) => subsets.includes(s.subset)).map((s) => ({ subset: s.subset, n: per !== null && per >= 0 ? Math.min(per, s.cases) : s.cases }));
  const total = counts.reduce((n, c) => n + c.n, 0);
  const jobs = plannedJobs(options.attributors, chosen, gt, total);
  const toggle = (list: string[], x: string, on: boolean) => (on ? [...list, x] : list.filter((y) => y !== x));

  async function start() {
    setBusy(true);
    setError(null);
    const num = (s: string) => (s.trim() ? Number(s) : null);
    const r = await postAttribution({ action: "start", name: name.trim(), attributors: chosen, groundTruth: gt, source, subsets, limit: num(limit), seed: num(seed) ?? undefined, maxCalls: num(maxCalls), maxTokens: num(maxTokens) });
    if (r.ok && r.run) {
      router.push(`/experiments/attribution?run=${encodeURIComponent(r.run)}`);
      router.refresh();
    } else setError(r.error);
    setBusy(false);
  }

  return (
    <section className="flex flex-col gap-3 rounded border border-slate-200 bg-white p-4" data-testid="new-attribution-run">
      <h2 className="text-sm font-semibold">New attribution run</h2>
      <p className="text-xs text-slate-600" data-testid="attribution-endpoint">
        Model endpoint (configured on the server):{" "}
        {options.endpoint ? (
          <>
            <code className="rounded bg-slate-100 px-1">{options.endpoint.model}</code> at <code className="rounded bg-slate-100 px-1">{options.endpoint.upstream}</code>, protocol {options.endpoint.protocol}
          </>
        ) : (
          <>none — {options.endpointProblem}. The baselines (random, last, rules) run without one.</>
        )}
      </p>
      <label className="flex flex-col text-xs text-slate-600">
        Run name
        <input name="name" className={`${input} w-72`} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. gpt-4o-hand-crafted" />
      </label>
      <fieldset className="flex flex-col gap-1 text-sm">
        <legend className="text-xs text-slate-600">Attributors</legend>
        {options.attributors.map((a) => (
          <label key={a.name} className="flex items-center gap-2" title={a.disabled ?? undefined}>
            <input type="checkbox" name="attributor" value={a.name} disabled={!!a.disabled} checked={chosen.includes(a.name)} onChange={(e) => setChosen((c) => toggle(c, a.name, e.target.checked))} />
            <span className="font-mono">{a.name}</span>
            <span className="text-xs text-slate-500">{a.usesLlm ? "model calls" : "no model call"}{a.groundTruthVariants ? ", with/without ground truth" : ""}</span>
            {a.disabled ? (
              <span className="text-xs text-amber-700" data-testid={`disabled-${a.name}`}>
                disabled: needs a model endpoint
              </span>
            ) : null}
          </label>
        ))}
      </fieldset>
      <fieldset className="flex flex-wrap gap-4 text-sm">
        <legend className="text-xs text-slate-600">Ground truth in the prompt (all-at-once, step-by-step, binary-search)</legend>
        {(["both", "with", "without"] as const).map((g) => (
          <label key={g} className="flex items-center gap-1">
            <input type="radio" name="groundTruth" value={g} checked={gt === g} onChange={() => setGt(g)} /> {g}
          </label>
        ))}
      </fieldset>
      <fieldset className="flex flex-col gap-1 text-sm">
        <legend className="text-xs text-slate-600">Cases (Who&amp;When)</legend>
        <div className="flex flex-wrap gap-4">
          {(
            [
              ["dataset", `the dataset shipped with this server (${options.datasetDir})`],
              ["database", "the Who&When cases imported into the database"],
            ] as const
          ).map(([k, label]) => (
            <label key={k} className="flex items-center gap-1">
              <input
                type="radio"
                name="source"
                value={k}
                checked={source === k}
                onChange={() => {
                  setSource(k);
                  setSubsets((k === "dataset" ? options.subsets : options.database.subsets).map((s) => s.subset));
                }}
              />{" "}
              {label}
            </label>
          ))}
        </div>
        {offered.length ? (
          offered.map((s) => (
            <label key={s.subset} className="flex items-center gap-2">
              <input type="checkbox" name="subset" value={s.subset} checked={subsets.includes(s.subset)} onChange={(e) => setSubsets((c) => toggle(c, s.subset, e.target.checked))} />
              {s.subset} <span className="text-xs text-slate-500">({s.cases} cases)</span>
            </label>
          ))
        ) : (
          <span className="text-xs text-red-700" data-testid="no-cases">
            {source === "dataset" ? "No Who&When subset folder is there." : (options.database.refused ?? "No Who&When case is imported.")}
          </span>
        )}
        <label className="flex items-center gap-2 text-xs text-slate-600">
          The first
          <input name="limit" type="number" min={1} className={`${input} w-20`} value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="all" />
          cases of each chosen subset ({source === "dataset" ? "file order 1.json, 2.json, …" : "bundle-id order"})
        </label>
        <span className="text-xs text-slate-700" data-testid="attribution-plan">
          {total} case(s){counts.length ? `: ${counts.map((c) => `${c.n} ${c.subset}`).join(", ")}` : ""} — {jobs} job(s)
        </span>
      </fieldset>
      <div className="flex flex-wrap items-end gap-3 text-xs text-slate-600">
        <label className="flex flex-col">
          Seed
          <input name="seed" type="number" min={0} className={`${input} w-28`} value={seed} onChange={(e) => setSeed(e.target.value)} />
        </label>
        <label className="flex flex-col">
          Max calls (whole run)
          <input name="maxCalls" type="number" min={1} className={`${input} w-28`} value={maxCalls} onChange={(e) => setMaxCalls(e.target.value)} placeholder="no cap" />
        </label>
        <label className="flex flex-col">
          Max tokens (whole run)
          <input name="maxTokens" type="number" min={1} className={`${input} w-32`} value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} placeholder="no cap" />
        </label>
      </div>
      <div>
        <button type="button" onClick={start} disabled={busy || !jobs || !name.trim()} className="rounded bg-blue-700 px-3 py-1.5 text-sm text-white disabled:opacity-50" data-testid="start-attribution">
          Start run ({jobs} job(s), queued for the workers)
        </button>
      </div>
      {error ? <ErrorText error={error} /> : null}
    </section>
  );
}

/** A refusal as text: the message and the field(s) it names. */
export function ErrorText({ error }: { error: string }) {
  return (
    <p role="alert" className="trace-text text-sm text-red-700" data-testid="attribution-error">
      {error}
    </p>
  );
}
