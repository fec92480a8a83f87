// Local bindings: global lookups are slow inside vm contexts (jest), and this runs millions of times.
const { imul, log, sqrt, cos, PI } = Math;

/**
 * Counter-based randomness: every draw is a pure function of (seed, stream, indices). Any market's
 * catalog entry or price step can be recomputed on its own, in any order, and two processes with
 * the same seed agree without sharing state.
 */

function mix(h: number, k: number): number {
  k = imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (imul(h, 5) + 0xe6546b64) | 0;
}

function finalize(h: number): number {
  h ^= h >>> 16;
  h = imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Folds any integer seed (possibly beyond 32 bits) into 32 bits. */
export function seed32(seed: number): number {
  return Number(BigInt.asUintN(32, BigInt(Math.trunc(seed))));
}

/** A 32-bit hash of integers (murmur3 mixing). */
export function hash32(seed: number, ...parts: number[]): number {
  let h = seed | 0;
  for (const p of parts) h = mix(h, p | 0);
  return finalize(h ^ parts.length);
}

/** Uniform in the open interval (0, 1). */
export function uniform(seed: number, ...parts: number[]): number {
  return (hash32(seed, ...parts) + 0.5) / 4294967296;
}

/** Standard normal (Box-Muller over two independent uniforms). */
export function normal(seed: number, ...parts: number[]): number {
  const u1 = uniform(seed, ...parts, 0x51);
  const u2 = uniform(seed, ...parts, 0x52);
  return sqrt(-2 * log(u1)) * cos(2 * PI * u2);
}

/** A decimal string of `digits` digits with a non-zero first digit. */
export function decimalDigits(seed: number, digits: number, ...parts: number[]): string {
  let h = seed | 0;
  for (const p of parts) h = mix(h, p | 0);
  let out = '';
  for (let i = 0; out.length < digits; i++) out += String(1e9 + (finalize(mix(h, i) ^ parts.length) % 1e9)).slice(1);
  out = out.slice(0, digits);
  return out[0] === '0' ? `${1 + (finalize(mix(h, -1)) % 9)}${out.slice(1)}` : out;
}

/** Picks an element by a uniform draw. */
export function pick<T>(items: readonly T[], u: number): T {
  return items[Math.min(items.length - 1, Math.floor(u * items.length))]!;
}
