/** A chance in percent, as typed: 0 to 100, at most two decimals. */
export const chanceOk = (text: string): boolean => /^\d{1,3}(\.\d{1,2})?$/.test(text.trim()) && Number(text) >= 0 && Number(text) <= 100;

/** A typed chance in percent as the probability a forecast carries (0..1, whole hundredths of a percent). */
export const chanceProbability = (text: string): number => Math.round(Number(text) * 100) / 10_000;

/**
 * An optional "your chance of YES" field of a trade: empty states nothing; otherwise a valid chance is the trade's
 * `forecast`. `ok` is false only for something typed that is not a chance.
 */
export function optionalChance(text: string): { ok: boolean; forecast: number | undefined } {
  if (text.trim() === '') return { ok: true, forecast: undefined };
  return chanceOk(text) ? { ok: true, forecast: chanceProbability(text) } : { ok: false, forecast: undefined };
}
