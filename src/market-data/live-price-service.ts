import type { Database } from '../db/database';
import { AppError } from '../errors/app-error';
import type { Logger } from '../logger';
import type { Clock } from '../clock';
import { FeedError, type MarketFeed } from './feed';
import type { LivePrice, PriceChanges, PriceService } from '../domain/trading/price-service';
import type { PriceBroadcast } from './price-broadcast';

export interface LivePriceOptions {
  maxAgeS: number;
  /** How long a quote is reused before the venue is asked again. */
  cacheMs?: number;
}

const unavailable = (why: string) =>
  new AppError('PRICE_UNAVAILABLE', `Live price unavailable: ${why}. Nothing was changed.`, {
    hint: 'Retry in a few seconds; read get_market_odds to see the market status and price age.',
  });

/**
 * Live prices for trading: the venue's book through a short in-process cache, with singleflight so a
 * burst of trades on one token makes one upstream call. When the venue cannot be reached, the mirror's
 * last synced book serves if it is fresh enough. Anything older than PRICE_MAX_AGE_S is refused
 * (PRICE_UNAVAILABLE, 503): a trade never fills at a stale price.
 */
export class LivePriceService implements PriceService {
  private readonly cache = new Map<string, { price: LivePrice; at: number }>();
  private readonly inflight = new Map<string, Promise<LivePrice>>();
  private readonly cacheMs: number;
  /** Upstream quotes requested (not served from cache or joined to one in flight). */
  upstreamCalls = 0;

  constructor(
    private readonly feed: MarketFeed,
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly opts: LivePriceOptions,
    /** A quote whose bid or ask moved since the last one is a price change (resting orders check it). */
    private readonly changes?: PriceChanges,
    /** ...and is announced to the price streams of every process. */
    private readonly broadcast?: Pick<PriceBroadcast, 'announce'>,
  ) {
    this.cacheMs = Math.min(opts.cacheMs ?? 1000, opts.maxAgeS * 1000);
  }

  async live(tokenId: string): Promise<LivePrice> {
    const hit = this.cache.get(tokenId);
    if (hit && this.clock.now().getTime() - hit.at < this.cacheMs) return this.fresh(hit.price);
    let pending = this.inflight.get(tokenId);
    if (!pending) {
      pending = this.fetch(tokenId).finally(() => this.inflight.delete(tokenId));
      this.inflight.set(tokenId, pending);
    }
    return this.fresh(await pending);
  }

  private async fetch(tokenId: string): Promise<LivePrice> {
    this.upstreamCalls += 1;
    try {
      const q = await this.feed.quote(tokenId);
      const price: LivePrice = {
        tokenId,
        bidMicro: q.bidMicro,
        askMicro: q.askMicro,
        midMicro: q.midMicro,
        asOf: q.asOf,
        source: this.feed.source,
        ...(q.depth ? { depth: q.depth } : {}),
      };
      const before = this.cache.get(tokenId)?.price;
      if (this.cache.size >= 10_000) this.cache.clear();
      this.cache.set(tokenId, { price, at: this.clock.now().getTime() });
      if (!before || before.bidMicro !== price.bidMicro || before.askMicro !== price.askMicro) {
        const { tokenId: _t, midMicro: _m, ...book } = price;
        this.changes?.background([{ tokenId, ...book }], (err) => this.log.error('price change listeners failed', { tokenId, error: String(err) }));
        this.broadcast?.announce([{ tokenId, priceMicro: price.midMicro, bidMicro: price.bidMicro, askMicro: price.askMicro, at: price.asOf }]);
      }
      return price;
    } catch (err) {
      if (!(err instanceof FeedError)) throw err;
      if (err.kind === 'not-trading') throw unavailable('the market is not trading');
      if (err.kind === 'unknown-token') throw unavailable('the venue quotes no price for this token');
      this.log.warn('live price from venue failed; trying the mirror', { tokenId, error: err.message });
      const mirrored = await this.mirrored(tokenId);
      if (!mirrored) throw unavailable('the market feed is unreachable');
      return mirrored;
    }
  }

  /** The last synced book of an active market, when it has one. */
  private async mirrored(tokenId: string): Promise<LivePrice | null> {
    const rows = await this.db.query<{ price_micro: bigint | null; bid_micro: bigint | null; ask_micro: bigint | null; price_at: Date | null }>(
      `SELECT t.price_micro, t.bid_micro, t.ask_micro, t.price_at FROM market_tokens t JOIN markets m ON m.id = t.market_id
       WHERE t.token_id = $1 AND m.status = 'active'`,
      [tokenId],
    );
    const r = rows[0];
    if (!r || r.price_micro === null || r.price_at === null) return null;
    const bid = r.bid_micro ?? r.price_micro;
    const ask = r.ask_micro ?? r.price_micro;
    return { tokenId, bidMicro: bid, askMicro: ask, midMicro: (bid + ask) / 2n, asOf: r.price_at, source: this.feed.source };
  }

  private fresh(price: LivePrice): LivePrice {
    const ageMs = this.clock.now().getTime() - price.asOf.getTime();
    if (ageMs > this.opts.maxAgeS * 1000) throw unavailable(`the latest price is ${Math.round(ageMs / 1000)} s old (limit ${this.opts.maxAgeS} s)`);
    return price;
  }
}
