/** The SPEC's limits for a community market (create_community_market checks the same on the server). */
export const LIMITS = {
  question: { min: 10, max: 200 },
  description: { max: 1000 },
  category: { min: 1, max: 100 },
  outcomes: { min: 2, max: 10 },
  outcome: { min: 1, max: 50 },
  /** Dollars funding the market maker: they leave the creator's cash when the market is created. */
  liquidity: { min: 50 },
  /** An outcome's opening chance, in percent (create_community_market's openingProbabilities, 0.01..0.99 summing to 1). */
  opening: { min: 1, max: 99 },
} as const;

/** The funding a new market's form starts with (the form always sends it, so what it shows is what is charged). */
export const FUNDING_START = 100;

export interface Draft {
  question: string;
  description: string;
  category: string;
  outcomes: string[];
  /** The value of a datetime-local input (local time, no zone). */
  endDate: string;
  /** Dollars funding the market maker, as typed. */
  liquidity: string;
  /** Each outcome's opening chance in percent, as typed; all blank opens every outcome at the same price. */
  opening: string[];
}

export type DraftProblems = Partial<Record<'question' | 'description' | 'category' | 'outcomes' | 'endDate' | 'liquidity' | 'opening', string>> & {
  outcome?: (string | undefined)[];
};

/** What is wrong with a draft, field by field, in the words shown next to each field; empty when it can be sent. */
export function checkDraft(d: Draft, now: Date, available?: number): DraftProblems {
  const p: DraftProblems = {};
  const funding = Number(d.liquidity);
  if (d.liquidity.trim() === '' || !Number.isFinite(funding) || funding < LIMITS.liquidity.min)
    p.liquidity = `Fund the market maker with at least $${LIMITS.liquidity.min}.`;
  else if (available !== undefined && funding > available) p.liquidity = 'That is more than your available cash.';
  const q = d.question.trim().length;
  if (q < LIMITS.question.min || q > LIMITS.question.max)
    p.question = `The question needs ${LIMITS.question.min} to ${LIMITS.question.max} characters (now ${q}).`;
  if (d.description.length > LIMITS.description.max) p.description = `At most ${LIMITS.description.max} characters (now ${d.description.length}).`;
  const c = d.category.trim().length;
  if (c < LIMITS.category.min || c > LIMITS.category.max) p.category = `The category needs ${LIMITS.category.min} to ${LIMITS.category.max} characters.`;
  const labels = d.outcomes.map((o) => o.trim());
  const perOutcome = labels.map((o) =>
    o.length < LIMITS.outcome.min || o.length > LIMITS.outcome.max
      ? `Each outcome needs ${LIMITS.outcome.min} to ${LIMITS.outcome.max} characters.`
      : undefined,
  );
  if (perOutcome.some(Boolean)) p.outcome = perOutcome;
  if (labels.length < LIMITS.outcomes.min || labels.length > LIMITS.outcomes.max)
    p.outcomes = `Give ${LIMITS.outcomes.min} to ${LIMITS.outcomes.max} outcomes.`;
  else if (new Set(labels.map((o) => o.toLowerCase())).size !== labels.length) p.outcomes = 'The outcomes must all be different.';
  const end = d.endDate ? new Date(d.endDate) : null;
  if (!end || Number.isNaN(end.getTime())) p.endDate = 'Choose when the market closes.';
  else if (end.getTime() <= now.getTime()) p.endDate = 'The end date must be in the future.';
  const opening = openingOf(d);
  if (opening === 'invalid')
    p.opening = `Give every outcome an opening chance of ${LIMITS.opening.min} to ${LIMITS.opening.max} % adding up to 100 %, or leave them all blank for even odds.`;
  return p;
}

/**
 * The opening probabilities to send: undefined when every chance is blank (the market maker opens uniform), 'invalid'
 * when some are blank, out of 1..99 % or do not add up to 100 % (to a hundredth of a percent).
 */
export function openingOf(d: Pick<Draft, 'opening' | 'outcomes'>): number[] | undefined | 'invalid' {
  const typed = d.outcomes.map((_, i) => (d.opening[i] ?? '').trim());
  if (typed.every((x) => x === '')) return undefined;
  const pct = typed.map(Number);
  if (typed.some((x) => x === '') || pct.some((x) => !Number.isFinite(x) || x < LIMITS.opening.min || x > LIMITS.opening.max)) return 'invalid';
  if (Math.abs(pct.reduce((a, x) => a + x, 0) - 100) > 0.01) return 'invalid';
  // The last outcome takes the rest, so the sum is 1 to the micro whatever the typed decimals.
  const probabilities = pct.slice(0, -1).map((x) => Math.round(x * 1e4) / 1e6);
  return [...probabilities, Math.round((1 - probabilities.reduce((a, x) => a + x, 0)) * 1e6) / 1e6];
}

export function hasProblems(p: DraftProblems): boolean {
  return Object.keys(p).length > 0;
}
