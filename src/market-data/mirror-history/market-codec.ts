import type { FeedMarket, FeedToken } from '../feed';
import type { Depth } from '../../domain/trading/price-service';

/** A FeedMarket as JSON (micro amounts as strings, times as ISO), the shape mirror_market_history keeps. */
export type StoredMarket = Omit<FeedMarket, 'tokens' | 'createdAt' | 'endDate' | 'resolvedAt' | 'asOf' | 'stats'> & {
  /** The trading figures, micro amounts as strings (absent in records made before they were kept). */
  stats?: { volume24h: number | null; openInterest: number | null; lastTradePrice: string | null; tickSize: string | null; minOrderShares: number | null };
  createdAt: string | null;
  endDate: string | null;
  resolvedAt: string | null;
  tokens: Array<{ tokenId: string; outcome: 'YES' | 'NO'; label: string; price: string; bid: string | null; ask: string | null }>;
};

export type StoredDepth = { bids: Array<[string, string]>; asks: Array<[string, string]> };

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const date = (s: string | null) => (s ? new Date(s) : null);
const big = (s: string | null) => (s === null ? null : BigInt(s));

export function storeMarket(m: FeedMarket): StoredMarket {
  const { tokens, createdAt, endDate, resolvedAt, asOf: _asOf, stats, ...rest } = m;
  return {
    ...rest,
    ...(stats
      ? {
          stats: {
            volume24h: stats.volume24h,
            openInterest: stats.openInterest,
            lastTradePrice: stats.lastTradePriceMicro === null ? null : stats.lastTradePriceMicro.toString(),
            tickSize: stats.tickSizeMicro === null ? null : stats.tickSizeMicro.toString(),
            minOrderShares: stats.minOrderShares,
          },
        }
      : {}),
    createdAt: iso(createdAt),
    endDate: iso(endDate),
    resolvedAt: iso(resolvedAt),
    tokens: tokens.map((t) => ({
      tokenId: t.tokenId,
      outcome: t.outcome,
      label: t.label,
      price: t.priceMicro.toString(),
      bid: t.bidMicro === null ? null : t.bidMicro.toString(),
      ask: t.askMicro === null ? null : t.askMicro.toString(),
    })),
  };
}

/** The stored market back, described as of `asOf`. */
export function loadMarket(s: StoredMarket, asOf: Date): FeedMarket {
  const token = (t: StoredMarket['tokens'][number]): FeedToken => ({
    tokenId: t.tokenId,
    outcome: t.outcome,
    label: t.label,
    priceMicro: BigInt(t.price),
    bidMicro: big(t.bid),
    askMicro: big(t.ask),
  });
  const { stats, ...rest } = s;
  return {
    ...rest,
    ...(stats
      ? {
          stats: {
            volume24h: stats.volume24h,
            openInterest: stats.openInterest,
            lastTradePriceMicro: big(stats.lastTradePrice),
            tickSizeMicro: big(stats.tickSize),
            minOrderShares: stats.minOrderShares,
          },
        }
      : {}),
    createdAt: date(s.createdAt),
    endDate: date(s.endDate),
    resolvedAt: date(s.resolvedAt),
    tokens: [token(s.tokens[0]!), token(s.tokens[1]!)],
    asOf,
  };
}

/** What makes a recorded market worth a new row: its prices, book top and state (metadata edits alone are not history). */
export function fingerprintOf(m: FeedMarket): string {
  return [m.status, m.winner ?? '', ...m.tokens.flatMap((t) => [t.priceMicro, t.bidMicro ?? '', t.askMicro ?? ''])].join('|');
}

export function storeDepth(d: Depth): StoredDepth {
  return {
    bids: d.bids.map((l) => [l.priceMicro.toString(), l.sizeMicro.toString()]),
    asks: d.asks.map((l) => [l.priceMicro.toString(), l.sizeMicro.toString()]),
  };
}

export function loadDepth(d: StoredDepth): Depth {
  const level = ([p, s]: [string, string]) => ({ priceMicro: BigInt(p), sizeMicro: BigInt(s) });
  return { bids: d.bids.map(level), asks: d.asks.map(level) };
}
