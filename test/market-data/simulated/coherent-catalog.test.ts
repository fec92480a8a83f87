import fc from 'fast-check';
import type { FeedMarket } from '../../../src/market-data/feed';
import { SIM_EPOCH_MS } from '../../../src/market-data/simulated/catalog';
import { SimulatedFeed } from '../../../src/market-data/simulated/simulated-feed';
import { testSeal } from '../../support/sealed-venue';

/**
 * A coherent catalogue (issue 49 item 2), over many seeds and moments: the markets of a mutually exclusive event quote
 * YES prices summing to 1 within their spreads and resolve to exactly one winner; no event question is listed twice; every
 * threshold lies in a plausible range for its place and unit, taken here from references of the test's own (climate
 * normals, price levels), not from the venue's code; stock closes end at New York's close; close times spread over days,
 * weeks and months; every question is listed once (events and markets on their own alike); dated questions follow the real
 * calendar (calendar-of-record rules written here on their own): an event's markets end when its occasion begins, on
 * its real date, and a question's date is its close's.
 */

const DAY = 86_400_000;
const fixedClock = (t: number) => ({ now: () => new Date(t) });
const venue = (seed: number, t: number) => new SimulatedFeed({ seed, speed: 1, seal: testSeal() }, fixedClock(t));
const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const times = fc.integer({ min: SIM_EPOCH_MS + 200 * DAY, max: SIM_EPOCH_MS + 1200 * DAY });

// Normal daily highs (°F) by month (NOAA, Met Office, JMA, BoM, IMD normals, rounded); a question may ask 12 °F either side.
const NORMAL_HIGH_F: Record<string, number[]> = {
  'New York': [39, 42, 50, 61, 71, 79, 85, 83, 76, 65, 54, 44],
  London: [46, 47, 51, 56, 62, 68, 72, 71, 66, 58, 51, 47],
  Chicago: [31, 35, 47, 59, 70, 80, 84, 82, 75, 62, 48, 36],
  Tokyo: [49, 50, 56, 65, 71, 76, 83, 87, 80, 70, 62, 53],
  Paris: [45, 47, 54, 60, 67, 73, 77, 77, 70, 61, 51, 46],
  Miami: [76, 78, 80, 83, 87, 89, 91, 91, 89, 86, 82, 78],
  Seattle: [48, 50, 54, 59, 65, 70, 76, 77, 70, 60, 51, 46],
  Sydney: [80, 79, 77, 73, 68, 64, 63, 65, 69, 72, 75, 78],
  Toronto: [30, 32, 41, 54, 66, 75, 80, 79, 71, 58, 46, 35],
  Berlin: [37, 40, 48, 58, 67, 72, 76, 75, 67, 56, 45, 38],
  'Los Angeles': [68, 69, 70, 72, 74, 78, 83, 84, 83, 79, 73, 68],
  Mumbai: [87, 87, 90, 91, 93, 90, 86, 85, 87, 92, 92, 89],
};
// Plausible ranges of prices and rates (the market's unit), wide around 2025–26 levels.
const RANGES: Array<[RegExp, number, number]> = [
  [/^Will Bitcoin close above \$([\d,]+)/, 50_000, 250_000],
  [/^Will Ethereum trade above \$([\d,]+)/, 1_000, 12_000],
  [/^Will Solana reach \$([\d,]+)/, 50, 600],
  [/^Will gold close above \$([\d,]+)/, 1_800, 5_000],
  [/^Will WTI crude oil trade above \$([\d,]+)/, 40, 130],
  [/^Will the 10-year Treasury yield close above ([\d.]+)%/, 2, 7],
  [/^Will US CPI inflation be above ([\d.]+)%/, 1, 6],
  [/^Will the US unemployment rate be ([\d.]+)%/, 3, 7],
  [/^Will Bitcoin dominance be above ([\d.]+)%/, 40, 75],
];
const STOCK_PRICE: Record<string, number> = {
  Apple: 230,
  Nvidia: 180,
  Microsoft: 480,
  Tesla: 350,
  Amazon: 220,
  Alphabet: 200,
  Meta: 700,
  Netflix: 1100,
  Intel: 25,
  AMD: 160,
  Boeing: 200,
  Disney: 110,
};
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** New York's 16:00 close in UTC, by the US daylight-time rule, computed here on its own. */
function nyCloseUtcHour(date: Date): number {
  const y = date.getUTCFullYear();
  const sunday = (month: number, nth: number) => {
    let d = 1;
    let seen = 0;
    for (; ; d++) if (new Date(Date.UTC(y, month, d)).getUTCDay() === 0 && ++seen === nth) break;
    return Date.UTC(y, month, d);
  };
  const day = Date.UTC(y, date.getUTCMonth(), date.getUTCDate());
  return day >= sunday(2, 2) && day < sunday(10, 1) ? 20 : 21;
}

const DATE = /(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}/g;
const H = 3_600_000;
const weekdayOf = (day: number) => new Date(day).getUTCDay();
const ymd = (day: number) => [new Date(day).getUTCFullYear(), new Date(day).getUTCMonth(), new Date(day).getUTCDate()] as const;
/** The nth Sunday of a month, counted by hand. */
function nthSunday(y: number, month: number, n: number): number {
  let seen = 0;
  for (let d = 1; ; d++) if (new Date(Date.UTC(y, month, d)).getUTCDay() === 0 && ++seen === n) return Date.UTC(y, month, d);
}
// Dates of record: Eurovision finals (EBU), Super Bowls (NFL), Academy Awards (AMPAS), FOMC decisions (Federal Reserve).
const EUROVISION_FINALS = ['2024-05-11', '2025-05-17', '2026-05-16'];
const SUPER_BOWLS = ['2025-02-09', '2026-02-08', '2027-02-14'];
const OSCARS = ['2024-03-10', '2025-03-02', '2026-03-15', '2027-03-14'];
const FOMC = [
  ...['2024-07-31', '2024-09-18', '2024-11-07', '2024-12-18'],
  ...['2025-01-29', '2025-03-19', '2025-05-07', '2025-06-18', '2025-07-30', '2025-09-17', '2025-10-29', '2025-12-10'],
  ...['2026-01-28', '2026-03-18', '2026-04-29', '2026-06-17', '2026-07-29', '2026-09-16', '2026-10-28', '2026-12-09'],
];
const iso = (day: number) => new Date(day).toISOString().slice(0, 10);
/** A year's date of record if the list covers the year, else the rule the institution has followed. */
const ofRecord = (list: string[], day: number, rule: (day: number) => boolean) =>
  list.some((d) => d.startsWith(String(ymd(day)[0]))) ? list.includes(iso(day)) : rule(day);
/**
 * Occasions a question can be about: its name, how its question reads, and when it begins on a day (ms), or null when
 * it does not take place that day.
 */
const OCCASIONS: Array<[string, RegExp, (day: number) => number | null]> = [
  // The grand final starts at 21:00 CEST.
  [
    'eurovision',
    /win the Eurovision Song Contest final/,
    (day) => (ofRecord(EUROVISION_FINALS, day, (d) => weekdayOf(d) === 6 && ymd(d)[1] === 4) ? day + 19 * H : null),
  ],
  // Kick-off about 18:30 Eastern.
  ['super bowl', /win the Super Bowl/, (day) => (ofRecord(SUPER_BOWLS, day, (d) => d === nthSunday(ymd(d)[0], 1, 2)) ? day + 23 * H + 30 * 60_000 : null)],
  // The ceremony starts at 19:00 Eastern (00:00 UTC in standard time, 23:00 under daylight time).
  ['best picture', /win Best Picture/, (day) => (ofRecord(OSCARS, day, (d) => weekdayOf(d) === 0 && ymd(d)[1] === 2) ? day + 23 * H : null)],
  // A Sunday's standings, from December to the regular season's last day (the second Sunday of April), before tip-off.
  [
    'nba best record',
    /have the NBA's best record/,
    (day) => {
      const [y, m] = ymd(day);
      return weekdayOf(day) === 0 && (m === 11 || (m <= 3 && day <= nthSunday(y, 3, 2))) ? day + 22 * H : null;
    },
  ],
  // A Sunday of the European season (September to mid-May), before the early kick-offs.
  [
    'league leader',
    /lead (the Premier League|La Liga|the Bundesliga|Serie A|Ligue 1) after the matches/,
    (day) => {
      const [, m, d] = ymd(day);
      return weekdayOf(day) === 0 && (m >= 8 || m <= 3 || (m === 4 && d <= 17)) ? day + 12 * H : null;
    },
  ],
  // New York's close, on weekdays.
  [
    'stock close',
    /stock close above|Treasury yield close above|most valuable company at the close/,
    (day) => (weekdayOf(day) % 6 !== 0 ? day + nyCloseUtcHour(new Date(day)) * H : null),
  ],
  // A box-office weekend ends on a Sunday.
  ['box office', /in the weekend ending/, (day) => (weekdayOf(day) === 0 ? day + 24 * H : null)],
  // The FOMC statement at 14:00 Eastern (18:00 or 19:00 UTC).
  ['fed', /Fed cut interest rates at its meeting ending/, (day) => (ofRecord(FOMC, day, () => true) ? day + 18 * H : null)],
];

const mid = (m: FeedMarket) => Number(m.tokens[0].priceMicro) / 1e6;

function checkThreshold(m: FeedMarket): void {
  const q = m.question;
  const temp = /^Will the high temperature in (.+) reach (\d+)°F on (\w+) \d+, \d+/.exec(q);
  if (temp) {
    const normal = NORMAL_HIGH_F[temp[1]!]![MONTHS.indexOf(temp[3]!)]!;
    expect(Math.abs(Number(temp[2]) - normal)).toBeLessThanOrEqual(12);
  }
  for (const [re, lo, hi] of RANGES) {
    const x = re.exec(q);
    if (!x) continue;
    const v = Number(x[1]!.replace(/,/g, ''));
    expect(v).toBeGreaterThanOrEqual(lo);
    expect(v).toBeLessThanOrEqual(hi);
  }
  const stock = /^Will (.+) stock close above \$([\d,]+)/.exec(q);
  if (stock) {
    const ratio = Number(stock[2]!.replace(/,/g, '')) / STOCK_PRICE[stock[1]!]!;
    expect(ratio).toBeGreaterThanOrEqual(0.75);
    expect(ratio).toBeLessThanOrEqual(1.25);
    // Decided at the exchange's close: the market ends at it, and a short market's question names that hour.
    expect(m.endDate!.getUTCHours()).toBe(nyCloseUtcHour(m.endDate!));
    expect(m.endDate!.getUTCMinutes()).toBe(0);
  }
  expect(q).not.toMatch(/ win [^,]+ (19|20)\d\d\?$/); // a bare year ("win Eurovision 2026?") makes a question that repeats
}

describe('a coherent catalogue (issue 49 item 2)', () => {
  jest.setTimeout(300_000);

  test('when any seed is listed at any moment, then every event is coherent, no question repeats and every threshold is plausible', async () => {
    let events = 0;
    await fc.assert(
      fc.asyncProperty(seeds, times, async (seed, t) => {
        const v = venue(seed, t);
        const { markets } = await v.listMarkets();
        // No question is listed twice: not within events, not between events and markets on their own, not among those.
        expect(new Set(markets.map((m) => m.question)).size).toBe(markets.length);
        const byEvent = new Map<number, FeedMarket[]>();
        for (const m of markets) {
          checkThreshold(m);
          const spec = v.spec(Number(m.id.slice(4)));
          if (spec.event) byEvent.set(spec.event.leader, [...(byEvent.get(spec.event.leader) ?? []), m]);
        }
        for (const [leader, members] of byEvent) {
          const size = v.spec(leader).event!.size;
          expect(members).toHaveLength(size);
          expect(new Set(members.map((m) => m.endDate!.getTime())).size).toBe(1);
          if (members[0]!.status !== 'active') continue;
          events += 1;
          // The YES mids sum to 1 to the tick (half a tick of rounding each); bids sum to at most 1 and asks to at least 1.
          const sumMid = members.reduce((s, m) => s + mid(m), 0);
          expect(Math.abs(sumMid - 1)).toBeLessThanOrEqual(0.0005 * size + 1e-9);
          const sumBid = members.reduce((s, m) => s + Number(m.tokens[0].bidMicro) / 1e6, 0);
          const sumAsk = members.reduce((s, m) => s + Number(m.tokens[0].askMicro) / 1e6, 0);
          expect(sumBid).toBeLessThanOrEqual(1 + 1e-9);
          expect(sumAsk).toBeGreaterThanOrEqual(1 - 1e-9);
        }
      }),
      { numRuns: 16 },
    );
    expect(events).toBeGreaterThan(12);
  });

  test('when any seed is listed at any moment, then every dated question follows the real calendar and its date is its close', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(seeds, times, async (seed, t) => {
        const v = venue(seed, t);
        for (const m of (await v.listMarkets()).markets) {
          const end = m.endDate!;
          const day = Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate());
          const endDate = `${MONTHS[end.getUTCMonth()]} ${end.getUTCDate()}, ${end.getUTCFullYear()}`;
          // Every date a question names is the day it closes.
          for (const date of m.question.match(DATE) ?? []) expect(date).toBe(endDate);
          for (const [name, re, occasion] of OCCASIONS) {
            if (!re.test(m.question)) continue;
            seen.add(name);
            const start = occasion(day);
            // The occasion falls on the question's date, and the market closes no later than it begins.
            expect([name, start === null ? null : 'on its date']).toEqual([name, 'on its date']);
            expect(end.getTime()).toBeLessThanOrEqual(start!);
            expect(end.getTime()).toBeGreaterThan(start! - 12 * 3_600_000);
          }
        }
      }),
      // Moments when the yearly occasions are listed: before Eurovision 2025, the Super Bowl and the Oscars of 2026.
      {
        numRuns: 16,
        examples: [
          [11, Date.UTC(2025, 3, 20)],
          [12, Date.UTC(2026, 0, 10)],
          [13, Date.UTC(2026, 2, 1)],
        ],
      },
    );
    // The sample reaches the yearly occasions, the seasons and the dated releases.
    for (const name of ['eurovision', 'super bowl', 'best picture', 'nba best record', 'league leader', 'stock close', 'box office', 'fed'])
      expect([...seen]).toContain(name);
  });

  test('when events resolve, then exactly one member of each wins (or the whole event is void)', () => {
    const v = venue(42, SIM_EPOCH_MS + 900 * DAY);
    let checked = 0;
    for (let k = 0; k < 6000; k++) {
      const spec = v.spec(k);
      if (!spec.event || spec.event.index !== 0) continue;
      const winners = v.membersOf(spec).map((m) => v.winnerOf(m));
      if (winners.includes('VOID')) expect(new Set(winners)).toEqual(new Set(['VOID']));
      else expect(winners.filter((w) => w === 'YES')).toHaveLength(1);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(50);
  });

  test('when the markets open at a moment are counted by time to close, then days, weeks and months each hold a good share', async () => {
    for (const seed of [1, 2, 3]) {
      const t = SIM_EPOCH_MS + (400 + 100 * seed) * DAY;
      const { markets } = await venue(seed, t).listMarkets();
      const left = markets.filter((m) => m.status === 'active').map((m) => (m.endDate!.getTime() - t) / DAY);
      const share = (lo: number, hi: number) => left.filter((d) => d >= lo && d < hi).length / left.length;
      expect(share(0, 2)).toBeGreaterThan(0.03);
      expect(share(2, 14)).toBeGreaterThan(0.1);
      expect(share(14, 60)).toBeGreaterThan(0.2);
      expect(share(60, Infinity)).toBeGreaterThan(0.2);
    }
  });
});
