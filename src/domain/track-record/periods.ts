/**
 * Leaderboard periods are calendar periods in UTC, not rolling windows: `weekly` is the ISO week that
 * began on Monday 00:00 UTC, `monthly` the calendar month that began on the 1st 00:00 UTC, `alltime`
 * everything. A calendar period is one aggregate row per trader that every trade adds to, so a board is
 * an index walk; a rolling window would have to re-add and re-sort days of buckets on every request.
 */
export type Period = 'weekly' | 'monthly' | 'alltime';

export const PERIODS: readonly Period[] = ['weekly', 'monthly', 'alltime'];

/** The `period` column of trader_stats. */
export const PERIOD_KEY: Record<Period, 'w' | 'm' | 'a'> = { weekly: 'w', monthly: 'm', alltime: 'a' };

/** The bucket of the all-time row (one per trader). */
export const ALLTIME_BUCKET = '1970-01-01';

const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant, as YYYY-MM-DD. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Monday 00:00 UTC of the ISO week holding `at`, as YYYY-MM-DD. */
export function weekStart(at: Date): string {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return dayOf(new Date(midnight - sinceMonday * DAY_MS));
}

/** The 1st of the UTC month holding `at`, as YYYY-MM-DD. */
export function monthStart(at: Date): string {
  return dayOf(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)));
}

/** An instant's UTC day, ISO week start and month start, each as YYYY-MM-DD. */
export interface Calendar {
  day: string;
  week: string;
  month: string;
}

/** The last day's calendar: every trade asks for it, and formatting three dates each time shows in a trade's profile. */
let lastCalendar: { dayNumber: number; calendar: Readonly<Calendar> } | undefined;

export function calendarOf(at: Date): Readonly<Calendar> {
  const dayNumber = Math.floor(at.getTime() / DAY_MS);
  if (lastCalendar?.dayNumber === dayNumber) return lastCalendar.calendar;
  const calendar = Object.freeze({ day: dayOf(at), week: weekStart(at), month: monthStart(at) });
  lastCalendar = { dayNumber, calendar };
  return calendar;
}

/** The bucket (period start, YYYY-MM-DD) an instant belongs to. */
export function bucketOf(period: Period, at: Date): string {
  if (period === 'weekly') return weekStart(at);
  if (period === 'monthly') return monthStart(at);
  return ALLTIME_BUCKET;
}

/** When the current period began (null for alltime). */
export function periodStart(period: Period, at: Date): Date | null {
  return period === 'alltime' ? null : new Date(`${bucketOf(period, at)}T00:00:00.000Z`);
}

/** The day before a YYYY-MM-DD day. */
export function previousDay(day: string): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00.000Z`) - DAY_MS));
}
