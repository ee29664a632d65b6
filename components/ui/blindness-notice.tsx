/** A page withheld by the blindness gate: the reason as lib/db `pooledViewGate` words it (it names the open assignments). */
export function BlindnessNotice({ reason }: { reason: string }) {
  return (
    <p className="rounded border border-amber-300 bg-amber-50 p-4 text-sm" data-testid="blindness-notice">
      {reason}.
    </p>
  );
}
