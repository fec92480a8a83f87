import type { Micro } from '../domain/money/micro';
import type { Depth } from '../domain/trading/price-service';

export type FeedSource = 'simulated' | 'polymarket';
export type MarketStatus = 'active' | 'closed' | 'resolved';
export type Winner = 'YES' | 'NO' | 'VOID';

export interface FeedToken {
  tokenId: string;
  outcome: 'YES' | 'NO';
  /** The venue's own label (Yes, No, or a team name). */
  label: string;
  priceMicro: Micro;
  bidMicro: Micro | null;
  askMicro: Micro | null;
}

/** One binary market as a venue describes it, already validated; the mirror stores nothing else. */
export interface FeedMarket {
  id: string;
  slug: string;
  question: string;
  description: string | null;
  category: string | null;
  imageUrl: string | null;
  volume: number | null;
  createdAt: Date | null;
  endDate: Date | null;
  status: MarketStatus;
  winner: Winner | null;
  resolvedAt: Date | null;
  tokens: [FeedToken, FeedToken];
  /** When the venue described it (prices included). */
  asOf: Date;
  /** The venue's trading figures, where it states them (absent: none known). */
  stats?: MarketStats;
}

/** A market's trading figures as its venue states them; each null when the venue does not say. */
export interface MarketStats {
  /** Dollars traded over the last 24 hours. */
  volume24h: number | null;
  /** Dollars held in open positions. */
  openInterest: number | null;
  /** The YES price of the last trade. */
  lastTradePriceMicro: Micro | null;
  /** The smallest step between two order prices. */
  tickSizeMicro: Micro | null;
  /** The smallest order the venue takes, in shares. */
  minOrderShares: number | null;
}

export interface MarketListing {
  markets: FeedMarket[];
  /** False when paging stopped early (upstream trouble): absence from the list then proves nothing. */
  complete: boolean;
  /** Records that failed validation and were left out. */
  skipped: number;
}

export interface FeedQuote {
  tokenId: string;
  bidMicro: Micro;
  askMicro: Micro;
  midMicro: Micro;
  asOf: Date;
  /** The venue's book levels, where it publishes them (the CLOB's /book); absent for the simulated venue. */
  depth?: Depth;
}

export interface HistoryRange {
  interval: string;
  fromS: number;
  toS: number;
  stepS: number;
}

export interface PricePoint {
  t: number;
  p: number;
}

export interface FeedStatus {
  state: 'up' | 'degraded' | 'down';
  detail: string;
}

/** A news item a venue published about one of its markets (the simulated venue with SIM_INFORMATION=on). */
export interface FeedNewsItem {
  id: string;
  marketId: string;
  question: string;
  publishedAt: Date;
  headline: string;
  body: string;
}

/** Which news items to read: published in (since, until], before the `before` item (keyset), newest first. */
export interface NewsQuery {
  marketId?: string;
  sinceMs?: number;
  untilMs?: number;
  /** The last item of the previous page: only items strictly older (by time, then id) are returned. */
  before?: { tMs: number; id: string };
  limit: number;
}

/** A source of markets and prices: the embedded simulated venue or the Polymarket adapter. */
export interface MarketFeed {
  readonly source: FeedSource;
  /** Every market the venue currently lists as trading (and, for the simulator, awaiting resolution). */
  listMarkets(): Promise<MarketListing>;
  /** One market by id or slug; null when the venue does not know it. */
  market(idOrSlug: string): Promise<FeedMarket | null>;
  /** The token's book right now. Throws FeedError. */
  quote(tokenId: string): Promise<FeedQuote>;
  /** YES/NO probability points of a token over a range. Throws FeedError. */
  history(tokenId: string, range: HistoryRange): Promise<PricePoint[]>;
  status(): FeedStatus;
  /**
   * News items published up to the feed's now, newest first (time, then id, descending), at most `limit`.
   * Optional: a venue without news (Polymarket, or the simulated venue with information off) has none.
   */
  news?(q: NewsQuery): Promise<FeedNewsItem[]>;
}

/**
 * Why a feed could not answer: `unavailable` is upstream trouble (retry later, fall back to the mirror),
 * `not-trading` means the market is closed or resolved, `unknown-token` that the venue has no such token.
 */
export class FeedError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'not-trading' | 'unknown-token',
    message: string,
  ) {
    super(message);
    this.name = 'FeedError';
  }
}
