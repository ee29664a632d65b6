/**
 * Sample-size guards for the agreement figures (what the dashboard and its downloads warn about).
 *
 * A case-level percentile bootstrap (spec/statistics.md) resamples the cases: with n cases there are
 * at most C(2n−1, n) distinct resamples, and with few cases the interval collapses or jumps (one
 * case gives a "CI" of a single point however many resamples are drawn). We therefore
 *   - show no bootstrap interval below {@link MIN_CASES_FOR_CI} (10) cases, only the point κ;
 *   - show the interval with a warning below {@link MIN_CASES_FOR_STABLE_CI} (30) cases, the usual
 *     rule of thumb for percentile intervals (Efron & Tibshirani 1993, ch. 13);
 *   - warn for a Cohen's κ pair or an annotator-vs-final share over fewer than
 *     {@link MIN_CASES_FOR_PAIR} (10) cases.
 * Wilson intervals stay valid for small n (that is what they are for) and get no warning.
 */
export const MIN_CASES_FOR_CI = 10;
export const MIN_CASES_FOR_STABLE_CI = 30;
export const MIN_CASES_FOR_PAIR = 10;

/** One warning: `scope` names the table it belongs to, `message` is the sentence shown. */
export interface SampleSizeWarning {
  scope: "reliability" | "cohen" | "vs-final";
  message: string;
}

/** Whether a bootstrap interval over `cases` cases is shown at all (false below {@link MIN_CASES_FOR_CI}). */
export function bootstrapIntervalShown(cases: number): boolean {
  return cases >= MIN_CASES_FOR_CI;
}

/**
 * The warnings for a report's sample sizes.
 * @param o.cases cases in the Fleiss statistics (three initial annotations each)
 * @param o.pairs Cohen's κ pairs: annotator names and the cases both rated
 * @param o.vsFinal per annotator: finalized cases they annotated
 * @returns warnings in table order; empty when every n is large enough
 */
export function sampleSizeWarnings(o: {
  cases: number;
  pairs?: Array<{ a: string; b: string; items: number }>;
  vsFinal?: Array<{ annotator: string; cases: number }>;
}): SampleSizeWarning[] {
  const out: SampleSizeWarning[] = [];
  const s = (n: number) => `${n} case${n === 1 ? "" : "s"}`;
  if (o.cases < MIN_CASES_FOR_CI) {
    out.push({
      scope: "reliability",
      message: `Only ${s(o.cases)}: too few for a bootstrap interval (shown from ${MIN_CASES_FOR_CI} cases); κ is a point estimate and can change sharply with one more case.`,
    });
  } else if (o.cases < MIN_CASES_FOR_STABLE_CI) {
    out.push({
      scope: "reliability",
      message: `Only ${s(o.cases)}: bootstrap intervals under ${MIN_CASES_FOR_STABLE_CI} cases are unstable; read them as rough.`,
    });
  }
  const smallPairs = (o.pairs ?? []).filter((p) => p.items < MIN_CASES_FOR_PAIR);
  if (smallPairs.length) {
    out.push({
      scope: "cohen",
      message: `${smallPairs.length} pair(s) share fewer than ${MIN_CASES_FOR_PAIR} cases (${smallPairs
        .map((p) => `${p.a} · ${p.b}: ${p.items}`)
        .join("; ")}); their κ is not reliable.`,
    });
  }
  const smallFinal = (o.vsFinal ?? []).filter((a) => a.cases < MIN_CASES_FOR_PAIR);
  if (smallFinal.length) {
    out.push({
      scope: "vs-final",
      message: `${smallFinal.length} annotator(s) have fewer than ${MIN_CASES_FOR_PAIR} finalized cases (${smallFinal
        .map((a) => `${a.annotator}: ${a.cases}`)
        .join("; ")}); their shares are not reliable.`,
    });
  }
  return out;
}
