/**
 * Durations for people: an exact nanosecond count shown in the unit that fits (ns, µs, ms, s).
 * Pure; used by the importers for `content.duration` of span nodes, which the inspector shows.
 */

const UNITS: Array<[bigint, string]> = [
  [1_000_000_000n, "s"],
  [1_000_000n, "ms"],
  [1_000n, "µs"],
];

/**
 * Format a duration given in nanoseconds.
 * @param ns nanoseconds as bigint, a decimal digit string (OTLP int64) or a safe integer
 * @returns e.g. "110 ns", "1.5 µs", "2.346 ms", "75 s", "-3 ns"; at most 3 decimals, rounded half
 *   up, trailing zeros dropped; the unit is the largest whose value is >= 1.
 *   "?" when the input is not an integer.
 */
export function formatDurationNs(ns: bigint | string | number): string {
  let v: bigint;
  try {
    if (typeof ns === "number" && !Number.isInteger(ns)) return "?";
    v = BigInt(ns);
  } catch {
    return "?";
  }
  const sign = v < 0n ? "-" : "";
  const a = v < 0n ? -v : v;
  for (const [unit, name] of UNITS) {
    if (a < unit) continue;
    const milli = (a * 1000n + unit / 2n) / unit; // value × 1000, rounded half up
    const whole = milli / 1000n;
    const frac = (milli % 1000n).toString().padStart(3, "0").replace(/0+$/, "");
    return `${sign}${whole}${frac ? `.${frac}` : ""} ${name}`;
  }
  return `${sign}${a} ns`;
}
