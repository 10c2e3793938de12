/** The little linear algebra the rerankers need, on flat row-major arrays. */

/**
 * Mean of the token vectors of each sequence of a [batch, length, width]
 * output, over its real tokens: the first `tokens[b]` positions (the rest is
 * right padding, masked out).
 */
export function meanPool(hidden: Float32Array, dims: readonly number[], tokens: readonly number[]): Float32Array[] {
  const [batch, length, width] = dims as [number, number, number];
  const pooled: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const mean = new Float32Array(width);
    const count = Math.max(1, tokens[b]!);
    for (let t = 0; t < tokens[b]!; t++) {
      const offset = (b * length + t) * width;
      for (let d = 0; d < width; d++) mean[d]! += hidden[offset + d]!;
    }
    for (let d = 0; d < width; d++) mean[d]! /= count;
    pooled.push(mean);
  }
  return pooled;
}

/** Splits a [batch, width] output into its rows. */
export function rows(data: Float32Array, dims: readonly number[]): Float32Array[] {
  const [batch, width] = dims as [number, number];
  return Array.from({ length: batch }, (_, b) => data.subarray(b * width, (b + 1) * width));
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * One relevance score per row of classifier logits: the logit itself for a
 * single-label head (ms-marco cross-encoders), the log-odds of the last
 * ("relevant") label against the first for a two-label head.
 */
export function relevance(logits: Float32Array, dims: readonly number[]): number[] {
  const batch = dims[0]!;
  const labels = dims.length > 1 ? dims[1]! : 1;
  return Array.from({ length: batch }, (_, b) =>
    labels === 1 ? logits[b]! : logits[b * labels + labels - 1]! - logits[b * labels]!,
  );
}
