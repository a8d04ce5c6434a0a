/**
 * @module The sandbox's dice: mulberry32, a small seeded PRNG, so a run with a seed injects the
 * same faults in the same order; without a seed it is seeded from the clock.
 */

/** Returns a function yielding floats in [0, 1). */
export function createRandom(seed: number | undefined): () => number {
  let state = (seed ?? Math.floor(Math.random() * 2 ** 32)) >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
