"use client";

import { useEffect, useState } from "react";
import { ScriptedStandinBadge } from "./replay-outcome";

interface TargetInfo {
  node: string;
  mode: "native" | "transcript";
  /** The registered runner that will run (native): exact argv and working directory. */
  runner: { name: string; command: string[]; cwd: string; source: string } | null;
  runnerName: string | null;
  /** The bundle's own command: shown, never run. */
  recordedCommand: string[] | null;
  /** Why this is a transcript continuation. */
  reason: string | null;
  boundaryNodeId: string | null;
  seq: number | null;
  rule: string;
  upstream: string | null;
  /** Where the case's Anthropic Messages calls go live; null when it made none. */
  anthropicUpstream?: string | null;
  model: string | null;
  /** The upstream is the scripted stand-in model (demo default): results are scripted. */
  scripted?: boolean;
  guidance: string;
  guidanceFrom: string | null;
  /** The annotation's proposed correction at this node (issue 14), or null. */
  correction?: string | null;
}

/** What will run: the registered runner and its command, or why there is none (the bundle's own command is never run). */
function ReplayRunnerInfo({ info }: { info: TargetInfo }) {
  return (
    <div className="rounded border border-slate-200 bg-slate-50 p-2 text-xs" data-testid="replay-runner">
      {info.runner ? (
        <>
          <p>
            Runs the registered runner <span className="font-mono font-semibold">{info.runner.name}</span> ({info.runner.source === "built-in" ? "built-in" : "server configuration"}):
          </p>
          <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-all font-mono" data-testid="replay-runner-command">{info.runner.command.join(" ")}</pre>
          <p className="text-slate-500">
            in <span className="font-mono">{info.runner.cwd}</span>
          </p>
        </>
      ) : (
        <p className="text-amber-900" data-testid="replay-runner-reason">
          No runner will be started: {info.reason}
        </p>
      )}
      {info.recordedCommand ? (
        <p className="mt-1 text-slate-500">
          The bundle was recorded with <span className="font-mono break-all">{info.recordedCommand.join(" ")}</span>; a command taken from a bundle is never run.
        </p>
      ) : null}
    </div>
  );
}

/**
 * "Replay from here": which boundary the intervention acts on, the guidance (prefilled from the
 * final or the viewer's own annotation with each category's repair signal; editable), the live
 * endpoint and model from the settings, what will run (the registered runner and its command, or
 * the reason for a transcript continuation), and how many replays to run (1–5).
 */
export function ReplayDialog({ caseKey, nodeId, onClose, onStarted }: { caseKey: string; nodeId: string; onClose: () => void; onStarted: () => void }) {
  const [info, setInfo] = useState<TargetInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [guidance, setGuidance] = useState("");
  const [count, setCount] = useState(1);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const ctl = new AbortController();
    fetch(`/api/cases/${caseKey}/replay-target?node=${encodeURIComponent(nodeId)}`, { signal: ctl.signal })
      .then(async (r) => {
        const body = (await r.json()) as TargetInfo & { error?: string };
        if (!r.ok) throw new Error(body.error ?? `HTTP ${r.status}`);
        setInfo(body);
        setGuidance(body.guidance);
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") setError(e.message);
      });
    return () => ctl.abort();
  }, [caseKey, nodeId]);

  async function start() {
    setBusy(true);
    setError(null);
    try {
      const r = await fetch(`/api/cases/${caseKey}/replays`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ targetNodeId: nodeId, guidance, count }),
      });
      const body = (await r.json()) as { error?: string; fieldErrors?: Array<{ field: string; message: string }> };
      if (!r.ok) throw new Error(body.fieldErrors?.map((f) => `${f.field}: ${f.message}`).join("; ") || body.error || `HTTP ${r.status}`);
      onStarted();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div role="dialog" aria-modal="true" aria-labelledby="replay-title" className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/40" onClick={onClose}>
      <div className="flex w-[40rem] max-w-[95vw] flex-col gap-3 rounded-lg bg-white p-5 text-sm shadow-xl" onClick={(e) => e.stopPropagation()} data-testid="replay-dialog">
        <h2 id="replay-title" className="text-base font-semibold">
          Replay from <span className="font-mono">{nodeId}</span>
        </h2>
        {!info && !error ? <p className="text-slate-500">Loading…</p> : null}
        {info ? (
          <>
            <p data-testid="replay-boundary">
              {info.mode === "native" ? (
                <>
                  Native replay. The recorded prefix is replayed fail-closed up to the LLM boundary <span className="font-mono font-semibold">{info.boundaryNodeId}</span>
                  {info.seq !== null ? ` (record ${info.seq})` : ""}; the guidance is appended there and the rest runs live.
                </>
              ) : (
                <>
                  <span className="rounded bg-amber-100 px-1 font-semibold text-amber-900">Transcript continuation</span>, not a native replay: this trace has no
                  registered runner, so the recorded conversation up to this node is sent as one chat with the guidance and continued live.
                </>
              )}
            </p>
            <p className="text-xs text-slate-500">{info.rule}</p>
            <ReplayRunnerInfo info={info} />
            <p className="text-xs" data-testid="replay-endpoint">
              Live endpoint: {info.upstream ? <span className="font-mono">{info.upstream}</span> : <span className="text-amber-800">not configured (SYMTRACE_REPLAY_UPSTREAM): the prefix is verified and the run stops at the boundary</span>} · model{" "}
              <span className="font-mono">{info.model ?? "the bundle's"}</span>
              {info.anthropicUpstream ? (
                <>
                  {" "}
                  · Anthropic calls: <span className="font-mono">{info.anthropicUpstream}/v1/messages</span>
                </>
              ) : null}
              {info.scripted ? (
                <>
                  {" "}
                  <ScriptedStandinBadge />: answers are scripted, not a real model&apos;s (README: replay with a real endpoint)
                </>
              ) : null}
            </p>
            <label className="flex flex-col gap-1">
              <span className="font-semibold">Guidance {info.guidanceFrom ? <span className="font-normal text-slate-500">(prefilled from the {info.guidanceFrom})</span> : null}</span>
              <textarea value={guidance} onChange={(e) => setGuidance(e.target.value)} rows={7} className="rounded border border-slate-300 px-2 py-1 font-mono text-xs" aria-label="Guidance" />
            </label>
            {info.correction ? (
              <div className="flex flex-wrap items-center gap-2 text-xs" data-testid="replay-correction">
                <span>The {info.guidanceFrom ?? "annotation"} proposes a correction at this node (included above).</span>
                <button type="button" className="rounded border border-slate-300 px-2 py-0.5" onClick={() => setGuidance(info.correction ?? "")}>
                  Use only the proposed correction
                </button>
                <button type="button" className="rounded border border-slate-300 px-2 py-0.5" onClick={() => setGuidance(info.guidance)}>
                  Restore the prefilled guidance
                </button>
              </div>
            ) : null}
            <label className="flex items-center gap-2">
              Replays to run
              <input type="number" min={1} max={5} value={count} onChange={(e) => setCount(Math.max(1, Math.min(5, Number(e.target.value) || 1)))} className="w-16 rounded border border-slate-300 px-2 py-1" aria-label="Replays to run" />
            </label>
          </>
        ) : null}
        {error ? (
          <p role="alert" className="text-red-700">
            {error}
          </p>
        ) : null}
        <div className="flex justify-end gap-2">
          <button type="button" onClick={onClose} className="rounded border border-slate-300 px-3 py-1.5">
            Close
          </button>
          <button type="button" disabled={!info || busy} onClick={() => void start()} className="rounded bg-indigo-700 px-3 py-1.5 font-medium text-white disabled:opacity-50">
            {busy ? "Starting…" : "Start replay"}
          </button>
        </div>
      </div>
    </div>
  );
}
