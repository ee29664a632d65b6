/**
 * Landis & Koch (1977) verbal reading of a κ value: < 0 poor, 0–0.20 slight, 0.21–0.40 fair,
 * 0.41–0.60 moderate, 0.61–0.80 substantial, 0.81–1 almost perfect. (Biometrics 33(1):159–174.)
 */
export function landisKoch(kappa: number | null): string {
  if (kappa === null || Number.isNaN(kappa)) return "undefined";
  if (kappa < 0) return "poor";
  if (kappa <= 0.2) return "slight";
  if (kappa <= 0.4) return "fair";
  if (kappa <= 0.6) return "moderate";
  if (kappa <= 0.8) return "substantial";
  return "almost perfect";
}
