import type { SimMarketSpec } from './catalog';
import { InformedPath } from './information';
import type { VenuePath } from './price-path';

/**
 * A member of a mutually exclusive event (issue 49): each member has a path of its own (a martingale, or a hidden
 * probability its price follows), read as the member's strength; the member's YES probability is its share of the
 * event's strengths, with a floor of SHARE_FLOOR each, so the members' prices sum to 1 (to the tick) and every one
 * stays on the venue's quoted range. The event's winner is drawn once from the final shares (hidden ones with
 * information on): exactly one member resolves YES.
 */
export const SHARE_FLOOR = 0.01;

/** The shares of strengths in (0, 1): each at least SHARE_FLOOR, summing to 1. */
export function sharesOf(strengths: readonly number[]): number[] {
  const total = strengths.reduce((s, x) => s + x, 0);
  const rest = 1 - SHARE_FLOOR * strengths.length;
  return strengths.map((x) => SHARE_FLOOR + (rest * x) / total);
}

/** The member a uniform draw in (0, 1) picks, each with its probability (the last one takes any rounding left). */
export function winnerIndex(probabilities: readonly number[], draw: number): number {
  let acc = 0;
  for (let i = 0; i < probabilities.length - 1; i++) {
    acc += probabilities[i]!;
    if (draw < acc) return i;
  }
  return probabilities.length - 1;
}

export class EventPath implements VenuePath {
  constructor(
    readonly spec: SimMarketSpec,
    private readonly members: readonly SimMarketSpec[],
    /** A member's own path (the feed's cache). */
    private readonly strengthOf: (member: SimMarketSpec) => VenuePath,
  ) {}

  private share(read: (path: VenuePath) => number): number {
    return sharesOf(this.members.map((m) => read(this.strengthOf(m))))[this.spec.event!.index]!;
  }

  probabilityAt(tMs: number): number {
    return this.share((p) => p.probabilityAt(tMs));
  }

  /** The member's share of the final strengths the winner is drawn from (the hidden ones with information on). */
  outcomeProbability(): number {
    return this.share((p) => p.outcomeProbability());
  }

  /** The member's share of the hidden strengths at a time (information on). */
  hiddenAt(tMs: number): number {
    return this.share((p) => (p instanceof InformedPath ? p.hiddenAt(tMs) : p.probabilityAt(tMs)));
  }
}
