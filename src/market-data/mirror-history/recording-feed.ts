import type { Logger } from '../../logger';
import type { Clock } from '../../clock';
import type { FeedMarket, FeedQuote, FeedStatus, HistoryRange, MarketFeed, MarketListing, NewsQuery, FeedNewsItem, PricePoint } from '../feed';
import { fingerprintOf } from './market-codec';
import type { MirrorHistoryStore } from './mirror-history-store';

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * The Polymarket feed, recording what it answers (issue 35 item 6): every market it lists or looks up whenever its prices,
 * book top or state changed, and every book it quotes, into the mirror's history, kept `keepDays`. What the venue said is
 * recorded even when the mirror then refuses it (a slug conflict): the history is of the venue, not of the mirror.
 * Recording trouble is logged and never fails the sync or the quote behind it.
 */
export class RecordingFeed implements MarketFeed {
  readonly source;
  /** The last recorded fingerprint per market: unchanged markets add no row. */
  private readonly last = new Map<string, string>();
  private lastPruneMs = -Infinity;
  /** The inner feed's news, when it has any (Polymarket has none). */
  readonly news?: (q: NewsQuery) => Promise<FeedNewsItem[]>;

  constructor(
    readonly inner: MarketFeed,
    private readonly store: MirrorHistoryStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly keepDays: number,
  ) {
    this.source = inner.source;
    if (inner.news) this.news = inner.news.bind(inner);
  }

  async listMarkets(): Promise<MarketListing> {
    const listing = await this.inner.listMarkets();
    await this.record(listing.markets);
    await this.pruneNow();
    return listing;
  }

  async market(idOrSlug: string): Promise<FeedMarket | null> {
    const m = await this.inner.market(idOrSlug);
    if (m) await this.record([m]);
    return m;
  }

  async quote(tokenId: string): Promise<FeedQuote> {
    const q = await this.inner.quote(tokenId);
    await this.store.recordBook(q).catch((err) => this.log.error('recording a book failed', { tokenId, error: String(err) }));
    return q;
  }

  history(tokenId: string, range: HistoryRange): Promise<PricePoint[]> {
    return this.inner.history(tokenId, range);
  }

  status(): FeedStatus {
    return this.inner.status();
  }

  private async record(markets: FeedMarket[]): Promise<void> {
    const changed = markets.filter((m) => this.last.get(m.id) !== fingerprintOf(m));
    if (changed.length === 0) return;
    try {
      await this.store.recordMarkets(changed);
      for (const m of changed) this.last.set(m.id, fingerprintOf(m));
    } catch (err) {
      this.log.error('recording the mirror’s history failed', { markets: changed.length, error: String(err) });
    }
  }

  private async pruneNow(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.lastPruneMs < PRUNE_EVERY_MS) return;
    this.lastPruneMs = now;
    await this.store
      .prune(new Date(now - this.keepDays * DAY_MS))
      .catch((err) => this.log.error('pruning the mirror’s history failed', { error: String(err) }));
  }
}

/** The venue behind a recording feed (tests reach the Polymarket client's settings through it). */
export function venueOf(feed: MarketFeed): MarketFeed {
  return feed instanceof RecordingFeed ? feed.inner : feed;
}
