import type { CatalogParams, SimMarketSpec } from './catalog';
import type { MarketDraws } from './venue-seal';

/**
 * A market's YES price path: a bounded random walk in log-odds with a small drift (vol² · (p − ½))
 * that makes the probability itself a martingale, so a price read at any time is an honest forecast
 * of the outcome drawn at the end. Clamping keeps every price inside [0.01, 0.99].
 */

// A local binding: global lookups are slow inside vm contexts (jest), and this runs per price step.
const { exp } = Math;
export const MAX_LOG_ODDS = Math.log(0.99 / 0.01);

export const sigmoid = (x: number): number => 1 / (1 + exp(-x));

/** What the venue reads of a market's path: its YES price at a time, and the probability its outcome is drawn with. */
export interface VenuePath {
  readonly spec: SimMarketSpec;
  probabilityAt(tMs: number): number;
  /** The YES probability the winner is drawn with at resolution. */
  outcomeProbability(): number;
}

/** A path of per-step log-odds, computed lazily up to the latest step anyone asked for; a subclass gives one step. */
export abstract class SteppedPath implements VenuePath {
  private readonly x: Float32Array;
  private computed = 0;
  private current: number;
  private normals: Float64Array | null = null;

  constructor(
    protected readonly params: CatalogParams,
    readonly spec: SimMarketSpec,
    /** The market's sealed draws (venue-seal.ts): its start and its price steps' keyed stream. */
    protected readonly draws: Pick<MarketDraws, 'stepNormals' | 'x0'>,
  ) {
    this.x = new Float32Array(spec.steps + 1);
    this.x[0] = draws.x0;
    this.current = draws.x0;
  }

  /** The normal draw of step i, from the market's keyed stream (venue-seal.ts), drawn whole on the first step. */
  protected normal(i: number): number {
    this.normals ??= this.draws.stepNormals(this.streamKind, this.spec.steps);
    return this.normals[i]!;
  }

  /** Which of the market's step streams this kind of path reads, so the venue with and without information never share steps. */
  protected abstract get streamKind(): string;

  /** Log-odds after step i + 1, from `x` after step i (before clamping). */
  protected abstract step(x: number, i: number): number;

  abstract outcomeProbability(): number;

  /** Log-odds after `i` steps (0 ≤ i ≤ steps). */
  at(i: number): number {
    while (this.computed < i) {
      let x = this.step(this.current, this.computed);
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

/** The martingale path of one market (the venue without information). */
export class MarketPath extends SteppedPath {
  protected get streamKind(): string {
    return 'market';
  }

  protected step(x: number, i: number): number {
    const v = this.spec.stepVol;
    return x + (v * v * (sigmoid(x) - 0.5) + v * this.normal(i));
  }

  /** The price is a martingale: the final price is the honest probability of YES. */
  outcomeProbability(): number {
    return this.probabilityAt(this.spec.endAtMs);
  }
}

/** Paths are a few kilobytes each; the most recently used ones are kept. */
export class LruPathCache<P> {
  private readonly paths = new Map<number, P>();

  constructor(
    private readonly make: (spec: SimMarketSpec) => P,
    private readonly capacity = 1000,
  ) {}

  get(spec: SimMarketSpec): P {
    let path = this.paths.get(spec.k);
    if (path) {
      this.paths.delete(spec.k);
    } else {
      path = this.make(spec);
      if (this.paths.size >= this.capacity) this.paths.delete(this.paths.keys().next().value!);
    }
    this.paths.set(spec.k, path);
    return path;
  }
}

/** The martingale paths of the venue without information (SIM_INFORMATION=off). */
export class PathCache extends LruPathCache<MarketPath> {
  constructor(params: CatalogParams, drawsOf: (spec: SimMarketSpec) => Pick<MarketDraws, 'stepNormals' | 'x0'>, capacity = 1000) {
    super((spec) => new MarketPath(params, spec, drawsOf(spec)), capacity);
  }
}
