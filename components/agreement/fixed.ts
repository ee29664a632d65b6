/**
 * `x.toFixed(digits)` without a negative zero: a κ of −2.5e-16 (floating-point noise around 0)
 * reads "0.000", not "−0.000".
 */
export function fixed(x: number, digits = 3): string {
  const s = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}
