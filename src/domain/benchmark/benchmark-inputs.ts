import type { Queryable } from '../../db/database';
import { MICRO } from '../money/micro';
import type { ResolvedQuestion } from './forecast-scores';
import { HORIZONS, type QuestionContext } from './life-scores';
import type { EquityDay, KellyBuy } from './risk-scores';
import { OPEN_POSITION_VALUES } from '../portfolio/holdings-value';
import { cashMovesSql } from '../ledger/transfers';
import { resolvedMarketsCte } from './resolved-markets';
import { seasonRange, type Season } from './seasons';
import type { TimedBuy } from './timing-scores';

/**
 * What one account's benchmark record is scored from, read from the books as they stand: its stated forecasts on markets
 * resolved in the season, its buys on those markets with the bought token's price at +1 h, +24 h and at the close, its
 * daily equity and the cash that came in from outside. Community markets are never scored (resolved-markets.ts).
 */
export interface BenchmarkInputs {
  questions: ResolvedQuestion[];
  /** Per stated-forecast market: everyone else's forecasts on it and the market's mid at each horizon before its close (life-scores.ts). */
  contexts: Record<string, QuestionContext>;
  /** Each scored market's category (its venue's; 'Uncategorized' when it has none). */
  categories: Record<string, string>;
  /** Buys on resolved markets the account stated no forecast on, as forecasts at the entry price (today's reputation basis). */
  entryQuestions: ResolvedQuestion[];
  buys: TimedBuy[];
  kellyBuys: KellyBuy[];
  startEquity: number;
  days: EquityDay[];
  positions: number[];
}

/**
 * The venue's own price of a token at an instant (its price path), when the venue can say: null when it has no price
 * then, undefined when it cannot answer (then the mirror's snapshots serve). Issue 49 item 3: timing taken from the
 * snapshots of a replay depended on when the agent stepped (each step is a sync); the path does not.
 */
export type PricePath = (tokenId: string, atMs: number) => Promise<number | null | undefined>;

/** The offsets of the timing horizons after a buy, and the close read a second before it (the last price trading). */
const HOUR_MS = 3_600_000;
const CLOSE_LEAD_MS = 1000;

const ms = (d: Date | string) => new Date(d).getTime();
const p = (m: string | bigint | number | null): number | null => (m === null ? null : Number(m) / Number(MICRO));

/** The resolved markets an account's record can score: `$1` the account, `$2`/`$3` the season's range. */
const RESOLVED = resolvedMarketsCte({ from: '$2', to: '$3' }, '$1');

const FORECASTS_SQL = `WITH ${RESOLVED}
  SELECT r.market_id, r.kind, r.winner, r.closed_at, r.category, f.created_at, f.probabilities_micro, f.mids_micro
  FROM resolved r JOIN forecasts f ON f.user_id = $1 AND f.market_id = r.market_id
  ORDER BY r.market_id, f.seq`;

/**
 * Every other account's forecasts on the markets the account stated one on (peer scores: references included), as one
 * JSON text: `[market, forecaster, reference, stated at (ms), probabilities (micro)]` each. At scale these are most of a
 * record's rows (some 200 forecasters a market at 100,000 accounts: 2,000 rows for ten questions), and parsing them,
 * building them and cloning them to the scoring thread held the event loop (issue 52 item 1); as one text they cross to
 * the thread as one string and are built there (withOthers). The instant is the driver's own reading of the timestamp
 * (its whole milliseconds), so the records are those the rows gave.
 */
const OTHERS_SQL = `WITH ${RESOLVED}
  SELECT coalesce(json_agg(json_build_array(f.market_id, f.user_id, u.reference, floor(extract(epoch FROM f.created_at) * 1000)::bigint, f.probabilities_micro)
    ORDER BY f.market_id, f.created_at, f.user_id, f.seq), '[]')::text AS others
  FROM resolved r JOIN forecasts f ON f.market_id = r.market_id AND f.user_id <> $1 JOIN users u ON u.id = f.user_id
  WHERE EXISTS (SELECT 1 FROM forecasts g WHERE g.user_id = $1 AND g.market_id = r.market_id)`;

/** The YES token's last snapshot at each horizon before the close, on the markets the account stated a forecast on. */
const HORIZONS_SQL = `WITH ${RESOLVED}
  SELECT r.market_id, t.token_id, r.closed_at, ${HORIZONS.map(
    (h, i) => `(SELECT s.price_micro FROM price_snapshots s WHERE s.token_id = t.token_id AND s.t <= r.closed_at - interval '${h.ms / 1000} seconds'
      ORDER BY s.t DESC LIMIT 1) AS h${i}`,
  ).join(', ')}
  FROM resolved r JOIN market_tokens t ON t.market_id = r.market_id AND t.outcome = 'YES'
  WHERE EXISTS (SELECT 1 FROM forecasts g WHERE g.user_id = $1 AND g.market_id = r.market_id)`;

/** The price in force of a token at an instant: its last snapshot at or before it (mirrored or community). */
const priceAt = (at: string) => `(
  SELECT x.price_micro FROM (
    (SELECT s.t, s.price_micro FROM price_snapshots s WHERE s.token_id = t.token_id AND s.t <= ${at} ORDER BY s.t DESC LIMIT 1)
    UNION ALL
    (SELECT s.t, s.price_micro FROM community_price_points s WHERE s.token_id = t.token_id AND s.t <= ${at} ORDER BY s.t DESC, s.id DESC LIMIT 1)
  ) x ORDER BY x.t DESC LIMIT 1)`;

/**
 * Every buy on a resolved market of the season: its cost and price, the token's price at +1 h and +24 h (when that is
 * before the close) and at the close, the outcome bought (its index among the market's outcomes: YES 0 and NO 1 of a
 * mirrored market), the account's forecast in force when it filled, and its equity at the last snapshot before. By market
 * id in code-point order whatever the database's collation: the timing intervals resample markets in this order, so
 * the same buys give the same interval anywhere (and from the export: scripts/recompute-benchmark.ts).
 */
const BUYS_SQL = `WITH ${RESOLVED}
  SELECT r.market_id, r.kind, r.winner, r.closed_at, r.outcomes, t.token_id, t.created_at, -t.cash_micro AS cost_micro, t.price_micro,
    CASE WHEN r.kind = 'binary' THEN (CASE pos.outcome WHEN 'YES' THEN 0 ELSE 1 END) ELSE o.idx END AS bought,
    CASE WHEN t.created_at + interval '1 hour' <= r.closed_at THEN ${priceAt(`t.created_at + interval '1 hour'`)} END AS after_1h,
    CASE WHEN t.created_at + interval '24 hours' <= r.closed_at THEN ${priceAt(`t.created_at + interval '24 hours'`)} END AS after_24h,
    CASE WHEN t.created_at < r.closed_at THEN ${priceAt('r.closed_at')} END AS at_close,
    (SELECT f.probabilities_micro FROM forecasts f WHERE f.user_id = $1 AND f.market_id = t.market_id AND f.created_at <= t.created_at
      ORDER BY f.seq DESC LIMIT 1) AS forecast_micro,
    (SELECT ps.cash_micro + ps.positions_value_micro FROM portfolio_snapshots ps WHERE ps.user_id = $1 AND ps.bucket <= t.created_at
      ORDER BY ps.bucket DESC LIMIT 1) AS equity_before_micro
  FROM resolved r JOIN trades t ON t.user_id = $1 AND t.market_id = r.market_id AND t.side = 'BUY'
    JOIN positions pos ON pos.id = t.position_id
    LEFT JOIN community_outcomes o ON o.token_id = t.token_id
  ORDER BY r.market_id COLLATE "C", t.created_at, t.id`;

/** Cash from outside the account's trading (grants, rewards, a pool's funding and return): flows, not returns. */
const FLOW_KINDS = `('grant', 'challenge_reward', 'pool_fund', 'pool_return')`;

/**
 * An account's equity by UTC day: each day's last snapshot in the range with the day's flows into (+) and out of (−)
 * its cash, from its transfers (ledger cashMovesSql). `user` an SQL expression of the account's id, `from` and `to` of
 * the range (a null `from`: all time). Rows: day (text), equity_micro, flow_micro; `d.day` orders them.
 */
export const equityDaysSql = (user: string, from: string, to: string) => `
  WITH d AS (
    SELECT DISTINCT ON (bucket::date) (bucket AT TIME ZONE 'UTC')::date AS day, cash_micro + positions_value_micro AS equity_micro
    FROM portfolio_snapshots WHERE user_id = ${user} AND (${from}::timestamptz IS NULL OR (bucket >= ${from} AND bucket < ${to}))
    ORDER BY bucket::date, bucket DESC
  ), f AS (
    SELECT (c.created_at AT TIME ZONE 'UTC')::date AS day, sum(c.amount_micro) AS flow_micro FROM (${cashMovesSql(`${user}::text`)}) c
    WHERE c.kind IN ${FLOW_KINDS} AND (${from}::timestamptz IS NULL OR (c.created_at >= ${from} AND c.created_at < ${to}))
    GROUP BY 1
  )
  SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.equity_micro, coalesce(f.flow_micro, 0) AS flow_micro FROM d LEFT JOIN f ON f.day = d.day`;

/** The last snapshot of each UTC day in the range, with the day's flows; and the equity before the range starts. */
const DAYS_SQL = `${equityDaysSql('$1', '$2', '$3')} ORDER BY d.day`;

const START_SQL = `SELECT cash_micro + positions_value_micro AS before_micro FROM portfolio_snapshots WHERE user_id = $1 AND bucket < $2 ORDER BY bucket DESC LIMIT 1`;

/** Open positions, mirrored and community, valued as get_portfolio values them (holdings-value.ts). */
const POSITIONS_SQL = `SELECT v.value_micro FROM (${OPEN_POSITION_VALUES}) v WHERE v.user_id = $1 AND v.quantity_micro > 0`;

interface ForecastRow {
  market_id: string;
  category: string;
  kind: 'binary' | 'categorical';
  winner: number | null;
  closed_at: Date;
  created_at: Date;
  probabilities_micro: Array<string | bigint>;
  mids_micro: Array<string | bigint | null>;
}

interface BuyRow {
  market_id: string;
  kind: 'binary' | 'categorical';
  winner: number | null;
  closed_at: Date;
  outcomes: number;
  token_id: string;
  created_at: Date;
  cost_micro: string | bigint;
  price_micro: string | bigint;
  bought: number;
  after_1h: string | bigint | null;
  after_24h: string | bigint | null;
  at_close: string | bigint | null;
  forecast_micro: Array<string | bigint> | null;
  equity_before_micro: string | bigint | null;
}

/** A stated probability vector of one outcome `i`: a mirrored forecast is P(YES), so NO's is its complement. */
function probabilityOf(kind: 'binary' | 'categorical', probabilities: number[], i: number): number {
  return kind === 'binary' ? (i === 0 ? probabilities[0]! : 1 - probabilities[0]!) : probabilities[i]!;
}

/** A buy at `price` of outcome `i` read as a forecast (the entry-price basis): the price of what was bought, the rest shared evenly. */
function entryForecast(kind: 'binary' | 'categorical', outcomes: number, i: number, price: number): number[] {
  if (kind === 'binary') return [i === 0 ? price : 1 - price];
  return Array.from({ length: outcomes }, (_, k) => (k === i ? price : (1 - price) / (outcomes - 1)));
}

/**
 * A buy's prices at +1 h, +24 h (each only when before the close) and at the close (only for a buy before it), from the
 * venue's price path at those fixed offsets; a horizon the path cannot answer keeps the snapshots' figure.
 */
async function fromPath(path: PricePath, b: BuyRow): Promise<Pick<TimedBuy, 'after1h' | 'after24h' | 'atClose'>> {
  const at = ms(b.created_at);
  const close = ms(b.closed_at);
  const read = async (t: number, applies: boolean, fallback: number | null) => {
    if (!applies) return null;
    const v = await path(b.token_id, t);
    return v === undefined ? fallback : v;
  };
  return {
    after1h: await read(at + HOUR_MS, at + HOUR_MS <= close, p(b.after_1h)),
    after24h: await read(at + 24 * HOUR_MS, at + 24 * HOUR_MS <= close, p(b.after_24h)),
    atClose: await read(Math.max(at, close - CLOSE_LEAD_MS), at < close, p(b.at_close)),
  };
}

/**
 * One account's inputs as read: whole but for everyone else's forecasts, which are still the database's JSON text
 * (OTHERS_SQL); withOthers adds them where the record is scored.
 */
export interface InputsAsRead {
  inputs: BenchmarkInputs;
  othersJson: string;
}

/**
 * Reads one account's inputs for a season. `current` says whether the season includes today (then open positions count
 * for exposure); `path`, the venue's own price path, sets the timing horizons when the venue has one (a simulated venue).
 */
export async function readInputs(db: Queryable, userId: string, season: Season, current: boolean, path?: PricePath): Promise<InputsAsRead> {
  const range = seasonRange(season);
  const params = [userId, range?.from ?? null, range?.to ?? null];
  const [forecastRows, othersRows, horizonRows, buyRows, dayRows, startRows, positionRows] = await Promise.all([
    db.query<ForecastRow>(FORECASTS_SQL, params),
    db.query<{ others: string }>(OTHERS_SQL, params),
    db.query<Record<string, string | bigint | null> & { market_id: string; token_id: string; closed_at: Date }>(HORIZONS_SQL, params),
    db.query<BuyRow>(BUYS_SQL, params),
    db.query<{ day: string; equity_micro: string | bigint; flow_micro: string | bigint }>(DAYS_SQL, params),
    range ? db.query<{ before_micro: string | bigint }>(START_SQL, [userId, range.from]) : Promise.resolve([]),
    current ? db.query<{ value_micro: string | bigint }>(POSITIONS_SQL, [userId]) : Promise.resolve([]),
  ]);

  const questions = new Map<string, ResolvedQuestion>();
  const categories: Record<string, string> = {};
  for (const r of forecastRows) {
    categories[r.market_id] = r.category;
    let q = questions.get(r.market_id);
    if (!q) questions.set(r.market_id, (q = { marketId: r.market_id, kind: r.kind, winner: r.winner, closedAt: ms(r.closed_at), points: [] }));
    q.points.push({ t: ms(r.created_at), probabilities: r.probabilities_micro.map((x) => p(x)!), mids: r.mids_micro.map(p) });
  }

  const contexts: Record<string, QuestionContext> = {};
  for (const r of horizonRows) {
    const c = contextOf(contexts, r.market_id);
    for (let i = 0; i < HORIZONS.length; i++) {
      // The venue's own path, when it has one, as for the timing horizons; else the mirror's snapshots.
      const fromPath = path ? await path(r.token_id, ms(r.closed_at) - HORIZONS[i]!.ms) : undefined;
      c.horizonMids[i] = fromPath === undefined ? p(r[`h${i}`] ?? null) : fromPath;
    }
  }

  const entry = new Map<string, ResolvedQuestion>();
  const buys: TimedBuy[] = [];
  const kellyBuys: KellyBuy[] = [];
  for (const b of buyRows) {
    const price = p(b.price_micro)!;
    const cost = p(b.cost_micro)!;
    const later = path ? await fromPath(path, b) : { after1h: p(b.after_1h), after24h: p(b.after_24h), atClose: p(b.at_close) };
    buys.push({ marketId: b.market_id, cost, price, ...later });
    if (b.forecast_micro && b.equity_before_micro !== null && Number(b.equity_before_micro) > 0)
      kellyBuys.push({
        cost,
        price,
        equityBefore: p(b.equity_before_micro)!,
        forecast: probabilityOf(
          b.kind,
          b.forecast_micro.map((x) => p(x)!),
          b.bought,
        ),
      });
    if (questions.has(b.market_id)) continue;
    let q = entry.get(b.market_id);
    if (!q) entry.set(b.market_id, (q = { marketId: b.market_id, kind: b.kind, winner: b.winner, closedAt: ms(b.closed_at), points: [] }));
    const probabilities = entryForecast(b.kind, b.outcomes, b.bought, price);
    q.points.push({ t: ms(b.created_at), probabilities, mids: probabilities });
  }

  // The series starts at the last equity before the season; without one (a new account, or 'all'), at its first day's end.
  const days = dayRows.map((d) => ({ day: d.day, equity: p(d.equity_micro)!, flow: p(d.flow_micro)! }));
  const before = startRows[0];
  const startEquity = before ? p(before.before_micro)! : (days.shift()?.equity ?? 0);
  const inputs: BenchmarkInputs = {
    // By market id in code-point order, whatever the database's collation: the bootstrap's resamples follow this order,
    // so the same record gives the same interval anywhere (and from the export: scripts/recompute-benchmark.ts).
    questions: [...questions.values()].sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0)),
    contexts,
    categories,
    entryQuestions: [...entry.values()],
    buys,
    kellyBuys,
    startEquity,
    days,
    positions: positionRows.map((r) => p(r.value_micro)!),
  };
  return { inputs, othersJson: othersRows[0]?.others ?? '[]' };
}

/** A market's context in `contexts`, made empty on first use. */
function contextOf(contexts: Record<string, QuestionContext>, marketId: string): QuestionContext {
  return (contexts[marketId] ??= { others: [], horizonMids: HORIZONS.map(() => null) });
}

/** OTHERS_SQL's row, as its JSON text holds it. */
type OtherForecastJson = [marketId: string, forecaster: string, reference: string | null, t: number, probabilitiesMicro: number[]];

/** The inputs made whole: everyone else's forecasts from their JSON text (readInputs) added to the contexts, in the text's order. */
export function withOthers(inputs: BenchmarkInputs, othersJson: string): BenchmarkInputs {
  for (const [marketId, forecaster, reference, t, probabilities] of JSON.parse(othersJson) as OtherForecastJson[])
    contextOf(inputs.contexts, marketId).others.push({ forecaster, reference, t, probabilities: probabilities.map((x) => p(x)!) });
  return inputs;
}
