import { pooledMeanEstimate, seedOf, type Estimate } from './estimate';
import { brierScore, LOG_SCORE_FLOOR, pointsUsed, statedVector, type ResolvedQuestion } from './forecast-scores';

/**
 * Scores over a question's life (issue 52 item 2, docs/scoring.md): Metaculus's baseline and peer scores, each averaged
 * over the time from the account's first forecast to the close, and alpha against the market at fixed horizons before
 * the close. Definitions (Metaculus, Scores FAQ, https://www.metaculus.com/help/scores-faq/):
 * - baseline = 100 × (ln p_w − ln(1/K)) / ln K: the log score against the uninformed prior 1/K over K outcomes
 *   (binary: 100 × log₂(2 p_w)); 0 is the prior's, 100 is certainty on what happened.
 * - peer = 100 × (ln p_w − (1/N) Σ_j ln p_j,w) over the N other forecasters holding a forecast at that moment
 *   (reference forecasters included); 0 at a moment when nobody else holds one.
 * p is floored at LOG_SCORE_FLOOR as the log score is. Each forecast replaces its forecaster's previous one; a moment's
 * scores weigh by how long they stood. A forecast at the close itself stands for no time (the instant is scored alone
 * when it is the account's only one).
 */

/** Another forecaster's forecast on the same market (replacing that forecaster's previous one). */
export interface PeerForecast {
  forecaster: string;
  /** Which reference forecaster it is, or null. */
  reference?: string | null;
  /** ms epoch */
  t: number;
  probabilities: number[];
}

/** What the life scores need beyond the account's own question: everyone else's forecasts and the market at each horizon. */
export interface QuestionContext {
  others: PeerForecast[];
  /** The market's YES mid at closedAt − each of HORIZONS (binary markets; null when unknown). */
  horizonMids: Array<number | null>;
}

/** The horizons before the close at which alpha is read again. */
export const HORIZONS = [
  { label: '7d', ms: 7 * 86_400_000 },
  { label: '1d', ms: 86_400_000 },
  { label: '1h', ms: 3_600_000 },
] as const;

export interface QuestionLife {
  marketId: string;
  baseline: number;
  peer: number;
  /** (close − own first forecast) / (close − first forecast by anyone): the share of the question's life covered. */
  coverage: number;
  /** Distinct other forecasters on the question. */
  peers: number;
  /** Per horizon: market Brier − own Brier at closedAt − h, or null (no own forecast then, or no mid, or not binary). */
  horizonAlpha: Array<number | null>;
}

export interface LifeScores {
  /** Questions scored (resolved, non-void, with an own forecast at or before the close). */
  questions: number;
  baseline: Estimate;
  peer: Estimate;
  coverage: Estimate;
  /** Questions where at least one other forecaster held a forecast. */
  peerQuestions: number;
  horizons: Array<{ horizon: (typeof HORIZONS)[number]['label']; hoursBeforeClose: number; alpha: Estimate }>;
}

const ln = (p: number) => Math.log(Math.max(p, LOG_SCORE_FLOOR));

/** One question's life scores, or null when it is VOID or has no own forecast at or before the close. */
export function scoreQuestionLife(q: ResolvedQuestion, ctx: QuestionContext): QuestionLife | null {
  if (q.winner === null) return null;
  const own = pointsUsed(q.points, q.closedAt);
  if (own.length === 0) return null;
  const w = q.winner;
  const outcomes = q.kind === 'binary' ? 2 : own[0]!.probabilities.length;
  const ownVectors = own.map((p) => statedVector(q, p.probabilities, outcomes));
  const others = pointsUsed(ctx.others, q.closedAt);
  const otherVectors = others.map((p) => statedVector(q, p.probabilities, outcomes));
  const first = own[0]!.t;
  const start = Math.min(first, ...others.map((p) => p.t));
  const close = q.closedAt;

  // The moments anything changes from the account's first forecast on: own and others' forecasts.
  const cuts = [...new Set([first, ...own.map((p) => p.t), ...others.map((p) => p.t).filter((t) => t > first), close])].sort((a, b) => a - b);
  const held = new Map<string, number[]>();
  let o = 0;
  let k = 0;
  let current: number[] = ownVectors[0]!;
  let baselineSum = 0;
  let peerSum = 0;
  let total = 0;
  let lastBaseline = 0;
  let lastPeer = 0;
  const uniform = Math.log(1 / outcomes);
  for (let c = 0; c < cuts.length; c++) {
    const t = cuts[c]!;
    while (o < own.length && own[o]!.t <= t) current = ownVectors[o++]!;
    while (k < others.length && others[k]!.t <= t) {
      held.set(others[k]!.forecaster, otherVectors[k]!);
      k++;
    }
    const baseline = (100 * (ln(current[w]!) - uniform)) / Math.log(outcomes);
    let sum = 0;
    for (const v of held.values()) sum += ln(v[w]!);
    const peer = held.size === 0 ? 0 : 100 * (ln(current[w]!) - sum / held.size);
    lastBaseline = baseline;
    lastPeer = peer;
    const d = (c + 1 < cuts.length ? cuts[c + 1]! : close) - t;
    baselineSum += baseline * d;
    peerSum += peer * d;
    total += d;
  }

  const ownBrier = (t: number): number | null => {
    let v: number[] | null = null;
    for (let j = 0; j < own.length && own[j]!.t <= t; j++) v = ownVectors[j]!;
    return v === null ? null : brierScore(v, w);
  };
  const horizonAlpha = HORIZONS.map((h, i) => {
    const mid = ctx.horizonMids[i] ?? null;
    if (q.kind !== 'binary' || mid === null || !(mid >= 0 && mid <= 1)) return null;
    const b = ownBrier(close - h.ms);
    return b === null ? null : brierScore([1 - mid, mid], w) - b;
  });

  return {
    marketId: q.marketId,
    baseline: total > 0 ? baselineSum / total : lastBaseline,
    peer: total > 0 ? peerSum / total : lastPeer,
    coverage: close > start ? (close - first) / (close - start) : 1,
    peers: new Set(others.map((p) => p.forecaster)).size,
    horizonAlpha,
  };
}

/** The mean of per-question values with its bootstrap interval by question, seeded per figure. */
function mean(values: readonly number[], seedLabel: string, figure: string): Estimate {
  return pooledMeanEstimate(values, undefined, values.length, seedOf(`${seedLabel}|${figure}`));
}

/** An account's life scores over its resolved questions; `contexts` by market id (a missing one: nobody else, no mids). */
export function scoreLife(questions: readonly ResolvedQuestion[], contexts: Readonly<Record<string, QuestionContext>>, seedLabel: string): LifeScores {
  const scored: QuestionLife[] = [];
  for (const q of questions) {
    const s = scoreQuestionLife(q, contexts[q.marketId] ?? { others: [], horizonMids: [] });
    if (s) scored.push(s);
  }
  return {
    questions: scored.length,
    baseline: mean(
      scored.map((s) => s.baseline),
      seedLabel,
      'baseline',
    ),
    peer: mean(
      scored.map((s) => s.peer),
      seedLabel,
      'peer',
    ),
    coverage: mean(
      scored.map((s) => s.coverage),
      seedLabel,
      'coverage',
    ),
    peerQuestions: scored.filter((s) => s.peers > 0).length,
    horizons: HORIZONS.map((h, i) => ({
      horizon: h.label,
      hoursBeforeClose: h.ms / 3_600_000,
      alpha: mean(
        scored.map((s) => s.horizonAlpha[i]).filter((a): a is number => a !== null),
        seedLabel,
        `alpha.${h.label}`,
      ),
    })),
  };
}
