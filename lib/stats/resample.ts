/**
 * The index draw of every case-level bootstrap (lib/agreement's Fleiss κ intervals, lib/experiments'
 * paired repair-rate differences): uniform indices in [0, N) from pure-rand's xoroshiro128+.
 */
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

/**
 * A seeded stream of uniform indices in [0, N): Lemire (2019) multiply-shift on the generator's
 * 32-bit outputs x, idx = ⌊x·N / 2^32⌋, redrawn while (x·N mod 2^32) < 2^32 mod N (unbiased).
 * Products stay below 2^53, so the arithmetic is exact in doubles. Deterministic for a seed.
 * @param seed 32-bit integer seed (taken `| 0`)
 * @param N number of items, ≥ 1
 * @returns a function giving the next index on each call
 */
export function indexDraw(seed: number, N: number): () => number {
  const rng = xoroshiro128plus(seed | 0);
  const reject = 4294967296 % N;
  return () => {
    let m = (rng.next() >>> 0) * N;
    let idx = (m / 4294967296) | 0;
    while (m - idx * 4294967296 < reject) {
      m = (rng.next() >>> 0) * N;
      idx = (m / 4294967296) | 0;
    }
    return idx;
  };
}
