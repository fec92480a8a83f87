import type { Queryable } from '../../db/database';
import type { FeedMarket, FeedQuote } from '../feed';
import type { Depth } from '../../domain/trading/price-service';
import { loadDepth, storeDepth, storeMarket, type StoredDepth, type StoredMarket } from './market-codec';

export interface RecordedMarket {
  tMs: number;
  market: StoredMarket;
}

export interface RecordedBook {
  tMs: number;
  bidMicro: bigint;
  askMicro: bigint;
  depth: Depth | null;
}

/** A window of the mirror's history: each market's records and each token's books, oldest first. */
export interface RecordedWindow {
  markets: Map<string, RecordedMarket[]>;
  books: Map<string, RecordedBook[]>;
}

/** Every statement on mirror_market_history and mirror_book_history (the live database's record of what the mirror saw). */
export class MirrorHistoryStore {
  constructor(private readonly db: Queryable) {}

  async recordMarkets(markets: FeedMarket[]): Promise<void> {
    if (markets.length === 0) return;
    await this.db.query(
      `INSERT INTO mirror_market_history (market_id, t, market)
       SELECT x.id, x.t, x.market FROM unnest($1::text[], $2::timestamptz[], $3::jsonb[]) AS x(id, t, market)
       ON CONFLICT DO NOTHING`,
      [markets.map((m) => m.id), markets.map((m) => m.asOf.toISOString()), markets.map((m) => JSON.stringify(storeMarket(m)))],
    );
  }

  async recordBook(q: FeedQuote): Promise<void> {
    await this.db.query(`INSERT INTO mirror_book_history (token_id, t, bid_micro, ask_micro, depth) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, [
      q.tokenId,
      q.asOf,
      q.bidMicro.toString(),
      q.askMicro.toString(),
      q.depth ? JSON.stringify(storeDepth(q.depth)) : null,
    ]);
  }

  /** Drops what is older than `before` (the retention, MIRROR_HISTORY_DAYS). */
  async prune(before: Date): Promise<void> {
    await this.db.query('DELETE FROM mirror_market_history WHERE t < $1', [before]);
    await this.db.query('DELETE FROM mirror_book_history WHERE t < $1', [before]);
  }

  /**
   * What a replay of [from, to] needs: every market recorded in the window or last recorded before it, with its records
   * up to `to` (the last one before `from` is its state at the start), and their tokens' books up to `to`.
   */
  async window(from: Date, to: Date): Promise<RecordedWindow> {
    const rows = await this.db.query<{ market_id: string; t: Date; market: StoredMarket | string }>(
      `SELECT h.market_id, h.t, h.market FROM mirror_market_history h
       WHERE h.t <= $2 AND h.t >= COALESCE((SELECT max(p.t) FROM mirror_market_history p WHERE p.market_id = h.market_id AND p.t <= $1), '-infinity')
       ORDER BY h.market_id, h.t`,
      [from, to],
    );
    const markets = new Map<string, RecordedMarket[]>();
    for (const r of rows) {
      const market = typeof r.market === 'string' ? (JSON.parse(r.market) as StoredMarket) : r.market;
      const list = markets.get(r.market_id) ?? [];
      list.push({ tMs: new Date(r.t).getTime(), market });
      markets.set(r.market_id, list);
    }
    const tokens = [...markets.values()].flatMap((list) => list[list.length - 1]!.market.tokens.map((t) => t.tokenId));
    const bookRows = tokens.length
      ? await this.db.query<{ token_id: string; t: Date; bid_micro: string | bigint; ask_micro: string | bigint; depth: StoredDepth | string | null }>(
          `SELECT token_id, t, bid_micro, ask_micro, depth FROM mirror_book_history WHERE token_id = ANY($1::text[]) AND t <= $2 ORDER BY token_id, t`,
          [tokens, to],
        )
      : [];
    const books = new Map<string, RecordedBook[]>();
    for (const r of bookRows) {
      const depth = r.depth === null ? null : loadDepth(typeof r.depth === 'string' ? (JSON.parse(r.depth) as StoredDepth) : r.depth);
      const list = books.get(r.token_id) ?? [];
      list.push({ tMs: new Date(r.t).getTime(), bidMicro: BigInt(r.bid_micro), askMicro: BigInt(r.ask_micro), depth });
      books.set(r.token_id, list);
    }
    return { markets, books };
  }
}
