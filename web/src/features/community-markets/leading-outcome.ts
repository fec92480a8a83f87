import { percent } from '../../lib/format';

interface Priced {
  outcomes: string[];
  outcomeTokens: Array<{ outcome: string; price: number }>;
  status: 'active' | 'resolved';
  resolvedOutcome: string | null;
}

/**
 * The chance a list card shows, as the venues' cards do: a Yes/No market's Yes (its first outcome), any other market's
 * likeliest outcome; none for a resolved market (the card says how it resolved) or one without a market maker.
 */
export function leadingOutcome(m: Priced): { outcome: string; percent: string } | null {
  if (m.status === 'resolved' || m.outcomeTokens.length === 0) return null;
  const binary = m.outcomeTokens.length === 2 && m.outcomeTokens[0]!.outcome.toLowerCase() === 'yes';
  const lead = binary ? m.outcomeTokens[0]! : m.outcomeTokens.reduce((a, b) => (b.price > a.price ? b : a));
  return { outcome: lead.outcome, percent: percent(lead.price) };
}
