/**
 * lib/stats: statistics shared by lib/agreement and lib/experiments (pure). See ./README.md.
 */
export type { Interval } from "./types";
export { Z95, wilsonInterval } from "./wilson";
export { QUANTILE_RULE, percentileInterval, quantileSorted } from "./quantile";
export { indexDraw } from "./resample";
export { seededIndex } from "./keyed-draw";
export { csvCell, tableToCsv, type TableRows } from "./table";
