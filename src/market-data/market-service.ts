import type { Database } from '../db/database';
import { fromMicro, type Micro } from '../domain/money/micro';
import { AppError, toAppError } from '../errors/app-error';
import { isDatabaseUnavailable } from '../errors/database-unavailable';
import type { Logger } from '../logger';
import type { Clock } from '../clock';
import { FeedError, type FeedSource, type MarketFeed, type PricePoint } from './feed';
import type { ConcurrencyGate } from '../db/concurrency-gate';
import { SEARCH_LIMIT, findMarketMatches, searchAfterStatement, type SearchMode, type SearchPosition } from './market-search';
import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor, FLOAT_TEXT } from '../db/keyset-cursor';
import { CATEGORIES_SQL, decodeListCursor, listStatement, type ListedRow, type ListQuery } from './market-listing';
import type { MarketStore } from './market-store';
import { marketMoves, type MarketMove } from './market-moves';
import {
  MARKET_COLUMNS,
  MARKET_JOINS,
  toMarketStatsView,
  toMarketView,
  type MarketRow,
  type MarketStatsView,
  type MarketView,
  type MarketViewRow,
} from './market-view';
import { localPoints, locallyCovered, rangeFor, type Interval } from './price-history';
import type { BookLevel, LivePrice, PriceService } from '../domain/trading/price-service';
import { venueDepth } from './venue-books';

export interface Quote {
  bid: number | null;
  ask: number | null;
  mid: number | null;
}

export interface MarketOdds extends MarketView, MarketStatsView {
  description: string | null;
  createdAt: string;
  resolvedAt: string | null;
  odds: {
    yes: Quote;
    no: Quote;
    asOf: string | null;
    ageSeconds: number | null;
    live: boolean;
    source: FeedSource | 'mirror';
  };
}

export interface PriceHistory {
  history: PricePoint[];
  tokenId: string;
  interval: Interval;
  resolutionSeconds: number;
  source: FeedSource | 'mirror';
  simulated: boolean;
}

/** One level of a token's book as get_order_book answers it. */
export interface BookLevelView {
  price: number;
  shares: number;
}

/** A token's book as the service reads it through the live price path (get_order_book). */
export interface OrderBook {
  tokenId: string;
  marketId: string;
  outcome: 'YES' | 'NO';
  source: FeedSource;
  synthetic: boolean;
  bids: BookLevelView[];
  asks: BookLevelView[];
  bid: number;
  ask: number;
  mid: number;
  asOf: string;
  ageSeconds: number;
}

/** The token get_order_book reads: by tokenId, or by marketId and outcome (both forms may be sent if they agree). */
export interface TokenRef {
  tokenId?: string;
  marketId?: string;
  outcome?: 'YES' | 'NO';
}

export interface NewsItemView {
  id: string;
  marketId: string;
  question: string;
  publishedAt: string;
  headline: string;
  body: string;
}

export interface NewsListQuery {
  marketId?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: string;
}

const NEWS_SORT = 'news';
const NEWS_KEY = /^\d{1,15}$/;
const NEWS_ID = /^news-[\w-]{1,200}$/;

/** How long search's term counts serve before the sync leader recounts them. */
export const SEARCH_TERMS_MAX_AGE_MS = 10 * 60_000;

const searchDown = () => new AppError('UPSTREAM_UNAVAILABLE', 'Market search is unavailable right now.', { hint: 'Retry in a few seconds.' });

/** The market reads behind the Markets methods and pages: search, one market with its odds, price history. */
/** How a lookup reads its string: a market id, a slug, or either (an id first). */
export type MarketKey = 'id' | 'slug' | 'idOrSlug';

/** The identifiers market methods take: marketId and/or marketSlug; idOrSlug is the older either-one form. */
export interface MarketRef {
  marketId?: string;
  marketSlug?: string;
  idOrSlug?: string;
}

export class MarketService {
  constructor(
    private readonly deps: {
      db: Database;
      feed: MarketFeed;
      store: MarketStore;
      prices: PriceService;
      clock: Clock;
      log: Logger;
      syncIntervalS: number;
      /** Bounds the searches in PostgreSQL at once (SEARCH_CONCURRENCY). */
      searchGate: ConcurrencyGate;
    },
  ) {}

  /**
   * Up to `limit` (at most SEARCH_LIMIT) matching active markets, highest volume first, after `cursor` (the nextCursor
   * of the previous page of the same q). A cursor names the statement that found the first page and a digest of q.
   */
  async search(q: string, limit: number = SEARCH_LIMIT, cursor?: string): Promise<{ markets: MarketView[]; nextCursor: string | null }> {
    const { db, log, searchGate } = this.deps;
    const text = q.trim();
    const after = cursor === undefined ? null : decodeSearchCursor(cursor, text);
    if (text.length < 2) return { markets: [], nextCursor: null };
    try {
      const query = (sql: string, params: unknown[]) => db.query<MarketViewRow>(sql, params);
      const found = await searchGate.run(async () => {
        if (!after) return findMarketMatches(query, text);
        const { sql, params } = searchAfterStatement(after.mode, text, after);
        return { rows: await query(sql, params), mode: after.mode };
      });
      // The first page's statements find the top SEARCH_LIMIT (their plan is fixed): a full one may have a next page.
      // A later page's reads one row more, so it knows.
      const page = found.rows.slice(0, limit);
      const last = page[page.length - 1];
      const more = found.rows.length > limit || (!after && found.rows.length === SEARCH_LIMIT);
      return {
        markets: page.map(toMarketView),
        nextCursor: more && last ? encodeSearchCursor(found.mode, text, { volume: String(last.volume ?? -1), id: last.id }) : null,
      };
    } catch (err) {
      log.error('market search failed', { error: err instanceof Error ? err.message : String(err) });
      // Search reads only the local mirror: its database being unreachable is not the venue's fault.
      throw isDatabaseUnavailable(err) ? toAppError(err) : searchDown();
    }
  }

  /** A page of the mirror's markets in one sort, after the cursor of the previous page (keyset: stable under inserts). */
  async list(q: ListQuery): Promise<{ markets: Array<MarketView & MarketMove>; nextCursor: string | null }> {
    const after = q.cursor !== undefined ? decodeListCursor(q.cursor, q.sort) : null;
    const now = this.deps.clock.now();
    const { sql, params } = listStatement(q, after, now);
    const rows = await this.deps.db.query<ListedRow>(sql, params);
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    const moves = await marketMoves(
      this.deps.db,
      page.map((r) => r.id),
      now,
      q.sparkline === true,
    );
    return {
      markets: page.map((r) => ({ ...toMarketView(r), ...moves.get(r.id)! })),
      nextCursor: rows.length > q.limit && last ? encodeCursor({ s: q.sort, k: last.sort_key, i: last.id }) : null,
    };
  }

  /**
   * A page of the venue's news, newest first, keyset-paged on (published time, id); no news when the feed
   * publishes none (Polymarket, or the simulated venue with SIM_INFORMATION off).
   */
  async news(q: NewsListQuery): Promise<{ news: NewsItemView[]; nextCursor: string | null }> {
    const after =
      q.cursor !== undefined
        ? decodeCursor(
            q.cursor,
            NEWS_SORT,
            (k) => NEWS_KEY.test(k),
            'Pass nextCursor from the previous page unchanged; omit cursor for the first page.',
            (i) => NEWS_ID.test(i),
          )
        : null;
    const { feed } = this.deps;
    const items = feed.news
      ? await feed.news({
          marketId: q.marketId,
          sinceMs: q.since !== undefined ? Date.parse(q.since) : undefined,
          untilMs: q.until !== undefined ? Date.parse(q.until) : undefined,
          before: after ? { tMs: Number(after.k), id: after.i } : undefined,
          limit: q.limit + 1,
        })
      : [];
    const page = items.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      news: page.map((n) => ({ ...n, publishedAt: n.publishedAt.toISOString() })),
      nextCursor: items.length > q.limit && last ? encodeCursor({ s: NEWS_SORT, k: String(last.publishedAt.getTime()), i: last.id }) : null,
    };
  }

  /** Categories of active markets with how many each has, most first. */
  async categories(): Promise<Array<{ category: string; activeMarkets: number }>> {
    const rows = await this.deps.db.query<{ category: string; n: number }>(CATEGORIES_SQL);
    return rows.map((r) => ({ category: r.category, activeMarkets: r.n }));
  }

  /**
   * Recounts the markets holding each search lexeme (refresh_search_terms, migration 8) when the counts
   * are missing or older than SEARCH_TERMS_MAX_AGE_MS. The sync leader calls it after each sync; the
   * counts only steer search's plan, so ten minutes stale costs nothing but a slower road now and then.
   */
  async refreshSearchTerms(now: Date): Promise<boolean> {
    // One statement: the recount runs only when no count is younger than the limit.
    const rows = await this.deps.db.query(
      `SELECT refresh_search_terms($1) WHERE NOT EXISTS (
         SELECT 1 FROM search_terms_state WHERE refreshed_at > $1::timestamptz - $2::bigint * interval '1 millisecond')`,
      [now.toISOString(), SEARCH_TERMS_MAX_AGE_MS],
    );
    return rows.length > 0;
  }

  /** A market by id, by slug, or by either; one the mirror has not seen yet is looked up at the venue and mirrored. */
  async find(ref: string, by: MarketKey = 'idOrSlug'): Promise<MarketRow | null> {
    const local = await this.read(ref, by);
    if (local) return local;
    let fetched;
    try {
      fetched = await this.deps.feed.market(ref);
    } catch (err) {
      if (err instanceof FeedError) return null;
      throw err;
    }
    if (!fetched) return null;
    await this.deps.store.apply(this.deps.feed.source, [fetched], this.deps.clock.now());
    return this.read(ref, by);
  }

  private async read(ref: string, by: MarketKey): Promise<MarketRow | null> {
    const where = by === 'id' ? 'm.id = $1' : by === 'slug' ? 'm.slug = $1' : '(m.id = $1 OR m.slug = $1)';
    const rows = await this.deps.db.query<MarketRow>(
      `SELECT ${MARKET_COLUMNS} FROM markets m ${MARKET_JOINS} WHERE ${where} ORDER BY (m.id = $1) DESC LIMIT 1`,
      [ref],
    );
    return rows[0] ?? null;
  }

  /**
   * One market with both books. `ref` names it by id, by slug, by both (which must then name the same market), or by
   * one string that may be either (a URL segment such as /markets/{slug}, or the deprecated idOrSlug argument).
   */
  async odds(ref: MarketRef | string): Promise<MarketOdds> {
    const row = await this.findRef(typeof ref === 'string' ? { idOrSlug: ref } : ref);
    const view = toMarketView(row);
    const now = this.deps.clock.now();
    const live = await this.liveQuotes(row);
    const age = (at: Date | null) => (at ? Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000)) : null);
    const base = {
      ...view,
      ...toMarketStatsView(row),
      description: row.description,
      createdAt: row.created_at.toISOString(),
      resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
    };
    if (live) {
      const [yes, no] = live;
      return {
        ...base,
        yesPrice: fromMicro(yes.midMicro),
        noPrice: fromMicro(no.midMicro),
        odds: { yes: quoteOf(yes), no: quoteOf(no), asOf: yes.asOf.toISOString(), ageSeconds: age(yes.asOf), live: true, source: yes.source },
      };
    }
    const stored = (p: Micro | null, bid: Micro | null, ask: Micro | null): Quote => ({
      bid: bid === null ? null : fromMicro(bid),
      ask: ask === null ? null : fromMicro(ask),
      mid: p === null ? null : fromMicro(p),
    });
    return {
      ...base,
      odds: {
        yes: stored(row.yes_price, row.yes_bid, row.yes_ask),
        no: stored(row.no_price, row.no_bid, row.no_ask),
        asOf: row.yes_at ? row.yes_at.toISOString() : null,
        ageSeconds: age(row.yes_at),
        live: false,
        source: 'mirror',
      },
    };
  }

  /** The market every identifier of `ref` names; identifiers that name different markets are a VALIDATION_ERROR. */
  private async findRef(ref: MarketRef): Promise<MarketRow> {
    const [key, by]: [string, MarketKey] =
      ref.marketId !== undefined ? [ref.marketId, 'id'] : ref.marketSlug !== undefined ? [ref.marketSlug, 'slug'] : [ref.idOrSlug ?? '', 'idOrSlug'];
    const row = await this.find(key, by);
    if (!row) {
      const what = by === 'id' ? 'id' : by === 'slug' ? 'slug' : 'id or slug';
      throw new AppError('NOT_FOUND', `No market with ${what} ${key.slice(0, 100)}.`, { hint: 'Find markets with search_prediction_markets or list_markets.' });
    }
    const disagrees =
      (ref.marketSlug !== undefined && ref.marketSlug !== row.slug) || (ref.idOrSlug !== undefined && ref.idOrSlug !== row.id && ref.idOrSlug !== row.slug);
    if (disagrees) {
      throw new AppError('VALIDATION_ERROR', `The identifiers sent name different markets (market ${row.id} has slug ${row.slug}).`, {
        hint: 'Send marketId or marketSlug alone, or identifiers of the same market.',
      });
    }
    return row;
  }

  /** Both sides' live books for an active market, or null (closed, resolved, or no fresh price). */
  private async liveQuotes(row: MarketRow): Promise<[LivePrice, LivePrice] | null> {
    if (row.status !== 'active' || !row.yes_token || !row.no_token) return null;
    try {
      return await Promise.all([this.deps.prices.live(row.yes_token), this.deps.prices.live(row.no_token)]);
    } catch (err) {
      if (err instanceof AppError && err.code === 'PRICE_UNAVAILABLE') return null;
      throw err;
    }
  }

  /**
   * A token's book through the live price path (as fresh as odds()): the venue's published levels when it publishes them,
   * otherwise (the simulated venue) a synthetic book around the live best prices (simulated/synthetic-book.ts), marked
   * synthetic. NOT_FOUND for a token the mirror does not hold; PRICE_UNAVAILABLE when its market does not trade or no
   * fresh price can be had.
   */
  async book(ref: TokenRef): Promise<OrderBook> {
    const token = await this.findToken(ref);
    if (token.status !== 'active')
      throw new AppError('PRICE_UNAVAILABLE', `Market ${token.market_id} is ${token.status}: it has no book.`, {
        hint: 'Read get_market_odds for its status and last prices.',
      });
    const live = await this.deps.prices.live(token.token_id);
    // A venue with published depth whose book could not be read now (the mirror's best prices served) shows no levels.
    const depth = venueDepth(live, token.volume) ?? { bids: [], asks: [] };
    const levels = (ls: BookLevel[]) => ls.map((l) => ({ price: fromMicro(l.priceMicro), shares: fromMicro(l.sizeMicro) }));
    const now = this.deps.clock.now();
    return {
      tokenId: token.token_id,
      marketId: token.market_id,
      outcome: token.outcome,
      source: live.source,
      synthetic: !live.depth && live.source === 'simulated',
      bids: levels(depth.bids),
      asks: levels(depth.asks),
      bid: fromMicro(live.bidMicro),
      ask: fromMicro(live.askMicro),
      mid: fromMicro(live.midMicro),
      asOf: live.asOf.toISOString(),
      ageSeconds: Math.max(0, Math.round((now.getTime() - live.asOf.getTime()) / 1000)),
    };
  }

  private async findToken(ref: TokenRef) {
    const rows = await this.deps.db.query<{ token_id: string; market_id: string; outcome: 'YES' | 'NO'; status: string; volume: number | null }>(
      ref.tokenId !== undefined
        ? 'SELECT t.token_id, t.market_id, t.outcome, m.status, m.volume FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE t.token_id = $1'
        : 'SELECT t.token_id, t.market_id, t.outcome, m.status, m.volume FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.id = $1 AND t.outcome = $2',
      ref.tokenId !== undefined ? [ref.tokenId] : [ref.marketId ?? '', ref.outcome ?? 'YES'],
    );
    const token = rows[0];
    if (!token) {
      const what = ref.tokenId !== undefined ? `token ${ref.tokenId.slice(0, 100)}` : `${ref.outcome} token of market ${(ref.marketId ?? '').slice(0, 100)}`;
      throw new AppError('NOT_FOUND', `No ${what}.`, { hint: 'Use outcomeTokens[].tokenId from search_prediction_markets, list_markets or get_market_odds.' });
    }
    const disagrees = (ref.marketId !== undefined && ref.marketId !== token.market_id) || (ref.outcome !== undefined && ref.outcome !== token.outcome);
    if (ref.tokenId !== undefined && disagrees)
      throw new AppError('VALIDATION_ERROR', `Token ${token.token_id} is the ${token.outcome} token of market ${token.market_id}, not the one named.`, {
        hint: 'Send tokenId alone, or marketId and outcome alone.',
      });
    return { ...token, volume: token.volume === null ? null : Number(token.volume) };
  }

  /**
   * Chronological points for a token. The mirror's snapshots answer when they cover the whole range
   * (no upstream call); otherwise the venue does. If the venue is down, whatever the mirror holds for
   * the range is returned; with nothing local, UPSTREAM_UNAVAILABLE.
   */
  async history(tokenId: string, interval: Interval): Promise<PriceHistory> {
    const { db, feed, clock } = this.deps;
    const rows = await db.query<{ created_at: Date; source: FeedSource }>(
      'SELECT m.created_at, m.source FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE t.token_id = $1',
      [tokenId],
    );
    const token = rows[0];
    if (!token)
      throw new AppError('NOT_FOUND', `No token ${tokenId}.`, { hint: 'Use outcomeTokens[].tokenId from search_prediction_markets or get_market_odds.' });
    const nowS = Math.floor(clock.now().getTime() / 1000);
    const range = rangeFor(interval, nowS, Math.floor(token.created_at.getTime() / 1000));
    const answer = (history: PricePoint[], source: PriceHistory['source']): PriceHistory => ({
      history,
      tokenId,
      interval,
      resolutionSeconds: range.stepS,
      source,
      simulated: token.source === 'simulated',
    });
    const local = await localPoints(db, tokenId, range);
    if (await locallyCovered(db, tokenId, range, this.deps.syncIntervalS)) return answer(local, 'mirror');
    try {
      const remote = token.source === feed.source ? await feed.history(tokenId, range) : [];
      return remote.length ? answer(remote, feed.source) : answer(local, 'mirror');
    } catch (err) {
      if (!(err instanceof FeedError)) throw err;
      if (err.kind !== 'unavailable' || local.length) return answer(local, 'mirror');
      throw new AppError(
        'UPSTREAM_UNAVAILABLE',
        'Price history is unavailable: the market feed is unreachable and the mirror holds no points for this range.',
        {
          hint: 'Retry later, or ask for a shorter interval.',
        },
      );
    }
  }
}

function quoteOf(p: LivePrice): Quote {
  return { bid: fromMicro(p.bidMicro), ask: fromMicro(p.askMicro), mid: fromMicro(p.midMicro) };
}

/** A search cursor's sort: the statement that found the first page, and a digest of q (a cursor of another q is refused). */
const searchSort = (mode: SearchMode, text: string) => `search/${mode}/${createHash('sha256').update(text.toLowerCase()).digest('base64url').slice(0, 16)}`;

function encodeSearchCursor(mode: SearchMode, text: string, at: SearchPosition): string {
  return encodeCursor({ s: searchSort(mode, text), k: at.volume, i: at.id });
}

function decodeSearchCursor(cursor: string, text: string): SearchPosition & { mode: SearchMode } {
  let mode: SearchMode = 'w';
  try {
    const s = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown } | null)?.s;
    if (typeof s === 'string' && /^search\/[wpf]\//.test(s)) mode = s[7] as SearchMode;
  } catch {
    // decodeCursor below refuses it with the list's own message.
  }
  const c = decodeCursor(cursor, searchSort(mode, text), (k) => FLOAT_TEXT.test(k), 'Pass nextCursor from the previous page unchanged, with the same q.');
  return { mode, volume: c.k, id: c.i };
}
