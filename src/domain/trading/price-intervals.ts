/** The price-history intervals every market's chart offers (mirrored and community alike), and their windows. */

/** A window of a price history: from, to, and the spacing of its points (seconds). */
export interface PriceRange {
  interval: string;
  fromS: number;
  toS: number;
  stepS: number;
}

export const INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'max'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Span and point spacing per interval: 60 to 168 points, each chart readable at a glance. */
const FIXED: Record<Exclude<Interval, 'max'>, { spanS: number; stepS: number }> = {
  '1h': { spanS: 3600, stepS: 60 },
  '6h': { spanS: 6 * 3600, stepS: 300 },
  '1d': { spanS: 86_400, stepS: 900 },
  '1w': { spanS: 7 * 86_400, stepS: 3600 },
  '1m': { spanS: 30 * 86_400, stepS: 6 * 3600 },
};
const NICE_STEPS = [60, 300, 900, 3600, 6 * 3600, 86_400, 7 * 86_400];

/** The window ending now; `max` runs from the market's creation with a spacing giving at most ~300 points. */
export function rangeFor(interval: Interval, nowS: number, createdS: number): PriceRange {
  if (interval !== 'max') {
    const f = FIXED[interval];
    return { interval, fromS: nowS - f.spanS, toS: nowS, stepS: f.stepS };
  }
  const fromS = Math.min(createdS, nowS - 3600);
  const wanted = (nowS - fromS) / 300;
  const stepS = NICE_STEPS.find((s) => s >= wanted) ?? NICE_STEPS[NICE_STEPS.length - 1]!;
  return { interval, fromS, toS: nowS, stepS };
}
