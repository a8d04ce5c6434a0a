/**
 * @module Seeded randomness for the crash tests: a small PRNG (mulberry32) and the seed a run
 * uses — `CAIRN_CRASH_SEED` when set, so a failing run can be replayed with the same choices.
 */

/** Numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run, printed with how to replay it. */
export function crashSeed(test: string): number {
  const seed = Number(process.env.CAIRN_CRASH_SEED ?? Date.now() % 100_000);
  console.log(`${test}: seed ${seed}; replay with CAIRN_CRASH_SEED=${seed}`);
  return seed;
}
