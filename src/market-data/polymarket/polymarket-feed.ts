import type { Logger } from '../../logger';
import { MICRO, type Micro } from '../../domain/money/micro';
import { priceToMicro, sizeToMicro } from '../decimal-price';
import type { BookLevel, Depth } from '../../domain/trading/price-service';
import {
  FeedError,
  type FeedMarket,
  type FeedQuote,
  type FeedStatus,
  type FeedToken,
  type HistoryRange,
  type MarketFeed,
  type MarketStats,
  type MarketListing,
  type PricePoint,
  type Winner,
} from '../feed';
import { ClobBook, ClobHistory, ClobHistoryPoint, ClobMidpoint, ClobPrice, GammaKeysetPage, GammaMarket } from './schemas';
import { DEFAULT_UPSTREAM, UpstreamClient, type UpstreamOptions } from './upstream-client';

export interface PolymarketOptions {
  gammaUrl: string;
  clobUrl: string;
  now: () => number;
  log: Logger;
  upstream?: Partial<Omit<UpstreamOptions, 'now'>>;
  /** Records per page (Gamma allows up to 100 on /markets/keyset). */
  pageSize?: number;
  /** Upper bound on pages per listing, so one sync stays bounded. */
  maxPages?: number;
}

class KeysetMissing extends Error {}

/**
 * The Polymarket adapter: market metadata from the Gamma API (keyset pages, legacy offset pages as a
 * fallback, by id and by slug) and prices from the CLOB API (book, price, midpoint, price history).
 * Every record is validated; one that fails is skipped and logged, never stored.
 */
export class PolymarketFeed implements MarketFeed {
  readonly source = 'polymarket' as const;
  readonly gamma: UpstreamClient;
  readonly clob: UpstreamClient;
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(opts: PolymarketOptions) {
    const upstream: UpstreamOptions = { ...DEFAULT_UPSTREAM, ...opts.upstream, now: opts.now };
    this.log = opts.log;
    this.now = opts.now;
    this.gamma = new UpstreamClient('Polymarket Gamma API', opts.gammaUrl, upstream, opts.log);
    this.clob = new UpstreamClient('Polymarket CLOB API', opts.clobUrl, upstream, opts.log);
    this.pageSize = Math.min(100, opts.pageSize ?? 100);
    this.maxPages = opts.maxPages ?? 200;
  }

  async listMarkets(): Promise<MarketListing> {
    const acc: Accumulator = { byId: new Map(), skipped: 0 };
    let complete: boolean;
    try {
      complete = await this.listKeyset(acc);
    } catch (err) {
      if (!(err instanceof KeysetMissing) && !(err instanceof FeedError)) throw err;
      this.log.warn('gamma keyset listing unavailable; falling back to /markets offset pages', { reason: err.message });
      complete = await this.listLegacy(acc);
    }
    return { markets: [...acc.byId.values()], complete, skipped: acc.skipped };
  }

  /** Keyset pages until next_cursor runs out. Trouble on the first page throws (so the legacy list is tried); later, it ends the listing as incomplete. */
  private async listKeyset(acc: Accumulator): Promise<boolean> {
    let cursor: string | undefined;
    let previousFirstId: string | undefined;
    for (let page = 0; page < this.maxPages; page++) {
      let body: unknown;
      try {
        body = await this.gamma.getJson('/markets/keyset', { limit: this.pageSize, closed: false, after_cursor: cursor });
      } catch (err) {
        if (page === 0) throw err;
        return false;
      }
      const parsed = GammaKeysetPage.safeParse(body);
      if (!parsed.success) {
        if (page === 0) throw new KeysetMissing(body === null ? '/markets/keyset answered 404' : '/markets/keyset answered an unexpected shape');
        this.log.warn('gamma keyset page malformed; listing stops here', { page });
        return false;
      }
      const firstId = this.collect(parsed.data.markets, acc);
      // A cursor the server ignores would loop on page one forever: stop and call the listing incomplete.
      if (page > 0 && firstId !== undefined && firstId === previousFirstId) {
        this.log.warn('gamma keyset cursor did not advance; listing stops here', { page });
        return false;
      }
      previousFirstId = firstId;
      const next = parsed.data.next_cursor;
      if (!next || parsed.data.markets.length === 0) return true;
      if (next === cursor) return false;
      cursor = next;
    }
    this.log.warn('gamma listing capped', { pages: this.maxPages });
    return false;
  }

  private async listLegacy(acc: Accumulator): Promise<boolean> {
    for (let page = 0; page < this.maxPages; page++) {
      const body = await this.gamma.getJson('/markets', { limit: this.pageSize, offset: page * this.pageSize, closed: false });
      if (!Array.isArray(body)) {
        if (page === 0) throw new FeedError('unavailable', 'Gamma /markets answered an unexpected shape.');
        return false;
      }
      this.collect(body, acc);
      if (body.length < this.pageSize) return true;
    }
    return false;
  }

  /** Validates and keeps a page's records; returns the first record's id (for stall detection). */
  private collect(records: unknown[], acc: Accumulator): string | undefined {
    const asOf = new Date(this.now());
    for (const raw of records) {
      const market = this.toFeedMarket(raw, asOf);
      if (market) acc.byId.set(market.id, market);
      else acc.skipped += 1;
    }
    const first = records[0] as { id?: unknown } | undefined;
    return first?.id === undefined ? undefined : String(first.id);
  }

  async market(idOrSlug: string): Promise<FeedMarket | null> {
    const path = /^\d{1,20}$/.test(idOrSlug) ? `/markets/${idOrSlug}` : `/markets/slug/${encodeURIComponent(idOrSlug)}`;
    let body = await this.gamma.getJson(path);
    if (Array.isArray(body)) body = body[0] ?? null;
    if (body === null || body === undefined) return null;
    return this.toFeedMarket(body, new Date(this.now()));
  }

  /** A Gamma record to a binary market, or null (logged) when it fails validation. */
  toFeedMarket(raw: unknown, asOf: Date): FeedMarket | null {
    const parsed = GammaMarket.safeParse(raw);
    const id =
      typeof (raw as { id?: unknown })?.id === 'string' || typeof (raw as { id?: unknown })?.id === 'number' ? String((raw as { id: unknown }).id) : undefined;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.log.warn('skipped malformed upstream market', { id, field: issue?.path.join('.'), problem: issue?.message });
      return null;
    }
    const m = parsed.data;
    const labels = m.outcomes;
    const yesAt = labels.findIndex((l) => /^yes$/i.test(l));
    const noAt = labels.findIndex((l) => /^no$/i.test(l));
    const [yi, ni] = yesAt >= 0 && noAt >= 0 ? [yesAt, noAt] : [0, 1];
    const yesPrice = priceToMicro(m.outcomePrices[yi]);
    const noPrice = priceToMicro(m.outcomePrices[ni]);
    const problem =
      yesPrice === null || noPrice === null ? 'outcomePrices outside [0, 1]' : m.clobTokenIds[0] === m.clobTokenIds[1] ? 'clobTokenIds repeat' : null;
    if (problem) {
      this.log.warn('skipped malformed upstream market', { id, problem });
      return null;
    }
    const status = statusOf(m, yesPrice!, noPrice!);
    const active = status.status === 'active';
    const book = active ? yesBook(m, yi) : null;
    const token = (side: 'YES' | 'NO'): FeedToken => {
      const i = side === 'YES' ? yi : ni;
      const price = side === 'YES' ? yesPrice! : noPrice!;
      const bid = book ? (side === 'YES' ? book.bid : MICRO - book.ask) : null;
      const ask = book ? (side === 'YES' ? book.ask : MICRO - book.bid) : null;
      return { tokenId: m.clobTokenIds[i]!, outcome: side, label: labels[i]!.slice(0, 100), priceMicro: price, bidMicro: bid, askMicro: ask };
    };
    const volume = m.volumeNum ?? m.volume ?? null;
    return {
      id: m.id,
      slug: m.slug,
      question: m.question,
      description: m.description ?? null,
      category: categoryOf(m),
      imageUrl: httpUrl(m.image) ?? httpUrl(m.icon),
      volume: volume !== null && Number.isFinite(volume) && volume >= 0 ? volume : null,
      createdAt: m.createdAt ?? m.startDate ?? null,
      endDate: m.endDate ?? null,
      status: status.status,
      winner: status.winner,
      resolvedAt: status.status === 'resolved' ? (m.closedTime && !Number.isNaN(Date.parse(m.closedTime)) ? new Date(m.closedTime) : asOf) : null,
      tokens: [token('YES'), token('NO')],
      asOf,
      stats: statsOf(m, yi),
    };
  }

  async quote(tokenId: string): Promise<FeedQuote> {
    const book = await this.clob.getJson('/book', { token_id: tokenId });
    const parsed = book === null ? null : ClobBook.safeParse(book);
    if (parsed?.success) {
      const bid = best(
        parsed.data.bids.map((l) => priceToMicro(l.price)),
        'max',
      );
      const ask = best(
        parsed.data.asks.map((l) => priceToMicro(l.price)),
        'min',
      );
      if (bid !== null && ask !== null && bid <= ask) {
        const depth = depthOf(parsed.data.bids, parsed.data.asks);
        return {
          tokenId,
          bidMicro: bid,
          askMicro: ask,
          midMicro: (bid + ask) / 2n,
          asOf: this.timestampOf(parsed.data.timestamp),
          ...(depth ? { depth } : {}),
        };
      }
    }
    // No two-sided book: the best prices per side (/price: BUY is the best bid, SELL the best ask), else the midpoint.
    const [buy, sell] = await Promise.all([this.price(tokenId, 'BUY'), this.price(tokenId, 'SELL')]);
    if (buy !== null && sell !== null && buy <= sell)
      return { tokenId, bidMicro: buy, askMicro: sell, midMicro: (buy + sell) / 2n, asOf: new Date(this.now()) };
    const midBody = await this.clob.getJson('/midpoint', { token_id: tokenId });
    const mid = midBody === null ? null : ClobMidpoint.safeParse(midBody);
    const midMicro = mid?.success ? priceToMicro(mid.data.mid ?? mid.data.mid_price) : null;
    if (midMicro === null) {
      // Bodies that fit none of the CLOB's shapes are venue trouble (an outage page, a changed API), not a closed market.
      if ((book !== null && !parsed?.success) || (midBody !== null && !mid?.success))
        throw new FeedError('unavailable', 'The CLOB answered /book and /midpoint with unexpected shapes.');
      throw new FeedError(book === null && midBody === null ? 'unknown-token' : 'not-trading', 'The venue quotes no price for this token.');
    }
    return { tokenId, bidMicro: midMicro, askMicro: midMicro, midMicro, asOf: new Date(this.now()) };
  }

  /** The CLOB's best price on one side, or null. */
  async price(tokenId: string, side: 'BUY' | 'SELL'): Promise<Micro | null> {
    const body = await this.clob.getJson('/price', { token_id: tokenId, side });
    const parsed = body === null ? null : ClobPrice.safeParse(body);
    return parsed?.success ? priceToMicro(parsed.data.price) : null;
  }

  async history(tokenId: string, range: HistoryRange): Promise<PricePoint[]> {
    const body = await this.clob.getJson('/prices-history', { market: tokenId, interval: range.interval, fidelity: Math.max(1, Math.round(range.stepS / 60)) });
    if (body === null) return [];
    const parsed = ClobHistory.safeParse(body);
    if (!parsed.success) throw new FeedError('unavailable', 'The CLOB price history had an unexpected shape.');
    const points = new Map<number, number>();
    for (const raw of parsed.data.history) {
      const p = ClobHistoryPoint.safeParse(raw);
      if (!p.success || !Number.isFinite(p.data.t) || p.data.p < 0 || p.data.p > 1) continue;
      const t = Math.floor(p.data.t);
      if (t >= range.fromS && t <= range.toS) points.set(t, Math.round(p.data.p * 1e6) / 1e6);
    }
    return [...points.entries()].sort((a, b) => a[0] - b[0]).map(([t, p]) => ({ t, p }));
  }

  status(): FeedStatus {
    const g = this.gamma.breaker.state;
    const c = this.clob.breaker.state;
    if (g === 'closed' && c === 'closed') return { state: 'up', detail: 'Polymarket Gamma and CLOB answering' };
    if (g !== 'closed' && c !== 'closed') return { state: 'down', detail: `Gamma circuit ${g}, CLOB circuit ${c}` };
    return { state: 'degraded', detail: `Gamma circuit ${g}, CLOB circuit ${c}` };
  }

  /** Book timestamps come as epoch milliseconds, epoch seconds or ISO strings; never later than now. */
  private timestampOf(ts: string | number | undefined): Date {
    const now = this.now();
    let ms = NaN;
    if (typeof ts === 'number' || (typeof ts === 'string' && /^\d+$/.test(ts))) {
      const n = Number(ts);
      ms = n < 1e11 ? n * 1000 : n;
    } else if (typeof ts === 'string') {
      ms = Date.parse(ts);
    }
    return new Date(Number.isFinite(ms) ? Math.min(ms, now) : now);
  }
}

interface Accumulator {
  byId: Map<string, FeedMarket>;
  skipped: number;
}

/**
 * The book's levels with their sizes, best first (bids high to low, asks low to high), same-price levels merged;
 * undefined when the book publishes no sizes (then a fill is not limited by depth).
 */
function depthOf(bids: Array<{ price: unknown; size?: unknown }>, asks: Array<{ price: unknown; size?: unknown }>): Depth | undefined {
  const levels = (raw: Array<{ price: unknown; size?: unknown }>, order: 1 | -1): BookLevel[] | null => {
    const byPrice = new Map<bigint, bigint>();
    for (const l of raw) {
      const price = priceToMicro(l.price);
      if (price === null || price <= 0n || price >= MICRO) continue;
      if (l.size === undefined) return null;
      const size = sizeToMicro(l.size);
      if (size === null) continue;
      byPrice.set(price, (byPrice.get(price) ?? 0n) + size);
    }
    return [...byPrice.entries()]
      .filter(([, size]) => size > 0n)
      .sort((a, b) => (a[0] < b[0] ? -order : a[0] > b[0] ? order : 0))
      .map(([priceMicro, sizeMicro]) => ({ priceMicro, sizeMicro }));
  };
  const b = levels(bids, -1);
  const a = levels(asks, 1);
  return b && a ? { bids: b, asks: a } : undefined;
}

function best(values: Array<Micro | null>, pick: 'max' | 'min'): Micro | null {
  let out: Micro | null = null;
  for (const v of values) if (v !== null && v > 0n && v < MICRO && (out === null || (pick === 'max' ? v > out : v < out))) out = v;
  return out;
}

/** Closed with prices 1/0 (or 0.5/0.5 for void) is a resolution; a UMA status other than resolved means not final yet. */
function statusOf(m: GammaMarket, yes: Micro, no: Micro): { status: FeedMarket['status']; winner: Winner | null } {
  if (m.closed) {
    const final = !m.umaResolutionStatus || m.umaResolutionStatus.toLowerCase() === 'resolved';
    let winner: Winner | null = null;
    if (yes === MICRO && no === 0n) winner = 'YES';
    else if (yes === 0n && no === MICRO) winner = 'NO';
    else if (yes === MICRO / 2n && no === MICRO / 2n) winner = 'VOID';
    return final && winner ? { status: 'resolved', winner } : { status: 'closed', winner: null };
  }
  if (m.active === false || m.archived === true) return { status: 'closed', winner: null };
  return { status: 'active', winner: null };
}

/** Gamma's bestBid/bestAsk quote the first outcome; turned into the YES side's book when sane. */
function yesBook(m: GammaMarket, yesIndex: number): { bid: Micro; ask: Micro } | null {
  const bid = m.bestBid == null ? null : priceToMicro(m.bestBid);
  const ask = m.bestAsk == null ? null : priceToMicro(m.bestAsk);
  if (bid === null || ask === null || bid > ask || bid === 0n || ask === MICRO) return null;
  return yesIndex === 0 ? { bid, ask } : { bid: MICRO - ask, ask: MICRO - bid };
}

function categoryOf(m: GammaMarket): string | null {
  const fromTags = (tags: Array<{ label?: string | null }> | null | undefined) => tags?.find((t) => t.label)?.label ?? null;
  const c = m.category || fromTags(m.tags) || m.events?.find((e) => e.category)?.category || fromTags(m.events?.[0]?.tags) || null;
  return c ? c.slice(0, 100) : null;
}

function httpUrl(s: string | null | undefined): string | null {
  return s && /^https?:\/\/\S+$/.test(s) && s.length <= 1000 ? s : null;
}

/**
 * The market's trading figures as Gamma states them; a figure that is missing, negative or out of range is left out
 * (null), never guessed. Gamma's lastTradePrice is the first outcome's: the YES price is its complement when YES is second.
 */
function statsOf(m: GammaMarket, yesAt: number): MarketStats {
  const dollars = (v: number | null | undefined) => (v !== null && v !== undefined && Number.isFinite(v) && v >= 0 ? v : null);
  const first = priceToMicro(m.lastTradePrice);
  const last = first === null ? null : yesAt === 0 ? first : MICRO - first;
  const tick = priceToMicro(m.orderPriceMinTickSize);
  return {
    volume24h: dollars(m.volume24hr),
    openInterest: dollars(m.openInterest),
    lastTradePriceMicro: last,
    tickSizeMicro: tick !== null && tick > 0n ? tick : null,
    minOrderShares: dollars(m.orderMinSize),
  };
}
