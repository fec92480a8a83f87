import { priceKey, type VenueTruth } from './venue-truth';
import type { SimMarketSpec } from '../../src/market-data/simulated/catalog';

/** One thing an answer showed that the run's clock had not reached. */
export interface Leak {
  method: string;
  /** Where in the answer: `markets[].yesPrice`, with array places folded to []. */
  field: string;
  value: unknown;
  why: string;
}

/** What one scanned answer held: its leaks, and how many stamps and prices were checked against the clock and the venue. */
export interface Scanned {
  leaks: Leak[];
  stamps: number;
  prices: number;
  /** Prices of a known market that match no price of its path at the answer's moment nor a later one (fills, averages), by field. */
  unexplained: string[];
  /**
   * Prices shown at the clock that already lean toward news not yet published (VenueTruth.midWithoutLaterNews): kept
   * apart from the leaks: they come from the venue's price path itself, not from what a read lets through. suite-v1's
   * and suite-v2's paths lean (NewsInPrice 'step-end', kept so they replay what they pinned); suite-v3's and every
   * other venue's do not.
   */
  ahead: Leak[];
}

/**
 * Times an answer may hold beyond the run's clock, by field name, each for its reason: what the catalog schedules in
 * advance (and publishes with the market), and what the caller itself set. Every other time must be at or before the
 * clock. A scheduled market time is also checked against the venue's catalog (scheduleOf).
 */
export const FUTURE_FIELDS: Readonly<Record<string, string>> = {
  endDate: 'a market’s scheduled end, published with it by the catalog',
  endAt: 'the run’s window end, set by its scenario at start',
  revealAt: 'when a sealed scope’s secret is to be revealed: a schedule published with its commitment (get_venue_commitments)',
};

/**
 * Times on the wall clock rather than the run's, by method and field, each with its reason: when the run was made, and
 * when a rate-limit window ends (a run's limits count real minutes). They tell the wall date, nothing of what the
 * venue does later (a simulated venue's path is sealed; a mirror run carries its leakage warning whatever the date).
 */
export const WALL_FIELDS: Readonly<Record<string, string>> = {
  'get_replay createdAt': 'the run’s creation, on the wall clock',
  'list_replays runs[].createdAt': 'each run’s creation, on the wall clock',
  'advance_replay createdAt': 'the run’s creation, on the wall clock',
  'start_replay createdAt': 'the run’s creation, on the wall clock',
  'whoami limits[].resetsAt': 'when a rate-limit window ends: limits count real minutes, in a run too',
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const MARKET_ID = /^sim-\d+$/;
const NEWS_ID = /^news-sim-\d+-\d+$/;
const TOKEN_ID = /^\d{77}$/;
/** Fields holding a price of a market (a probability 0..1 of one side), by name; never a forecast's probability (the agent's own). */
const PRICE_FIELD = /^(yesPrice|noPrice|price|currentPrice|lastTradePrice|bid|ask|mid|bestBid|bestAsk|marketPrice|p)$/;
/** Fields holding a stamp of their object: prices of the object are judged at it (a fill's price at the fill's time). */
const STAMP_FIELD = ['executedAt', 'createdAt', 'filledAt', 'at', 'publishedAt', 'asOf', 'timestamp'];

interface Where {
  spec: SimMarketSpec | null;
  outcome: 'YES' | 'NO' | null;
  /** The object's own time (ms), or null: its prices are the market's at the clock. */
  stampMs: number | null;
}

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** Number fields named as times (price history's { t, p } in seconds; anything …At, …Ms, time, timestamp). */
const TIME_NUMBER = /^(t|ts)$|time|Time|timestamp|At$|Ms$/;

const timeOf = (v: unknown, key: string): number | null => {
  if (typeof v === 'string' && ISO.test(v)) return Date.parse(v);
  // A day (a daily point's date) has begun at its midnight, UTC.
  if (typeof v === 'string' && DAY_ONLY.test(v)) return Date.parse(`${v}T00:00:00Z`);
  // Seconds or milliseconds since the epoch, told apart by size (1e11 s is the year 5138).
  if (typeof v === 'number' && TIME_NUMBER.test(key) && v > 1e9) return v < 1e11 ? v * 1000 : v;
  return null;
};

/**
 * Scans one answer of `method`, given at `clockMs` of the run, against the clock and the venue: every time-like value
 * is at or before the clock (or a scheduled field, matching the catalog); every market, token and news item it names
 * existed by then; no market is shown resolved (or closed) before its time; and every price of a known market is the
 * path's at the answer's moment, or at least none the path reaches only later (a later price, not the current one).
 */
export function scanAnswer(method: string, answer: unknown, clockMs: number, venue: VenueTruth, syncs: readonly number[] = [clockMs]): Scanned {
  const lastSyncMs = syncs.filter((t) => t <= clockMs).reduce((a, b) => Math.max(a, b), -Infinity);
  // A sparkline's hourly points are the snapshots of the syncs of the last day, its oldest the last one at or before a day
  // ago (src/market-data/market-moves.ts).
  const dayAgo = clockMs - 24 * 3_600_000;
  const before = syncs.filter((t) => t <= dayAgo).reduce((a, b) => Math.max(a, b), -Infinity);
  const lastDay = syncs.filter((t) => t <= clockMs && t >= Math.min(before, dayAgo));
  const out: Scanned = { leaks: [], stamps: 0, prices: 0, unexplained: [], ahead: [] };
  const leansAhead = new Map<number, { shown: string; fromPublished: string } | null>();
  const leak = (field: string, value: unknown, why: string) => out.leaks.push({ method, field, value, why });

  const checkId = (field: string, v: string) => {
    if (v.toLowerCase() === venue.secretHex) return leak(field, '(the secret)', 'reveals the secret the run’s venue is sealed under: its whole future');
    if (MARKET_ID.test(v) || TOKEN_ID.test(v)) {
      const spec = venue.marketOf(v);
      if (spec && spec.createdAtMs > clockMs) leak(field, v, `names a market listed only at ${new Date(spec.createdAtMs).toISOString()}`);
    } else if (NEWS_ID.test(v)) {
      const t = venue.newsTime(v);
      if (t !== null && t > clockMs) leak(field, v, `names a news item published at ${new Date(t).toISOString()}`);
    }
  };

  const checkPrice = (field: string, v: number, where: Where, history: boolean, sparkline = false) => {
    if (!where.spec) return;
    out.prices += 1;
    const spec = where.spec;
    const p = priceKey(v);
    if (history && where.stampMs !== null && where.outcome) {
      // A history point is the side's price at its own time, exactly.
      const at = venue.pointAt(spec, where.outcome, where.stampMs);
      if (at !== null && priceKey(at) !== p) {
        if (venue.laterPrices(spec, clockMs).has(p)) leak(field, v, `is a later price of ${spec.id}: the path is ${priceKey(at)} at the point's time`);
        else out.unexplained.push(field);
      }
      return;
    }
    // A book's deeper levels are its own prices (a cent apart from the best), shown by nothing else.
    const depth = /(^|\.)(bids|asks)\[\]/.test(field);
    const moments = sparkline
      ? [clockMs, ...lastDay]
      : [clockMs, ...(Number.isFinite(lastSyncMs) ? [lastSyncMs] : []), ...(where.stampMs !== null ? [where.stampMs] : [])];
    if (moments.some((t) => venue.pricesAt(spec, t, depth).has(p))) {
      if (!sparkline && where.stampMs === null && where.outcome !== 'NO') {
        if (!leansAhead.has(spec.k)) leansAhead.set(spec.k, venue.midWithoutLaterNews(spec, clockMs));
        const lean = leansAhead.get(spec.k);
        if (lean && lean.shown === p) {
          out.ahead.push({ method, field, value: v, why: `${spec.id}'s mid leans toward news not yet published: ${lean.fromPublished} from the news so far` });
        }
      }
      return;
    }
    if (venue.laterPrices(spec, clockMs).has(p)) {
      leak(field, v, `is a later price of ${spec.id}, not one it shows at the clock`);
    } else out.unexplained.push(field);
  };

  const checkState = (field: string, o: Record<string, unknown>, spec: SimMarketSpec) => {
    const resolved = o.status === 'resolved' || (o.winner !== undefined && o.winner !== null) || (o.resolution !== undefined && o.resolution !== null);
    if (resolved && spec.resolveAtMs > clockMs)
      leak(field, o.winner ?? o.resolution ?? o.status, `shows ${spec.id} resolved before its resolution at ${new Date(spec.resolveAtMs).toISOString()}`);
    if (o.status === 'closed' && spec.endAtMs > clockMs)
      leak(`${field}.status`, o.status, `shows ${spec.id} closed before its end at ${new Date(spec.endAtMs).toISOString()}`);
  };

  const walk = (v: unknown, path: string, key: string, where: Where, history: boolean) => {
    if (Array.isArray(v)) {
      // A sparkline (the last day's hourly prices), or prices by outcome, or the mids a forecast was stated against (at
      // its own time): numbers in a row, each a price of the market.
      v.forEach((x, i) => {
        if (typeof x === 'number' && /price|sparkline|mids/i.test(key))
          checkPrice(`${path}[]`, x, key === 'sparkline' ? { ...where, stampMs: null } : where, false, key === 'sparkline');
        else
          walk(
            x,
            `${path}[]`,
            key,
            key === 'outcomeTokens' || key === 'tokens' ? { ...where, outcome: i === 0 ? 'YES' : 'NO' } : where,
            history || key === 'history' || key === 'points',
          );
      });
      return;
    }
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const here: Where = { ...where };
      const ref = [o.marketId, o.id, o.tokenId].find((x) => typeof x === 'string' && venue.marketOf(x) !== null) as string | undefined;
      if (ref) here.spec = venue.marketOf(ref);
      if (typeof o.tokenId === 'string') here.outcome = venue.tokenOf(o.tokenId)?.outcome ?? here.outcome;
      if (o.outcome === 'YES' || o.outcome === 'NO') here.outcome = o.outcome;
      const stamp = STAMP_FIELD.map((f) => timeOf(o[f], f)).find((t) => t !== null) ?? (typeof o.t === 'number' ? timeOf(o.t, 't') : null);
      if (stamp !== null && stamp !== undefined) here.stampMs = stamp;
      if (here.spec && ref) checkState(path || '(answer)', o, here.spec);
      // An order event's `fill` happened when the order last changed (its updatedAt), not when it was placed (createdAt):
      // a resting order fills at a later step, at the book of that moment.
      const fillAt = timeOf(o.updatedAt, 'updatedAt');
      for (const [k, x] of Object.entries(o))
        walk(x, path ? `${path}.${k}` : k, k, k === 'fill' && fillAt !== null && fillAt !== undefined ? { ...here, stampMs: fillAt } : here, history);
      return;
    }
    const field = path || '(answer)';
    const t = timeOf(v, key);
    if (t !== null) {
      out.stamps += 1;
      if (t > clockMs) {
        if (key in FUTURE_FIELDS) checkSchedule(field, key, t, where);
        else if (!(`${method} ${field}` in WALL_FIELDS))
          leak(field, v, `is stamped ${new Date(t).toISOString()}, after the run’s clock ${new Date(clockMs).toISOString()}`);
      }
      return;
    }
    if (typeof v === 'string') checkId(field, v);
    else if (typeof v === 'number' && PRICE_FIELD.test(key) && v >= 0 && v <= 1) checkPrice(field, v, where, history);
  };

  const checkSchedule = (field: string, key: string, t: number, where: Where) => {
    // A market's end is public from its listing: the catalog's, to the second.
    if (key === 'endDate' && where.spec && Math.abs(where.spec.endAtMs - t) > 1000)
      leak(field, new Date(t).toISOString(), `is not ${where.spec.id}'s scheduled end`);
  };

  walk(answer, '', '', { spec: null, outcome: null, stampMs: null }, false);
  return out;
}
