import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { decodeCursor, encodeCursor } from '../../db/keyset-cursor';
import type { Alongside } from '../trading/trade-path';
import { AppError } from '../../errors/app-error';
import { marketFacts } from '../trading/market-facts';
import { fromMicro, type Micro } from '../money/micro';
import {
  payloadAround,
  rationaleOf,
  statedProbabilities,
  type ForecastFacts,
  type ForecastRecord,
  type ForecastSource,
  type ForecastVenue,
} from './forecast-rules';

/** A step run inside a trade's transaction before it commits (the trade services' beforeCommit, an idempotent call's completion). */
export type InTransaction = (tx: Queryable, result: unknown) => Promise<void>;

export interface Stated {
  probability?: number;
  probabilities?: number[];
  rationale?: string;
}

export interface ForecastView {
  id: string;
  userId: string;
  seq: number;
  marketId: string;
  venue: ForecastVenue;
  source: ForecastSource;
  probability: number | null;
  probabilities: number[];
  mids: Array<number | null>;
  rationale: string | null;
  createdAt: string;
  current: boolean;
  marketClosed: boolean;
  prevHash: string | null;
  hash: string;
}

export interface ChainHead {
  userId: string;
  head: string | null;
  length: number;
}

interface ForecastRow {
  id: string;
  user_id: string;
  seq: number;
  market_id: string;
  venue: ForecastVenue;
  source: ForecastSource;
  probabilities_micro: Array<string | bigint>;
  mids_micro: Array<string | bigint | null>;
  rationale: string | null;
  created_at: Date;
  prev_hash: string | null;
  hash: string;
  current?: boolean;
  closed?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SEQ_TEXT = /^\d{1,10}$/;
const SORT = 'seq';

/** The market's open flag and mid price(s) at this instant, as an integer array and as its canonical JSON text. */
const MIDS: Record<ForecastVenue, string> = {
  mirrored: `SELECT mk.status = 'active' AS open, ARRAY[t.price_micro] AS mids, '[' || coalesce(t.price_micro::text, 'null') || ']' AS mids_json
    FROM markets mk LEFT JOIN market_tokens t ON t.market_id = mk.id AND t.outcome = 'YES' WHERE mk.id = $3`,
  community: `SELECT c.status = 'active' AND c.end_date > $8 AS open, array_agg(o.price_micro ORDER BY o.idx) AS mids,
      '[' || string_agg(coalesce(o.price_micro::text, 'null'), ',' ORDER BY o.idx) || ']' AS mids_json
    FROM community_markets c JOIN community_outcomes o ON o.market_id = c.id WHERE c.id = $3::text::uuid GROUP BY c.id`,
};

/**
 * One statement records a forecast: the account's chain head (the caller holds the account row, so no other forecast of
 * the account can slip in between), the market's mids, and the record with its hash, taken in SQL over the canonical
 * payload the caller built around the three chain fields (payloadAround). Nothing is inserted when the market is not
 * open or the probabilities do not match its outcomes.
 */
const insertSql = (venue: ForecastVenue) => `
  WITH m AS (${MIDS[venue]}),
  h AS (SELECT hash, seq FROM forecasts WHERE user_id = $2 ORDER BY seq DESC LIMIT 1),
  x AS (SELECT m.mids, m.mids_json, h.hash AS prev, coalesce(h.seq, 0) + 1 AS seq FROM m LEFT JOIN h ON true
        WHERE m.open AND cardinality(m.mids) = cardinality($6::bigint[]))
  INSERT INTO forecasts (id, user_id, seq, market_id, venue, source, probabilities_micro, mids_micro, rationale, created_at, prev_hash, hash)
  SELECT $1, $2, x.seq, $3, $4, $5, $6::bigint[], x.mids, $7, $8, x.prev,
    encode(sha256(convert_to($9::text || x.mids_json || $10::text || coalesce('"' || x.prev || '"', 'null') || $11::text || x.seq::text || $12::text, 'UTF8')), 'hex')
  FROM x RETURNING *`;

const CLOSED = `(mk.status IS NOT NULL AND mk.status <> 'active') OR (c.status IS NOT NULL AND (c.status <> 'active' OR c.end_date <= $2))`;

const micro = (v: string | bigint): Micro => BigInt(v);

function toRecord(r: ForecastRow): ForecastRecord {
  return {
    id: r.id,
    userId: r.user_id,
    marketId: r.market_id,
    venue: r.venue,
    source: r.source,
    probabilitiesMicro: r.probabilities_micro.map(micro),
    rationale: r.rationale,
    createdAt: new Date(r.created_at),
    seq: Number(r.seq),
    prevHash: r.prev_hash,
    midsMicro: r.mids_micro.map((m) => (m === null ? null : micro(m))),
    hash: r.hash,
  };
}

function toView(r: ForecastRow): ForecastView {
  const rec = toRecord(r);
  const probabilities = rec.probabilitiesMicro.map(fromMicro);
  return {
    id: rec.id,
    userId: rec.userId,
    seq: rec.seq,
    marketId: rec.marketId,
    venue: rec.venue,
    source: rec.source,
    probability: rec.venue === 'mirrored' ? probabilities[0]! : null,
    probabilities,
    mids: rec.midsMicro.map((m) => (m === null ? null : fromMicro(m))),
    rationale: rec.rationale,
    createdAt: rec.createdAt.toISOString(),
    current: r.current ?? true,
    marketClosed: r.closed ?? false,
    prevHash: rec.prevHash,
    hash: rec.hash,
  };
}

/**
 * Stated forecasts (issue 33): recorded alone (submit_forecast) or in a trade's own transaction (a trade that is refused
 * records nothing), stamped with the time and the market's mid(s), immutable, hash-chained per account. An account's
 * forecasts on a market that has not closed are its own: another account sees them only once the market closes.
 */
export class ForecastService {
  constructor(private readonly db: Database) {}

  /** submit_forecast: a forecast without a trade, on a market that is open. */
  async submit(userId: string, marketId: string, stated: Stated, now: Date, complete?: InTransaction): Promise<{ forecast: ForecastView; chain: ChainHead }> {
    const market = await marketFacts(this.db, marketId, now);
    if (!market) throw notFound(marketId);
    if (!market.open) throw closed();
    const probabilitiesMicro = statedProbabilities(market.venue, market.outcomes, stated);
    const facts = this.facts(userId, marketId, market.venue, 'stated', probabilitiesMicro, stated.rationale, now);
    return this.db.transaction(async (tx) => {
      // The account row orders an account's forecasts (a trade that carries one already holds it).
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
      const row = await this.insert(tx, facts);
      const result = { forecast: toView(row), chain: { userId, head: row.hash, length: Number(row.seq) } };
      if (complete) await complete(tx, result);
      return result;
    });
  }

  /**
   * The step a trade runs before it commits when it carries a forecast: the forecast is recorded in the trade's
   * transaction (one statement; the trade holds the account row), then `next`. Without a forecast, `next` itself, so
   * the trade's path is unchanged. The probabilities are checked now, before anything trades; `marketOf` reads the
   * market from the trade's result (undefined: record nothing, as for a rejected order).
   */
  onTrade(
    userId: string,
    source: Exclude<ForecastSource, 'stated'>,
    stated: Stated | undefined,
    marketOf: (result: unknown) => string | undefined,
    now: Date,
    next?: InTransaction,
  ): InTransaction | undefined {
    if (!stated) return next;
    const venue: ForecastVenue = source === 'buy_community_shares' ? 'community' : 'mirrored';
    const probabilitiesMicro = statedProbabilities(venue, stated.probabilities?.length ?? 1, stated);
    return async (tx, result) => {
      const marketId = marketOf(result);
      if (marketId !== undefined) await this.insert(tx, this.facts(userId, marketId, venue, source, probabilitiesMicro, stated.rationale, now));
      if (next) await next(tx, result);
    };
  }

  /**
   * A trade's forecast when its market is known before it trades (paper_trade): the record's statement goes out with
   * the buy's (TradePath's alongside), not after its answer. Undefined without a forecast.
   */
  alongTrade(userId: string, source: 'paper_trade', stated: Stated | undefined, marketId: string, now: Date): Alongside | undefined {
    if (!stated) return undefined;
    const facts = this.facts(userId, marketId, 'mirrored', source, statedProbabilities('mirrored', 1, stated), stated.rationale, now);
    return async (tx) => {
      await this.insert(tx, facts);
    };
  }

  /**
   * An account's forecasts, newest first (by their place in the chain), with the chain's head. The caller's own are all
   * there; another account's only on markets that have closed.
   */
  async list(
    callerId: string,
    q: { userId?: string; marketId?: string; limit: number; cursor?: string },
    now: Date,
  ): Promise<{ forecasts: ForecastView[]; chain: ChainHead; nextCursor: string | null }> {
    const userId = q.userId ?? callerId;
    if (!UUID.test(userId)) throw new AppError('NOT_FOUND', `Account ${userId} not found.`);
    const params: unknown[] = [userId, now, q.limit + 1];
    const param = (v: unknown) => `$${params.push(v)}`;
    const where = ['f.user_id = $1'];
    if (userId !== callerId) where.push(`(${CLOSED})`);
    if (q.marketId !== undefined) where.push(`f.market_id = ${param(q.marketId)}`);
    if (q.cursor !== undefined) {
      const c = decodeCursor(q.cursor, SORT, (k) => SEQ_TEXT.test(k), 'Pass nextCursor from the previous page unchanged.');
      where.push(`f.seq < ${param(Number(c.k))}`);
    }
    const [rows, head] = await Promise.all([
      this.db.query<ForecastRow>(
        `SELECT f.*, ${CLOSED} AS closed,
           NOT EXISTS (SELECT 1 FROM forecasts g WHERE g.user_id = f.user_id AND g.market_id = f.market_id AND g.seq > f.seq) AS current
         FROM forecasts f LEFT JOIN markets mk ON f.venue = 'mirrored' AND mk.id = f.market_id
           LEFT JOIN community_markets c ON f.venue = 'community' AND c.id::text = f.market_id
         WHERE ${where.join(' AND ')} ORDER BY f.seq DESC LIMIT $3`,
        params,
      ),
      this.chainHead(userId),
    ]);
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      forecasts: page.map(toView),
      chain: head,
      nextCursor: rows.length > q.limit && last ? encodeCursor({ s: SORT, k: String(last.seq), i: last.id }) : null,
    };
  }

  /** Every record of an account's chain, oldest first (what verifyChain checks). */
  async chain(userId: string, q: Queryable = this.db): Promise<ForecastRecord[]> {
    const rows = await q.query<ForecastRow>('SELECT * FROM forecasts WHERE user_id = $1 ORDER BY seq', [userId]);
    return rows.map(toRecord);
  }

  private async chainHead(userId: string): Promise<ChainHead> {
    const rows = await this.db.query<{ hash: string; seq: number }>('SELECT hash, seq FROM forecasts WHERE user_id = $1 ORDER BY seq DESC LIMIT 1', [userId]);
    return { userId, head: rows[0]?.hash ?? null, length: rows[0] ? Number(rows[0].seq) : 0 };
  }

  private facts(
    userId: string,
    marketId: string,
    venue: ForecastVenue,
    source: ForecastSource,
    probabilitiesMicro: Micro[],
    rationale: string | undefined,
    now: Date,
  ): ForecastFacts {
    return { id: randomUUID(), userId, marketId, venue, source, probabilitiesMicro, rationale: rationaleOf(rationale), createdAt: now };
  }

  /** The record, in `tx` whose caller holds the account row; refused (nothing written) when the market cannot take it. */
  private async insert(tx: Queryable, f: ForecastFacts): Promise<ForecastRow> {
    const around = await payloadAround(f);
    const rows = await tx.query<ForecastRow>(
      insertSql(f.venue),
      [f.id, f.userId, f.marketId, f.venue, f.source, f.probabilitiesMicro.map(String), f.rationale, f.createdAt, ...around],
      `forecast_insert_${f.venue}`,
    );
    if (rows[0]) return rows[0];
    const market = await marketFacts(tx, f.marketId, f.createdAt);
    if (!market) throw notFound(f.marketId);
    if (!market.open) throw closed();
    throw new AppError('VALIDATION_ERROR', `This market has ${market.outcomes} outcomes; the forecast has ${f.probabilitiesMicro.length}.`, {
      hint: 'Give one probability per outcome, in the order of get_community_market outcomes.',
    });
  }
}

const notFound = (marketId: string) =>
  new AppError('NOT_FOUND', `Market ${marketId} not found.`, { hint: 'Use Market.id from search_prediction_markets or a community market id.' });

const closed = () => new AppError('MARKET_CLOSED', 'This market is not open; forecasts are accepted only while it trades.');
