import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { FinalAnswer, ResolvedOutcome, Verdict } from "@/lib/replay";

const TONE: Record<Verdict, BadgeTone> = { passed: "green", failed: "red", unknown: "slate" };

function Provenance({ o }: { o: ResolvedOutcome }) {
  if (o.verdict === "unknown") return <span className="text-slate-500">{o.reason}</span>;
  return <span className="text-slate-500">{o.via === "dataset" ? `recorded verdict${o.evaluator ? ` (${o.evaluator})` : ""}` : `evaluator on its final answer${o.evaluator ? `: ${o.evaluator}` : ""}`}</span>;
}

/**
 * The label of a replay whose live calls went to the scripted stand-in model (the demo's
 * default endpoint, scripts/replay-stack.ts): its suffix and final answer are scripted, not a
 * real model's. Shown on the result page header and in the replay dialog.
 */
export function ScriptedStandinBadge() {
  return (
    <span data-testid="scripted-standin">
      <Badge tone="violet" title="The live calls went to the demo's scripted stand-in model, not a real LLM: set SYMTRACE_REPLAY_UPSTREAM for a real endpoint (README)">
        scripted stand-in model
      </Badge>
    </span>
  );
}

/** "Did the repair work?": source outcome → replay outcome, each with where it came from or why it is unknown. */
export function ReplayOutcome({ source, replay }: { source: ResolvedOutcome; replay: ResolvedOutcome }) {
  return (
    <div className="flex flex-col gap-1" data-testid="replay-outcome" data-source={source.verdict} data-replay={replay.verdict}>
      <p className="flex flex-wrap items-center gap-2 text-base">
        <span className="font-semibold">Outcome:</span>
        <span>source</span>
        <Badge tone={TONE[source.verdict]}>
          <span data-testid="outcome-source">{source.verdict}</span>
        </Badge>
        <span aria-label="to">→</span>
        <span>replay</span>
        <Badge tone={TONE[replay.verdict]}>
          <span data-testid="outcome-replay">{replay.verdict}</span>
        </Badge>
      </p>
      <ul className="text-xs">
        <li className="trace-text">
          Source: <Provenance o={source} />
        </li>
        <li className="trace-text">
          Replay: <Provenance o={replay} />
        </li>
      </ul>
    </div>
  );
}

function AnswerPane({ title, answer, testId }: { title: string; answer: FinalAnswer | null; testId: string }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <h3 className="text-xs font-semibold text-slate-600">
        {title}
        {answer ? (
          <span className="font-normal text-slate-500">
            {" "}
            · <span className="font-mono">{answer.nodeId}</span>
            {answer.agent ? ` · ${answer.agent}` : ""}
          </span>
        ) : null}
      </h3>
      {/* Text only (React escapes it), whitespace kept, scrollable: never rendered as HTML. */}
      <pre data-testid={testId} className="max-h-80 min-h-12 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs whitespace-pre-wrap">
        {answer ? answer.text : <span className="text-slate-400">(no final_result node)</span>}
      </pre>
    </div>
  );
}

/** The two final answers side by side, in full. */
export function ReplayFinalAnswers({ source, replay }: { source: FinalAnswer | null; replay: FinalAnswer | null }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-4" aria-labelledby="final-answers" data-testid="final-answers">
      <h2 id="final-answers" className="mb-2 font-semibold">
        Final answers
      </h2>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <AnswerPane title="Source" answer={source} testId="final-answer-source" />
        <AnswerPane title="Replay" answer={replay} testId="final-answer-replay" />
      </div>
    </section>
  );
}
