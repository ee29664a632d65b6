/**
 * The calibrated world's catalogue and task text: plain JavaScript so the evaluator and the
 * reproduction judge (scripts/calibrated-*.mjs, run with plain `node`, no TypeScript loader) and
 * the TypeScript world (./world.ts) share ONE definition. Types: ./catalogue.d.mts.
 *
 * Item `K-<n>` (n = 100..999) is a pure function of n: its category (the trap it sets, Table 10 /
 * annotation-protocol C1–C4) is `CATEGORIES[n % 4]`, its price in EUR is 2.50–19.99 (never 10.00,
 * the price a failing model assumes). README.md (this folder) describes the traps.
 */

/** Category of item n: the trap that item sets (index n % 4). */
export const CATEGORIES = ["C1", "C2", "C3", "C4"];

/** The unit price a failing model assumes when it has no price (EUR). Never an item's price. */
export const ASSUMED_PRICE = 10;

const NAMES = ["brass hinge", "oak shelf", "steel bracket", "glass jar", "linen towel", "copper kettle", "clay pot", "wool blanket", "cedar box", "tin lantern", "cork board", "bamboo tray"];

/** Round to cents. */
export function cents(x) {
  return Math.round(x * 100) / 100;
}

/**
 * The catalogue entry of item number n (100..999).
 * @returns {{ sku, n, name, category, price, flyer, renamed, tiers }} price/flyer in EUR; renamed: the
 *   sku a C3 item was renumbered to (else null); tiers: C1 items' quantity tiers (else null)
 * @throws Error when n is not an integer in 100..999
 */
export function itemOf(n) {
  if (!Number.isInteger(n) || n < 100 || n > 999) throw new Error(`calibrated catalogue: item number must be an integer in 100..999, got ${n}`);
  const category = CATEGORIES[n % 4];
  let c = 250 + ((n * 7919) % 1750);
  if (c === 1000) c = 1005;
  const price = c / 100;
  const tiers = category === "C1" ? [{ min_qty: 1, unit_price: price }, { min_qty: 10, unit_price: cents(price * 0.9) === ASSUMED_PRICE ? 9.95 : cents(price * 0.9) }] : null;
  return { sku: `K-${n}`, n, name: NAMES[n % NAMES.length], category, price, flyer: cents(price + 1.5), renamed: category === "C3" ? `K-${n}R` : null, tiers };
}

/** The item a sku names ("K-417"; the renumbered "K-417R" names the same item), or null. */
export function itemOfSku(sku) {
  const m = /^K-(\d{3})(R?)$/.exec(String(sku ?? "").trim());
  if (!m) return null;
  const it = itemOf(Number(m[1]));
  if (m[2] === "R" && it.category !== "C3") return null;
  return it;
}

/** The correct unit price of `item` for `qty` units (C1: the quantity tier). */
export function unitPriceFor(item, qty) {
  if (!item.tiers) return item.price;
  let p = item.tiers[0].unit_price;
  for (const t of item.tiers) if (qty >= t.min_qty) p = t.unit_price;
  return p;
}

/** The reference answer (EUR, cents) of a task: qty × the correct unit price. */
export function referenceAmount(item, qty) {
  return cents(qty * unitPriceFor(item, qty));
}

/** The amount a run that did not recover answers: qty × the flyer price (C4) or × ASSUMED_PRICE (C1–C3). */
export function failureAmount(item, qty) {
  return cents(qty * (item.category === "C4" ? item.flyer : ASSUMED_PRICE));
}

/**
 * The task text of task `index` (0-based) for item n and quantity qty. Everything a task needs is
 * in its text: `parseTask` recovers (index, n, qty) from it.
 */
export function taskPrompt(index, n, qty) {
  const it = itemOf(n);
  return `[calibrated task ${String(index + 1).padStart(3, "0")}] Look up the current unit price of catalogue item ${it.sku} (${it.name}) with the lookup tool, then compute the cost of ${qty} units in EUR. An old flyer listed it at ${it.flyer.toFixed(2)} EUR. End with "Final answer: <amount>".`;
}

const TASK_RE = /\[calibrated task (\d{3})\] Look up the current unit price of catalogue item K-(\d{3}) \([^)]*\) with the lookup tool, then compute the cost of (\d+) units in EUR\. An old flyer listed it at [\d.]+ EUR\. End with "Final answer: <amount>"\./;

/**
 * Find a calibrated task in a text (a task prompt, or a longer text that contains one, e.g. a
 * self-reflection task).
 * @returns {{ index, n, qty, item, base, extra } | null} base: the exact task prompt; extra: the rest of the text, trimmed
 */
export function parseTask(text) {
  const s = String(text ?? "");
  const m = TASK_RE.exec(s);
  if (!m) return null;
  const index = Number(m[1]) - 1;
  const n = Number(m[2]);
  const qty = Number(m[3]);
  if (n < 100 || n > 999 || qty < 1) return null;
  const base = taskPrompt(index, n, qty);
  if (base !== m[0]) return null;
  return { index, n, qty, item: itemOf(n), base, extra: (s.slice(0, m.index) + s.slice(m.index + m[0].length)).trim() };
}

/** The first amount in an answer text ("Final answer: 86.80", "86.8 EUR", 86.8), or null. */
export function amountOf(final) {
  if (typeof final === "number") return Number.isFinite(final) ? final : null;
  const s = typeof final === "string" ? final : final && typeof final === "object" && typeof final.final === "string" ? final.final : JSON.stringify(final ?? null);
  const m = /final answer\s*:\s*(?:EUR\s*)?(-?\d+(?:\.\d+)?)/i.exec(s) ?? /(-?\d+(?:\.\d+)?)/.exec(s);
  return m ? Number(m[1]) : null;
}
