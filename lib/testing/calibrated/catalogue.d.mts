/** Types of ./catalogue.mjs (the calibrated world's catalogue and task text). */
export type CalibratedCategory = "C1" | "C2" | "C3" | "C4";
export interface CatalogueItem {
  sku: string;
  n: number;
  name: string;
  category: CalibratedCategory;
  /** EUR */
  price: number;
  /** the old flyer's price (EUR) quoted in every task */
  flyer: number;
  /** C3: the sku the item was renumbered to; else null */
  renamed: string | null;
  /** C1: quantity tiers; else null */
  tiers: Array<{ min_qty: number; unit_price: number }> | null;
}
export interface ParsedTask {
  index: number;
  n: number;
  qty: number;
  item: CatalogueItem;
  base: string;
  extra: string;
}
export const CATEGORIES: readonly CalibratedCategory[];
export const ASSUMED_PRICE: number;
export function cents(x: number): number;
export function itemOf(n: number): CatalogueItem;
export function itemOfSku(sku: unknown): CatalogueItem | null;
export function unitPriceFor(item: CatalogueItem, qty: number): number;
export function referenceAmount(item: CatalogueItem, qty: number): number;
export function failureAmount(item: CatalogueItem, qty: number): number;
export function taskPrompt(index: number, n: number, qty: number): string;
export function parseTask(text: unknown): ParsedTask | null;
export function amountOf(final: unknown): number | null;
