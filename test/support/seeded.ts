// What several test suites share: the repository root and one small seeded PRNG, so every
// "random" test case is reproducible from its seed.
import * as path from 'node:path';

/** The repository root (this file compiles to dist/test/support/). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** mulberry32: a seeded generator of numbers in [0, 1); small, fast, reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
