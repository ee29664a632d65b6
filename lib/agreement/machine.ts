/**
 * Human–machine agreement (issue 24 item 3): how an LLM annotator's submitted annotations agree
 * with the blind human annotators'. The machine is a separate rater: the three humans' Fleiss' κ
 * is reported on its own and beside it the same cases with the machine as a fourth rater; the
 * machine never stands in for a human.
 *
 * Per human: Cohen's κ (Cohen 1960, ./cohen.ts) between that human's and the machine's primary
 * category on the cases both annotated, and the share of those cases where both chose the same
 * failure node (Wilson 95%). Fleiss' κ (Fleiss 1971, ./fleiss.ts) of the primary category on the
 * cases with exactly three human annotations and a machine one: humans only (n = 3) and humans +
 * machine (n = 4).
 */
import { cohenKappa, type CohenResult } from "./cohen";
import { fleissKappaFromRatings, type FleissResult } from "./fleiss";
import type { Interval } from "./types";
import { wilsonInterval } from "../stats";

export interface RatedAnnotation {
  primary: string | null;
  nodeId: string | null;
}

export interface HumanMachineCase {
  caseId: string;
  /** The submitted initial annotations of the human annotators. */
  humans: Array<RatedAnnotation & { annotator: string }>;
  /** The machine rater's submitted annotation. */
  machine: RatedAnnotation;
}

export interface HumanMachineAgreement {
  rater: string;
  /** Cases with a machine annotation and at least one human one. */
  cases: number;
  perHuman: Array<{ annotator: string; items: number; primary: CohenResult; sameNode: { x: number; n: number; rate: number | null; ci95: Interval | null } }>;
  fleissPrimary: { items: number; humans: FleissResult | null; withMachine: FleissResult | null };
}

const NONE = "(none)";

/**
 * @param rater the machine rater's name
 * @param cases one entry per case the machine annotated (cases without humans are ignored)
 * @returns per-human Cohen's κ and node agreement (humans in name order), Fleiss' κ with and
 *   without the machine (null when no case has exactly three humans)
 */
export function humanMachineAgreement(rater: string, cases: readonly HumanMachineCase[]): HumanMachineAgreement {
  const used = cases.filter((c) => c.humans.length > 0);
  const names = [...new Set(used.flatMap((c) => c.humans.map((h) => h.annotator)))].sort();
  const perHuman = names.map((annotator) => {
    const pairs = used.flatMap((c) => c.humans.filter((h) => h.annotator === annotator).map((h) => [h, c.machine] as const));
    const same = pairs.filter(([h, m]) => h.nodeId !== null && h.nodeId === m.nodeId).length;
    return {
      annotator,
      items: pairs.length,
      primary: cohenKappa(pairs.map(([h]) => h.primary ?? NONE), pairs.map(([, m]) => m.primary ?? NONE)),
      sameNode: { x: same, n: pairs.length, rate: pairs.length ? same / pairs.length : null, ci95: wilsonInterval(same, pairs.length) },
    };
  });
  const three = used.filter((c) => c.humans.length === 3);
  const humansOnly = three.map((c) => c.humans.map((h) => h.primary ?? NONE));
  return {
    rater,
    cases: used.length,
    perHuman,
    fleissPrimary: {
      items: three.length,
      humans: three.length ? fleissKappaFromRatings(humansOnly) : null,
      withMachine: three.length ? fleissKappaFromRatings(three.map((c, i) => [...humansOnly[i], c.machine.primary ?? NONE])) : null,
    },
  };
}
