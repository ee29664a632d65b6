/** Number formats of the experiment page (percent with two decimals as in the paper's tables). */
import type { RateCI } from "@/lib/experiments";

/** 0.1637 → "16.37"; null → "—". */
export function pct(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? "—" : (100 * rate).toFixed(2);
}

/** Wilson interval of a rate in percent: "[11.58, 22.65]"; "" when none. */
export function ciPct(r: Pick<RateCI, "lo" | "hi"> | null | undefined): string {
  return r && r.lo !== null && r.hi !== null ? `[${(100 * r.lo).toFixed(2)}, ${(100 * r.hi).toFixed(2)}]` : "";
}

/** Points with sign: 8.19 → "+8.19". */
export function points(v: number | null | undefined): string {
  return v === null || v === undefined ? "—" : `${v > 0 ? "+" : ""}${v.toFixed(2)}`;
}

/** p-values as the paper prints them: 3 significant figures, scientific below 0.001. */
export function pValue(p: number | null | undefined): string {
  if (p === null || p === undefined) return "—";
  if (p === 0) return "0";
  if (p < 0.001) {
    const [m, e] = p.toExponential(2).split("e");
    return `${m}×10${superscript(e)}`;
  }
  return p >= 0.1 ? p.toFixed(3) : p.toPrecision(3);
}

function superscript(e: string): string {
  const map: Record<string, string> = { "-": "⁻", "+": "", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹" };
  return [...e].map((c) => map[c] ?? c).join("");
}

/** Query string of a drill-down cell (`?method=…&mas=…&category=…#attempts`). */
export function cellHref(basePath: string, f: { method?: string | null; mas?: string | null; category?: string | null }): string {
  const q = new URLSearchParams();
  if (f.method) q.set("method", f.method);
  if (f.mas && f.mas !== "all") q.set("mas", f.mas);
  if (f.category && f.category !== "all") q.set("category", f.category);
  const s = q.toString();
  return `${basePath}${s ? "?" + s : ""}#attempts`;
}
