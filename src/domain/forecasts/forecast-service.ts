import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { decodeCursor, encodeCursor } from '../../db/keyset-cursor';
import type { IntentForecast } from '../trading/engine';
import { recordParams, recordSql } from './forecast-chain';
import { AppError } from '../../errors/app-error';
import { marketFacts } from '../trading/market-facts';
import { fromMicro, MICRO, type Micro } from '../money/micro';
import type { PriceService } from '../trading/price-service';
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

/** How many markets' tokens a service remembers before it starts afresh. */
const TOKENS_REMEMBERED = 50_000;

/**
 * Stated forecasts (issue 33): recorded alone (submit_forecast) or in a trade's own transaction (a trade that is refused
 * records nothing), stamped with the time and the market's mid(s), immutable, hash-chained per account. An account's
 * forecasts on a market that has not closed are its own: another account sees them only once the market closes.
 */
export class ForecastService {
  /** `prices`: the live quotes a mirrored forecast is stamped with (without them, the last synced price, as in unit tests). */
  constructor(
    private readonly db: Database,
    private readonly prices?: PriceService,
  ) {}

  /** A market's YES and NO tokens, YES first: facts that never change, remembered (bounded) so a trade's forecast adds no round trip. */
  private readonly binaryTokens = new Map<string, Array<{ token_id: string; outcome: 'YES' | 'NO' }>>();

  /**
   * A mirrored market's YES mid as quoted live now (issue 49 item 3: a forecast is stamped with the price the agent was
   * quoted, never an older sync): from the token a trade carrying the forecast buys (the very quote its fill takes, within
   * the quote cache's second), else the YES token, else the NO token (YES mid = 1 − NO mid). Null when no live quote
   * can be had (stamped unknown); undefined when the service has no live prices.
   */
  async quotedMid(marketId: string | null, tokenId?: string): Promise<Micro | null | undefined> {
    if (!this.prices) return undefined;
    // The market's YES and NO tokens (found from the traded token when the market is not named), the traded one first.
    const market = marketId ?? (await this.marketOfToken(tokenId));
    if (market === undefined) return null;
    const tokens = [...(await this.binaryTokensOf(market))].sort((a, b) => Number(b.token_id === tokenId) - Number(a.token_id === tokenId));
    for (const t of tokens) {
      try {
        const q = await this.prices.live(t.token_id);
        if (q.midMicro <= 0n || q.midMicro > MICRO) continue;
        return t.outcome === 'YES' ? q.midMicro : MICRO - q.midMicro;
      } catch {
        // This token has no live quote now: try the next.
      }
    }
    return null;
  }

  private async binaryTokensOf(marketId: string): Promise<Array<{ token_id: string; outcome: 'YES' | 'NO' }>> {
    const known = this.binaryTokens.get(marketId);
    if (known) return known;
    const tokens = await this.db.query<{ token_id: string; outcome: 'YES' | 'NO' }>(
      `SELECT token_id, outcome FROM market_tokens WHERE market_id = $1 AND outcome IN ('YES', 'NO') ORDER BY outcome DESC`,
      [marketId],
      'forecast_quote_tokens',
    );
    if (!tokens.length) return tokens; // not (yet) a market of ours: nothing to remember
    if (this.binaryTokens.size >= TOKENS_REMEMBERED) this.binaryTokens.clear();
    this.binaryTokens.set(marketId, tokens);
    return tokens;
  }

  private async marketOfToken(tokenId: string | undefined): Promise<string | undefined> {
    if (tokenId === undefined) return undefined;
    const rows = await this.db.query<{ market_id: string }>('SELECT market_id FROM market_tokens WHERE token_id = $1', [tokenId], 'forecast_token_market');
    return rows[0]?.market_id;
  }

  /** submit_forecast: a forecast without a trade, on a market that is open. */
  async submit(userId: string, marketId: string, stated: Stated, now: Date, complete?: InTransaction): Promise<{ forecast: ForecastView; chain: ChainHead }> {
    const market = await marketFacts(this.db, marketId, now);
    if (!market) throw notFound(marketId);
    if (!market.open) throw closed();
    const probabilitiesMicro = statedProbabilities(market.venue, market.outcomes, stated);
    const facts = this.facts(userId, marketId, market.venue, 'stated', probabilitiesMicro, stated.rationale, now);
    if (market.venue === 'mirrored') facts.quotedMidMicro = await this.quotedMid(marketId);
    return this.db.transaction(async (tx) => {
      const row = await this.insert(tx, facts);
      const result = { forecast: toView(row), chain: { userId, head: row.hash, length: Number(row.seq) } };
      if (complete) await complete(tx, result);
      return result;
    });
  }

  /**
   * A trade's stated forecast, for the trade's intent — the forecast's one way into a trade (paper_trade, place_order, a
   * community market's buy): checked now, before anything trades — a mirrored market's stamped with its quote — and
   * recorded by the engine in the trade's transaction once the trade is written (or by the order service with a resting
   * order when nothing fills now), so a refused trade or a rejected order records nothing. `marketId` null: the market of
   * `tokenId` (an order names its token only); an unknown token gives none (the order is refused NOT_FOUND). `venue`: the
   * traded market's; a community forecast's count of probabilities is held to the market's outcomes as it is recorded.
   * Undefined without a forecast.
   */
  async forIntent(
    userId: string,
    source: 'paper_trade' | 'place_order' | 'buy_community_shares',
    stated: Stated | undefined,
    marketId: string | null,
    now: Date,
    tokenId?: string,
    venue: ForecastVenue = 'mirrored',
  ): Promise<IntentForecast | undefined> {
    if (!stated) return undefined;
    const market = marketId ?? (await this.marketOfToken(tokenId));
    if (market === undefined) return undefined;
    const outcomes = venue === 'mirrored' ? 1 : (stated.probabilities?.length ?? 0);
    const facts = this.facts(userId, market, venue, source, statedProbabilities(venue, outcomes, stated), stated.rationale, now);
    if (venue === 'mirrored') facts.quotedMidMicro = await this.quotedMid(market, tokenId);
    return { record: async (tx) => void (await this.insert(tx, facts)) };
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
    const rows = await this.db.query<{ forecast_head: string | null; forecast_seq: number }>(
      'SELECT forecast_head, forecast_seq FROM forecast_chain_heads WHERE user_id = $1',
      [userId],
    );
    return { userId, head: rows[0]?.forecast_head ?? null, length: rows[0] ? Number(rows[0].forecast_seq) : 0 };
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

  /** The record, in `tx` (its statement takes the account row); refused (nothing written) when the market cannot take it. */
  private async insert(tx: Queryable, f: ForecastFacts): Promise<ForecastRow> {
    const around = payloadAround(f);
    const rows = await tx.query<ForecastRow>(recordSql(f.venue), recordParams(f, around), `forecast_record_${f.venue}`);
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
