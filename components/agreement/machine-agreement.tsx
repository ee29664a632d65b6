import type { HumanMachineAgreement } from "@/lib/agreement";
import { fixed } from "./fixed";

const k3 = (k: number | null, reason: string | null) => (k === null ? <span title={reason ?? undefined}>undefined</span> : fixed(k));

/**
 * Human–machine agreement (issue 24 item 3): per machine rater (an LLM annotator's account,
 * marked "machine"), Fleiss' κ of the primary category for the three blind humans alone and with
 * the machine as a fourth rater, and Cohen's κ and same-node agreement of each human with it.
 * Props only; the machine is never counted among the humans.
 */
export function MachineAgreement({ raters }: { raters: HumanMachineAgreement[] }) {
  if (!raters.length) return <p className="text-sm text-slate-600">No machine annotations yet (symtrace detect --eval --attribution … --annotate stores an LLM annotator&apos;s answers).</p>;
  return (
    <div className="flex flex-col gap-4">
      {raters.map((r) => (
        <div key={r.rater} data-testid="machine-rater">
          <h3 className="mb-1 text-sm font-semibold">
            {r.rater} <span className="rounded bg-violet-100 px-1 text-xs font-normal text-violet-800">machine</span>{" "}
            <span className="text-xs font-normal text-slate-500">{r.cases} case(s) with human annotations</span>
          </h3>
          <table className="mb-2 text-sm">
            <thead>
              <tr className="text-left text-slate-500">
                <th className="pr-4">Fleiss&apos; κ, primary category</th>
                <th className="pr-4">cases</th>
                <th className="pr-4">κ</th>
              </tr>
            </thead>
            <tbody>
              <tr data-testid="fleiss-humans">
                <td className="pr-4">three humans</td>
                <td className="pr-4 font-mono">{r.fleissPrimary.items}</td>
                <td className="pr-4 font-mono">{r.fleissPrimary.humans ? k3(r.fleissPrimary.humans.kappa, r.fleissPrimary.humans.reason) : "—"}</td>
              </tr>
              <tr data-testid="fleiss-with-machine">
                <td className="pr-4">three humans + machine</td>
                <td className="pr-4 font-mono">{r.fleissPrimary.items}</td>
                <td className="pr-4 font-mono">{r.fleissPrimary.withMachine ? k3(r.fleissPrimary.withMachine.kappa, r.fleissPrimary.withMachine.reason) : "—"}</td>
              </tr>
            </tbody>
          </table>
          <table className="text-sm">
            <thead>
              <tr className="text-left text-slate-500">
                <th className="pr-4">human</th>
                <th className="pr-4">cases</th>
                <th className="pr-4">Cohen&apos;s κ (primary) with the machine</th>
                <th className="pr-4">same node</th>
              </tr>
            </thead>
            <tbody>
              {r.perHuman.map((h) => (
                <tr key={h.annotator} data-testid={`cohen-${h.annotator}`}>
                  <td className="pr-4">{h.annotator}</td>
                  <td className="pr-4 font-mono">{h.items}</td>
                  <td className="pr-4 font-mono">{k3(h.primary.kappa, h.primary.reason)}</td>
                  <td className="pr-4 font-mono">
                    {h.sameNode.x}/{h.sameNode.n}
                    {h.sameNode.ci95 ? ` (Wilson ${(100 * h.sameNode.ci95[0]).toFixed(1)}–${(100 * h.sameNode.ci95[1]).toFixed(1)}%)` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}
