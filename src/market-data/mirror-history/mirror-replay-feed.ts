import type { Clock } from '../../clock';
import { FeedError, type FeedMarket, type FeedQuote, type FeedStatus, type HistoryRange, type MarketFeed, type MarketListing, type PricePoint } from '../feed';
import { loadMarket } from './market-codec';
import type { RecordedBook, RecordedMarket, RecordedWindow } from './mirror-history-store';

/** The last record at or before `tMs` of a list sorted by time, or undefined. */
function at<T extends { tMs: number }>(list: readonly T[] | undefined, tMs: number): T | undefined {
  if (!list) return undefined;
  let lo = 0;
  let hi = list.length - 1;
  let found: T | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.tMs <= tMs) {
      found = list[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The recorded Polymarket mirror as a venue on a replay run's clock (issue 35 item 6): a market is listed as the venue last
 * described it at or before the run's now, quoted from the last book read for it (or its recorded book top, or its price),
 * and resolves when its record says it did. The window is read once, when the run opens: the run never sees a record after
 * its window's end, though the world (and any language model) may know how the markets ended.
 */
export class MirrorReplayFeed implements MarketFeed {
  readonly source = 'polymarket' as const;
  private readonly byToken = new Map<string, string>();
  private readonly bySlug = new Map<string, string>();

  constructor(
    private readonly recorded: RecordedWindow,
    private readonly fromMs: number,
    private readonly clock: Clock,
  ) {
    for (const [id, list] of recorded.markets) {
      const last = list[list.length - 1]!.market;
      this.bySlug.set(last.slug, id);
      for (const t of last.tokens) this.byToken.set(t.tokenId, id);
    }
  }

  /** Markets of the window: what start_replay refuses when there are none. */
  get marketCount(): number {
    return this.recorded.markets.size;
  }

  async listMarkets(): Promise<MarketListing> {
    const now = this.clock.now();
    const markets: FeedMarket[] = [];
    for (const id of [...this.recorded.markets.keys()].sort()) {
      const m = this.stateAt(id, now);
      // A market that had resolved before the window opened is not part of it.
      if (m && !(m.status === 'resolved' && m.resolvedAt && m.resolvedAt.getTime() < this.fromMs)) markets.push(m);
    }
    return { markets, complete: true, skipped: 0 };
  }

  async market(idOrSlug: string): Promise<FeedMarket | null> {
    const id = this.recorded.markets.has(idOrSlug) ? idOrSlug : this.bySlug.get(idOrSlug);
    return id ? this.stateAt(id, this.clock.now()) : null;
  }

  async quote(tokenId: string): Promise<FeedQuote> {
    const now = this.clock.now();
    const id = this.byToken.get(tokenId);
    const rec = id === undefined ? undefined : at(this.recorded.markets.get(id), now.getTime());
    if (!id || !rec) throw new FeedError('unknown-token', 'The recorded mirror has no such token at this time.');
    if (rec.market.status !== 'active') throw new FeedError('not-trading', 'The market was not trading at this time.');
    const book: RecordedBook | undefined = at(this.recorded.books.get(tokenId), now.getTime());
    // A book read after the market's last recorded change is the newer word on the price; else the record's own top.
    if (book && book.tMs >= rec.tMs) {
      return {
        tokenId,
        bidMicro: book.bidMicro,
        askMicro: book.askMicro,
        midMicro: (book.bidMicro + book.askMicro) / 2n,
        asOf: now,
        ...(book.depth ? { depth: book.depth } : {}),
      };
    }
    const token = rec.market.tokens.find((t) => t.tokenId === tokenId)!;
    const price = BigInt(token.price);
    const bid = token.bid === null ? price : BigInt(token.bid);
    const ask = token.ask === null ? price : BigInt(token.ask);
    return { tokenId, bidMicro: bid, askMicro: ask, midMicro: (bid + ask) / 2n, asOf: now };
  }

  /** The token's recorded prices in the range, never past the run's now. */
  async history(tokenId: string, range: HistoryRange): Promise<PricePoint[]> {
    const id = this.byToken.get(tokenId);
    const toS = Math.min(range.toS, Math.floor(this.clock.now().getTime() / 1000));
    const points: PricePoint[] = [];
    for (const r of (id && this.recorded.markets.get(id)) || []) {
      const t = Math.floor(r.tMs / 1000);
      const token = r.market.tokens.find((x) => x.tokenId === tokenId);
      if (token && t >= range.fromS && t <= toS) points.push({ t, p: Number(token.price) / 1e6 });
    }
    return points;
  }

  status(): FeedStatus {
    return { state: 'up', detail: 'recorded Polymarket mirror, replayed' };
  }

  /** When the next recorded resolution after `nowMs` happens (advance_replay to next_resolution), or null. */
  nextResolutionAt(nowMs: number, endMs: number): number | null {
    let next: number | null = null;
    for (const list of this.recorded.markets.values()) {
      const r = list.find((x: RecordedMarket) => x.tMs > nowMs && x.market.status === 'resolved');
      if (r && r.tMs <= endMs && (next === null || r.tMs < next)) next = r.tMs;
    }
    return next;
  }

  /** The market as last recorded at or before `now`, described as of now (the recorded price is the latest known). */
  private stateAt(id: string, now: Date): FeedMarket | null {
    const rec = at(this.recorded.markets.get(id), now.getTime());
    return rec ? loadMarket(rec.market, now) : null;
  }
}
