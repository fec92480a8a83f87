import { fromMicro } from '../domain/money/micro';
import type { FeedSource, MarketStatus, Winner } from './feed';

/** The columns every market read selects: the market and its YES/NO tokens, in one row. */
export const MARKET_COLUMNS = `m.id, m.slug, m.question, m.description, m.category, m.image_url, m.volume, m.end_date, m.status, m.winner,
  m.resolved_at, m.source, m.created_at, m.volume_24h, m.open_interest, m.last_trade_price_micro, m.tick_size_micro, m.min_order_shares,
  y.token_id AS yes_token, y.label AS yes_label, y.price_micro AS yes_price, y.bid_micro AS yes_bid, y.ask_micro AS yes_ask, y.price_at AS yes_at,
  n.token_id AS no_token, n.label AS no_label, n.price_micro AS no_price, n.bid_micro AS no_bid, n.ask_micro AS no_ask, n.price_at AS no_at`;

export const MARKET_JOINS = `LEFT JOIN market_tokens y ON y.market_id = m.id AND y.outcome = 'YES'
  LEFT JOIN market_tokens n ON n.market_id = m.id AND n.outcome = 'NO'`;

export interface MarketRow {
  id: string;
  slug: string;
  question: string;
  description: string | null;
  category: string | null;
  image_url: string | null;
  volume: number | null;
  end_date: Date | null;
  status: MarketStatus;
  winner: Winner | null;
  resolved_at: Date | null;
  source: FeedSource;
  created_at: Date;
  volume_24h: number | null;
  open_interest: number | null;
  last_trade_price_micro: bigint | null;
  tick_size_micro: bigint | null;
  min_order_shares: number | null;
  yes_token: string | null;
  yes_label: string | null;
  yes_price: bigint | null;
  yes_bid: bigint | null;
  yes_ask: bigint | null;
  yes_at: Date | null;
  no_token: string | null;
  no_label: string | null;
  no_price: bigint | null;
  no_bid: bigint | null;
  no_ask: bigint | null;
  no_at: Date | null;
}

export interface OutcomeTokenView {
  outcome: 'YES' | 'NO';
  label: string;
  tokenId: string | null;
}

/** A market on the wire: SPEC's fields (id, slug, question, category, imageUrl, outcomeTokens, yesPrice, volume) plus documented additions. */
export interface MarketView {
  id: string;
  slug: string;
  question: string;
  category: string | null;
  imageUrl: string | null;
  outcomeTokens: OutcomeTokenView[];
  yesPrice?: number;
  noPrice?: number;
  volume: number | null;
  endDate: string | null;
  status: MarketStatus;
  winner: Winner | null;
  source: FeedSource;
  simulated: boolean;
}

/** What a market on the wire needs: the search returns just these columns. */
export type MarketViewRow = Pick<
  MarketRow,
  | 'id'
  | 'slug'
  | 'question'
  | 'category'
  | 'image_url'
  | 'volume'
  | 'end_date'
  | 'status'
  | 'winner'
  | 'source'
  | 'yes_token'
  | 'yes_label'
  | 'yes_price'
  | 'no_token'
  | 'no_label'
  | 'no_price'
>;

const price = (micro: bigint | null): number | undefined => (micro === null ? undefined : fromMicro(micro));

export function toMarketView(r: MarketViewRow): MarketView {
  const view: MarketView = {
    id: r.id,
    slug: r.slug,
    question: r.question,
    category: r.category,
    imageUrl: r.image_url,
    outcomeTokens: [
      { outcome: 'YES', label: r.yes_label ?? 'Yes', tokenId: r.yes_token },
      { outcome: 'NO', label: r.no_label ?? 'No', tokenId: r.no_token },
    ],
    volume: r.volume === null ? null : Math.round(Number(r.volume) * 100) / 100,
    endDate: r.end_date ? r.end_date.toISOString() : null,
    status: r.status,
    winner: r.winner,
    source: r.source,
    simulated: r.source === 'simulated',
  };
  const yes = price(r.yes_price);
  const no = price(r.no_price);
  if (yes !== undefined) view.yesPrice = yes;
  if (no !== undefined) view.noPrice = no;
  return view;
}

/** A market's trading figures on the wire (get_market_odds), each null where its venue does not say. */
export interface MarketStatsView {
  volume24h: number | null;
  openInterest: number | null;
  lastTradePrice: number | null;
  tickSize: number | null;
  minOrderShares: number | null;
}

export type MarketStatsRow = Pick<MarketRow, 'volume_24h' | 'open_interest' | 'last_trade_price_micro' | 'tick_size_micro' | 'min_order_shares'>;

const cents = (v: number | null) => (v === null ? null : Math.round(Number(v) * 100) / 100);
const priceOrNull = (micro: bigint | null) => (micro === null ? null : fromMicro(BigInt(micro)));

export function toMarketStatsView(r: MarketStatsRow): MarketStatsView {
  return {
    volume24h: cents(r.volume_24h),
    openInterest: cents(r.open_interest),
    lastTradePrice: priceOrNull(r.last_trade_price_micro),
    tickSize: priceOrNull(r.tick_size_micro),
    minOrderShares: r.min_order_shares === null ? null : Number(r.min_order_shares),
  };
}
