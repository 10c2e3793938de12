/**
 * Mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). Generated
 * models, corpora and benchmark queries use it so one seed always gives the
 * same bytes.
 */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
