const TONES = {
  slate: "bg-slate-100 text-slate-700 ring-slate-200",
  red: "bg-red-50 text-red-700 ring-red-200",
  green: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  amber: "bg-amber-50 text-amber-800 ring-amber-200",
  blue: "bg-blue-50 text-blue-700 ring-blue-200",
  violet: "bg-violet-50 text-violet-700 ring-violet-200",
} as const;

export type BadgeTone = keyof typeof TONES;

/** A small inline label. Children are rendered as text. */
export function Badge({ tone = "slate", children, title }: { tone?: BadgeTone; children: React.ReactNode; title?: string }) {
  return (
    <span title={title} className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}>
      {children}
    </span>
  );
}

export const NODE_TYPE_TONE: Record<string, BadgeTone> = {
  agent_action: "blue",
  llm_call: "violet",
  tool_call: "amber",
  tool_result: "green",
  message: "slate",
  final_result: "red",
};

/**
 * Outcome of a run: failed, passed or unknown. `via: "evaluator"` (lib/db `caseVerdicts`): the
 * bundle records no verdict and this one is the evaluator's, run on the case by a replay; the
 * badge says so, as the replay page does.
 */
export function OutcomeBadge({ passed, via, evaluator }: { passed: boolean | null | undefined; via?: "recorded" | "evaluator" | "none"; evaluator?: string | null }) {
  const judged = via === "evaluator" && typeof passed === "boolean";
  const title = judged ? `the evaluator${evaluator ? ` ${evaluator}` : ""}'s verdict on this case (run by a replay); the bundle records none` : undefined;
  const text = (v: string) => (
    <span data-testid="outcome-verdict" data-via={via ?? "recorded"} title={title}>
      {v}
      {judged ? " · evaluator" : ""}
    </span>
  );
  if (passed === true) return <Badge tone="green">{text("passed")}</Badge>;
  if (passed === false) return <Badge tone="red">{text("failed")}</Badge>;
  return <Badge>{text("unknown")}</Badge>;
}
