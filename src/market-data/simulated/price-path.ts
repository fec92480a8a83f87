import { stepNormal } from './random';
import type { CatalogParams, SimMarketSpec } from './catalog';

/**
 * A market's YES price path: a bounded random walk in log-odds with a small drift (vol² · (p − ½))
 * that makes the probability itself a martingale, so a price read at any time is an honest forecast
 * of the outcome drawn at the end. Clamping keeps every price inside [0.01, 0.99].
 */

const S_STEP = 2;
// A local binding: global lookups are slow inside vm contexts (jest), and this runs per price step.
const { exp } = Math;
export const MAX_LOG_ODDS = Math.log(0.99 / 0.01);

export const sigmoid = (x: number): number => 1 / (1 + exp(-x));

/** The log-odds steps of one market, computed lazily up to the latest step anyone asked for. */
export class MarketPath {
  private readonly x: Float32Array;
  private computed = 0;
  private current: number;
  private readonly speedKey: number;

  constructor(
    private readonly params: CatalogParams,
    readonly spec: SimMarketSpec,
  ) {
    this.x = new Float32Array(spec.steps + 1);
    this.x[0] = spec.x0;
    this.current = spec.x0;
    this.speedKey = Math.round(params.speed * 1000);
  }

  /** Log-odds after `i` steps (0 ≤ i ≤ steps). */
  at(i: number): number {
    const v = this.spec.stepVol;
    const { seed } = this.params;
    while (this.computed < i) {
      let x = this.current;
      x += v * v * (sigmoid(x) - 0.5) + v * stepNormal(seed, S_STEP, this.speedKey, this.spec.k, this.computed);
      x = x > MAX_LOG_ODDS ? MAX_LOG_ODDS : x < -MAX_LOG_ODDS ? -MAX_LOG_ODDS : x;
      this.current = x;
      this.computed += 1;
      this.x[this.computed] = x;
    }
    return this.x[i]!;
  }

  /** YES probability at a time, interpolating between steps so the price moves continuously; flat after the end. */
  probabilityAt(tMs: number): number {
    const spec = this.spec;
    const t = Math.min(Math.max(tMs, spec.createdAtMs), spec.endAtMs);
    const pos = (t - spec.createdAtMs) / spec.stepMs;
    const i = Math.min(spec.steps, Math.floor(pos));
    const next = Math.min(spec.steps, i + 1);
    const b = this.at(next);
    const a = this.at(i);
    return sigmoid(a + (b - a) * (pos - i));
  }
}

/** Paths are a few kilobytes each; the most recently used ones are kept. */
export class PathCache {
  private readonly paths = new Map<number, MarketPath>();

  constructor(
    private readonly params: CatalogParams,
    private readonly capacity = 1000,
  ) {}

  get(spec: SimMarketSpec): MarketPath {
    let path = this.paths.get(spec.k);
    if (path) {
      this.paths.delete(spec.k);
    } else {
      path = new MarketPath(this.params, spec);
      if (this.paths.size >= this.capacity) this.paths.delete(this.paths.keys().next().value!);
    }
    this.paths.set(spec.k, path);
    return path;
  }
}
