import { AppError } from '../../errors/app-error';

/**
 * A benchmark season: a calendar UTC month ('2026-11') or 'all'. A forecast, a buy and a question count in the season in
 * which their market resolves (so a season's scores never change once its markets have resolved); risk counts the days
 * of the month.
 */
export type Season = string;
export const ALL_SEASONS = 'all';

const MONTH = /^([0-9]{4})-(0[1-9]|1[0-2])$/;

/** The season a resolution at `at` counts in. */
export function seasonOf(at: Date): Season {
  return at.toISOString().slice(0, 7);
}

/** The season's UTC range [from, to); null for 'all'. */
export function seasonRange(season: Season): { from: Date; to: Date } | null {
  if (season === ALL_SEASONS) return null;
  const m = MONTH.exec(season);
  if (!m) throw new Error(`not a season: ${season}`);
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return { from: new Date(Date.UTC(year, month, 1)), to: new Date(Date.UTC(year, month + 1, 1)) };
}

/**
 * Whether a season's record and boards may still change at `now` (issue 49 item 3: marked so on every surface): a month
 * until it has ended (a market resolving in it still counts), 'all' always.
 */
export function isProvisional(season: Season, now: Date): boolean {
  const range = seasonRange(season);
  return range === null || now.getTime() < range.to.getTime();
}

/** A season a caller named, checked: 'all', or a month from 2020 to the current one. */
export function parseSeason(text: string | undefined, now: Date): Season {
  if (text === undefined) return seasonOf(now);
  if (text === ALL_SEASONS) return text;
  if (!MONTH.test(text) || text < '2020-01' || text > seasonOf(now))
    throw new AppError('VALIDATION_ERROR', `season must be 'all' or a month YYYY-MM from 2020-01 to ${seasonOf(now)}; got ${text}.`, {
      hint: 'Omit season for the current month.',
    });
  return text;
}
