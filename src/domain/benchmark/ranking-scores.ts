import { seedOf, type Estimate } from './estimate';
import { brierScore, pointsUsed, scoreQuestion, statedVector, type ResolvedQuestion } from './forecast-scores';
import type { QuestionContext } from './life-scores';
import { minimumDetectableEdge, pairedBootstrap, RANKING_REPLICATES, shrunkMean } from './statistics';

/**
 * What a board needs to rank an account honestly (issue 52 item 3; docs/scoring.md): its Brier edge over each reference
 * forecaster, paired question by question, with a bootstrap of RANKING_REPLICATES and a one-sided p-value; its alpha
 * shrunk toward 0 for a small sample; the smallest edge its n can detect; and whether its sample is still provisional.
 */

/** Below this many resolved markets, or this many days from its first scored forecast to its last close, a row is provisional. */
export const PROVISIONAL_MARKETS = 100;
export const PROVISIONAL_DAYS = 30;

type Reference = 'market' | 'coin_flip' | 'favourite';
const REFERENCES: readonly Reference[] = ['market', 'coin_flip', 'favourite'];
const DAY_MS = 86_400_000;

export interface ReferenceEdge {
  reference: Reference;
  /** The reference's Brier − yours on the questions both forecast: above 0 is better than the reference. */
  edge: Estimate;
  /** One-sided p-value of "no better than the reference" (paired bootstrap), before any correction. */
  pValue: number | null;
}

export interface RankingScores {
  replicates: number;
  references: ReferenceEdge[];
  /** Σ alpha over max(30, n) questions (statistics.ts SHRINK_FLOOR). */
  shrunkAlpha: number | null;
  /** The smallest alpha this sample could tell from 0 (two-sided 5 %, power 80 %). */
  minimumDetectableEdge: number | null;
  /** Days from the first scored forecast to the last close. */
  days: number;
  provisional: boolean;
}

/**
 * Each reference's forecast on a question, as its rule states it: the market's is its mid (the mids stamped with each of
 * your forecasts stand for it, so every question with mids pairs), the coin flip's the even split, the favourite's its
 * own last forecast at or before the close (only where it stated one).
 */
function referenceBrier(reference: Reference, q: ResolvedQuestion, ctx: QuestionContext | undefined, marketBrier: number | null): number | null {
  const w = q.winner!;
  if (reference === 'market') return marketBrier;
  const outcomes = q.kind === 'binary' ? 2 : q.points[0]!.probabilities.length;
  if (reference === 'coin_flip')
    return brierScore(
      Array.from({ length: outcomes }, () => 1 / outcomes),
      w,
    );
  const own = pointsUsed(
    (ctx?.others ?? []).filter((p) => p.reference === reference),
    q.closedAt,
  );
  const last = own[own.length - 1];
  return last ? brierScore(statedVector(q, last.probabilities, outcomes), w) : null;
}

export function scoreRanking(
  questions: readonly ResolvedQuestion[],
  contexts: Readonly<Record<string, QuestionContext>>,
  resolvedMarkets: number,
  seedLabel: string,
): RankingScores {
  const differences = new Map<Reference, number[]>(REFERENCES.map((r) => [r, []]));
  let first = Infinity;
  let last = -Infinity;
  for (const q of questions) {
    const s = scoreQuestion(q);
    if (!s) continue;
    first = Math.min(first, ...pointsUsed(q.points, q.closedAt).map((p) => p.t));
    last = Math.max(last, q.closedAt);
    for (const r of REFERENCES) {
      const b = referenceBrier(r, q, contexts[q.marketId], s.market?.brier ?? null);
      if (b !== null) differences.get(r)!.push(b - s.brier);
    }
  }
  const alphas = differences.get('market')!;
  const days = last > first ? (last - first) / DAY_MS : 0;
  return {
    replicates: RANKING_REPLICATES,
    references: REFERENCES.map((reference) => {
      const d = differences.get(reference)!;
      const b = pairedBootstrap(d, seedOf(`${seedLabel}|${reference}`));
      return { reference, edge: { value: b.mean, n: d.length, low: b.low, high: b.high }, pValue: b.pValue };
    }),
    shrunkAlpha: shrunkMean(alphas),
    minimumDetectableEdge: minimumDetectableEdge(alphas),
    days,
    provisional: resolvedMarkets < PROVISIONAL_MARKETS || days < PROVISIONAL_DAYS,
  };
}
