/**
 * The real calendar the simulated venue's dated questions follow (issue 49 item 2): when exchanges close, when data is
 * released, when central banks decide, and when the events of its mutually exclusive markets take place (Eurovision in
 * May, the Super Bowl in February, the Oscars in March, league seasons, the NBA regular season ending in April). A day is
 * a UTC midnight in ms; a close is an hour (UTC) on such a day, or null when nothing closes that day.
 */

const HOUR = 3_600_000;
export const DAY_MS = 24 * HOUR;

/** What closes on a day: the UTC hour, or null when the question cannot be decided that day. */
export type CloseOn = (dayMs: number) => number | null;

const ymd = (dayMs: number) => {
  const d = new Date(dayMs);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), day: d.getUTCDate(), wd: d.getUTCDay() };
};

/** The nth (1-based) given weekday (0 Sunday) of a month, as a day. */
export function nthWeekday(y: number, month: number, weekday: number, n: number): number {
  const first = new Date(Date.UTC(y, month, 1)).getUTCDay();
  return Date.UTC(y, month, 1 + ((7 + weekday - first) % 7) + 7 * (n - 1));
}

/** The last given weekday of a month, as a day. */
export function lastWeekday(y: number, month: number, weekday: number): number {
  const last = Date.UTC(y, month + 1, 0);
  return last - ((7 + new Date(last).getUTCDay() - weekday) % 7) * DAY_MS;
}

/** New York's close (16:00 Eastern) in UTC: 20:00 under US daylight time (second Sunday of March to first Sunday of November), else 21:00. */
export function nyCloseHourUtc(dateMs: number): number {
  const { y } = ymd(dateMs);
  const d = new Date(dateMs);
  const t = Date.UTC(y, d.getUTCMonth(), d.getUTCDate());
  return t >= nthWeekday(y, 2, 0, 2) && t < nthWeekday(y, 10, 0, 1) ? 20 : 21;
}

const weekday = (dayMs: number) => {
  const wd = new Date(dayMs).getUTCDay();
  return wd !== 0 && wd !== 6;
};

/** Dates announced by the institution, by year ("MM-DD"); a later year repeats the last listed one's dates, moved to the same weekday. */
function announced(table: Record<number, string[]>): (dayMs: number) => boolean {
  const years = Object.keys(table).map(Number);
  const lastYear = Math.max(...years);
  const days = new Set<number>();
  for (const y of years) for (const md of table[y]!) days.add(Date.UTC(y, Number(md.slice(0, 2)) - 1, Number(md.slice(3))));
  return (dayMs) => {
    const { y } = ymd(dayMs);
    if (y <= lastYear) return days.has(dayMs);
    // Past the table: the last listed year's dates, each moved to the nearest day of its weekday in this year.
    return table[lastYear]!.some((md) => {
      const base = Date.UTC(lastYear, Number(md.slice(0, 2)) - 1, Number(md.slice(3)));
      const same = Date.UTC(y, Number(md.slice(0, 2)) - 1, Number(md.slice(3)));
      const shift = (new Date(base).getUTCDay() - new Date(same).getUTCDay() + 7) % 7;
      return dayMs === same + (shift > 3 ? shift - 7 : shift) * DAY_MS;
    });
  };
}

/** FOMC decision days (the meeting's last day), from the Federal Reserve's published schedules. */
export const isFomcDecision = announced({
  2024: ['01-31', '03-20', '05-01', '06-12', '07-31', '09-18', '11-07', '12-18'],
  2025: ['01-29', '03-19', '05-07', '06-18', '07-30', '09-17', '10-29', '12-10'],
  2026: ['01-28', '03-18', '04-29', '06-17', '07-29', '09-16', '10-28', '12-09'],
});
/** Bank of England Monetary Policy Committee announcement days. */
export const isBoeDecision = announced({
  2024: ['02-01', '03-21', '05-09', '06-20', '08-01', '09-19', '11-07', '12-19'],
  2025: ['02-06', '03-20', '05-08', '06-19', '08-07', '09-18', '11-06', '12-18'],
  2026: ['02-05', '03-19', '04-30', '06-18', '07-30', '09-17', '11-05', '12-17'],
});
/** Academy Awards ceremonies (Sundays, announced by the Academy). */
export const isOscars = announced({ 2024: ['03-10'], 2025: ['03-02'], 2026: ['03-15'], 2027: ['03-14'] });

/** Eurovision's grand final: the Saturday from May 11 to 17 (May 11 2024, May 17 2025, May 16 2026). */
export function isEurovisionFinal(dayMs: number): boolean {
  const { m, day, wd } = ymd(dayMs);
  return m === 4 && wd === 6 && day >= 11 && day <= 17;
}

/** The Super Bowl: the second Sunday of February (since the 17-game season, 2022). */
export function isSuperBowl(dayMs: number): boolean {
  const { y } = ymd(dayMs);
  return dayMs === nthWeekday(y, 1, 0, 2);
}

/** The NBA regular season's last day: the second Sunday of April (April 14 2024, April 13 2025, April 12 2026). */
export function nbaSeasonEnd(y: number): number {
  return nthWeekday(y, 3, 0, 2);
}

/** A Sunday of the NBA regular season's standings races: from the first Sunday of December to the season's last day. */
export function isNbaStandingsSunday(dayMs: number): boolean {
  const { y, m, wd } = ymd(dayMs);
  return wd === 0 && (m === 11 || dayMs <= nbaSeasonEnd(y));
}

/** Any day of the NBA regular season (late October to the second Sunday of April). */
export function inNbaSeason(dayMs: number): boolean {
  const { y, m, day } = ymd(dayMs);
  return (m === 9 && day >= 22) || m === 10 || m === 11 || dayMs <= nbaSeasonEnd(y);
}

/** A weekend of the European football leagues' season (mid-August to the last weekend before May 25). */
export function isLeagueWeekend(dayMs: number): boolean {
  const { m, day, wd } = ymd(dayMs);
  if (wd !== 0 && wd !== 6) return false;
  return (m === 7 && day >= 15) || m >= 8 || m <= 3 || (m === 4 && day <= 24);
}

/** A Sunday of the leagues' season from September to mid-May: the days a table is read. */
export function isLeagueTableSunday(dayMs: number): boolean {
  const { m, day, wd } = ymd(dayMs);
  return wd === 0 && (m >= 8 || m <= 3 || (m === 4 && day <= 17));
}

/** Closes by kind of question. */
export const CLOSES = {
  /** A share or yield at New York's close, on weekdays. */
  nyClose: ((d) => (weekday(d) ? nyCloseHourUtc(d) : null)) as CloseOn,
  /** The LBMA gold price (afternoon auction, 15:00 London), on weekdays. */
  lbma: ((d) => (weekday(d) ? 14 : null)) as CloseOn,
  /** A box-office weekend ends on Sunday; its estimates come that day. */
  weekendBoxOffice: ((d) => (new Date(d).getUTCDay() === 0 ? 16 : null)) as CloseOn,
  /** The US jobs report: the first Friday of the month, 08:30 Eastern. */
  jobsReport: ((d) => {
    const { y, m } = ymd(d);
    return d === nthWeekday(y, m, 5, 1) ? 12 : null;
  }) as CloseOn,
  /** US CPI: a Tuesday to Thursday from the 10th to the 15th, 08:30 Eastern (the BLS's usual window). */
  cpiRelease: ((d) => {
    const { day, wd } = ymd(d);
    return day >= 10 && day <= 15 && wd >= 2 && wd <= 4 ? 12 : null;
  }) as CloseOn,
  /** A BEA GDP estimate: the last Thursday of the month, 08:30 Eastern. */
  gdpRelease: ((d) => {
    const { y, m } = ymd(d);
    return d === lastWeekday(y, m, 4) ? 12 : null;
  }) as CloseOn,
  /** The FOMC statement, 14:00 Eastern. */
  fomc: ((d) => (isFomcDecision(d) ? 18 : null)) as CloseOn,
  /** The Bank of England's decision, 12:00 London. */
  boe: ((d) => (isBoeDecision(d) ? 11 : null)) as CloseOn,
  /** A league match: a weekend of the season, before the early kick-offs. */
  leagueMatch: ((d) => (isLeagueWeekend(d) ? 11 : null)) as CloseOn,
  /** NBA standings on a day of the season, before the evening's games. */
  nbaDay: ((d) => (inNbaSeason(d) ? 22 : null)) as CloseOn,
  /** A US special election: a Tuesday, when the polls open. */
  usElection: ((d) => (new Date(d).getUTCDay() === 2 ? 11 : null)) as CloseOn,
};
