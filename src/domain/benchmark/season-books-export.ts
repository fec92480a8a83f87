import type { Database } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';
import { MICRO } from '../money/micro';
import { equityDaysSql, type PricePath } from './benchmark-inputs';
import { resolvedMarketsCte } from './resolved-markets';
import { seasonRange, type Season } from './seasons';

/**
 * The parts of a season's export beside its forecasts (issue 49 item 4): every trade on the season's resolved markets,
 * each scored account's daily equity series, every such market's resolution and its tokens' price path. With the
 * forecasts (benchmark-export.ts) they are what every board is scored from, so a reader can recompute each board
 * (scripts/recompute-benchmark.ts) without the service. Each part reads the books the way benchmark-inputs.ts does.
 */

type Audience = 'people' | 'agents' | 'reference';

export interface ExportedTrade {
  id: string;
  userId: string;
  audience: Audience;
  marketId: string;
  tokenId: string;
  /** The token's outcome: YES or NO. */
  outcome: string;
  side: 'BUY' | 'SELL' | 'SETTLE';
  createdAt: string;
  /** Price per share, 0..1. */
  price: number;
  /** Shares. */
  shares: number;
  /** Cash to the account, dollars: negative for a buy (its cost). */
  cash: number;
  fee: number;
  /**
   * A buy on a venue with its own price path (the simulated venue): the path's price of the token bought at +1 h,
   * +24 h (each only when before the close) and a second before the close (only for a buy before it), null where the
   * horizon does not apply or the path has no price; the timing boards read these. A horizon the path could not answer
   * is left out, and null when it answered none (the mirror, a token it does not know): there the snapshots in the
   * prices part serve, as they do for the service.
   */
  venuePath: VenueHorizons | null;
}

export interface VenueHorizons {
  after1h?: number | null;
  after24h?: number | null;
  atClose?: number | null;
}

export interface ExportedEquity {
  userId: string;
  audience: Audience;
  /** YYYY-MM-DD (UTC) of a day's last snapshot; null for the equity before the season starts (its last snapshot before). */
  day: string | null;
  /** Cash plus positions' value, dollars. */
  equity: number;
  /** Cash from outside trading that day (grants, rewards, a pool's funding and return), dollars: not a return. */
  flow: number;
}

export interface ExportedMarket {
  marketId: string;
  /** 1 = YES, 0 = NO, null = VOID. */
  winner: number | null;
  closedAt: string;
  resolvedAt: string;
  category: string;
  yesTokenId: string | null;
  noTokenId: string | null;
}

export interface ExportedPrice {
  tokenId: string;
  marketId: string;
  outcome: string;
  t: string;
  price: number;
}

export type BooksPart = 'trades' | 'equity' | 'markets' | 'prices';
export type BooksRow = ExportedTrade | ExportedEquity | ExportedMarket | ExportedPrice;

const dollars = (m: string | bigint | number): number => Number(m) / Number(MICRO);
const iso = (d: Date | string): string => new Date(d).toISOString();
const AUDIENCE = `CASE WHEN u.reference IS NOT NULL THEN 'reference' WHEN u.is_agent THEN 'agents' ELSE 'people' END`;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** A live account's trades on the season's resolved markets, paged by (account, trade id). */
const TRADES_SQL = `
  WITH ${resolvedMarketsCte({ from: '$1', to: '$2' })}
  SELECT t.id, t.user_id, ${AUDIENCE} AS audience, t.market_id, t.token_id, pos.outcome, t.side, t.created_at, t.price_micro,
    t.quantity_micro, t.cash_micro, t.fee_micro, r.closed_at
  FROM resolved r JOIN trades t ON t.market_id = r.market_id JOIN positions pos ON pos.id = t.position_id
    JOIN users u ON u.id = t.user_id AND u.deleted_at IS NULL
  WHERE ($3::uuid IS NULL OR (t.user_id, t.id) > ($3::uuid, $4::uuid))
  ORDER BY t.user_id, t.id LIMIT $5`;

/**
 * Each scored account's equity series (benchmark-inputs.ts DAYS_SQL and START_SQL): the last snapshot before the season
 * (day ''), then each UTC day's last snapshot with the day's flows. Paged by (account, day).
 */
const EQUITY_SQL = `
  WITH ${resolvedMarketsCte({ from: '$1', to: '$2' })},
  who AS (
    SELECT u.id AS user_id, ${AUDIENCE} AS audience FROM users u WHERE u.deleted_at IS NULL AND u.id IN (
      SELECT f.user_id FROM forecasts f JOIN resolved r ON r.market_id = f.market_id
      UNION SELECT t.user_id FROM trades t JOIN resolved r ON r.market_id = t.market_id WHERE t.side = 'BUY')
  ), series AS (
    SELECT w.user_id, w.audience, '' AS day, s.equity_micro, 0::bigint AS flow_micro
    FROM who w CROSS JOIN LATERAL (
      SELECT cash_micro + positions_value_micro AS equity_micro FROM portfolio_snapshots
      WHERE user_id = w.user_id AND bucket < $1 ORDER BY bucket DESC LIMIT 1) s
    WHERE $1::timestamptz IS NOT NULL
    UNION ALL
    SELECT w.user_id, w.audience, x.day, x.equity_micro, x.flow_micro FROM who w CROSS JOIN LATERAL (
      ${equityDaysSql('w.user_id', '$1', '$2')}
    ) x
  )
  SELECT user_id, audience, day, equity_micro, flow_micro FROM series
  WHERE ($3::uuid IS NULL OR (user_id, day COLLATE "C") > ($3::uuid, $4::text COLLATE "C"))
  ORDER BY user_id, day COLLATE "C" LIMIT $5`;

/** The season's resolved markets with their resolution and tokens, paged by market id. */
const MARKETS_SQL = `
  WITH ${resolvedMarketsCte({ from: '$1', to: '$2' })}
  SELECT r.market_id, r.winner, r.closed_at, r.resolved_at, r.category,
    (SELECT token_id FROM market_tokens WHERE market_id = r.market_id AND outcome = 'YES' LIMIT 1) AS yes_token,
    (SELECT token_id FROM market_tokens WHERE market_id = r.market_id AND outcome = 'NO' LIMIT 1) AS no_token
  FROM resolved r WHERE ($3::text IS NULL OR r.market_id COLLATE "C" > $3::text COLLATE "C")
  ORDER BY r.market_id COLLATE "C" LIMIT $4`;

/** Every price snapshot of the season's resolved markets' tokens (the path timing reads on the mirror), paged by (token, t). */
const PRICES_SQL = `
  WITH ${resolvedMarketsCte({ from: '$1', to: '$2' })}
  SELECT s.token_id, mt.market_id, mt.outcome, s.t, s.t::text AS t_text, s.price_micro
  FROM resolved r JOIN market_tokens mt ON mt.market_id = r.market_id JOIN price_snapshots s ON s.token_id = mt.token_id
  WHERE ($3::text IS NULL OR (s.token_id COLLATE "C", s.t) > ($3::text COLLATE "C", $4::timestamptz))
  ORDER BY s.token_id COLLATE "C", s.t LIMIT $5`;

const HOUR_MS = 3_600_000;
/** benchmark-inputs.ts reads the close a second before it (the last price trading). */
const CLOSE_LEAD_MS = 1000;

/** The venue's path at a buy's horizons, as benchmark-inputs.ts reads it; a horizon it cannot answer is left out. */
async function venueHorizons(path: PricePath, tokenId: string, at: number, close: number): Promise<VenueHorizons | null> {
  const out: VenueHorizons = {};
  const read = async (key: keyof VenueHorizons, t: number, applies: boolean) => {
    if (!applies) out[key] = null;
    else {
      const v = await path(tokenId, t);
      if (v !== undefined) out[key] = v;
    }
  };
  await read('after1h', at + HOUR_MS, at + HOUR_MS <= close);
  await read('after24h', at + 24 * HOUR_MS, at + 24 * HOUR_MS <= close);
  await read('atClose', Math.max(at, close - CLOSE_LEAD_MS), at < close);
  return Object.keys(out).length > 0 ? out : null;
}

/** How each part pages: its cursor's sort name, what a key looks like, and how a key becomes the statement's $3/$4. */
const PAGING: Record<BooksPart, { sort: string; key: RegExp; after: (k: string) => [string, string | null] }> = {
  trades: { sort: 'trades_user_id', key: new RegExp(`^${UUID}:${UUID}$`, 'i'), after: (k) => [k.slice(0, 36), k.slice(37)] },
  equity: { sort: 'equity_user_day', key: new RegExp(`^${UUID}:(\\d{4}-\\d{2}-\\d{2})?$`, 'i'), after: (k) => [k.slice(0, 36), k.slice(37)] },
  markets: { sort: 'markets_id', key: /^[\x20-\x7e]{1,200}$/, after: (k) => [k, null] },
  prices: {
    sort: 'prices_token_t',
    key: /^[\x20-\x7e]{1,300}$/,
    after: (k) => {
      const at = k.lastIndexOf('|');
      return [k.slice(0, at), k.slice(at + 1)];
    },
  },
};

/** A page of one part of a season's export; `path` is the venue's own price path when it has one. */
export async function exportSeasonBooks(
  db: Database,
  season: Season,
  part: BooksPart,
  q: { limit: number; cursor?: string },
  path?: PricePath,
): Promise<{ rows: BooksRow[]; nextCursor: string | null }> {
  const range = seasonRange(season);
  const paging = PAGING[part];
  let after: [string | null, string | null] = [null, null];
  if (q.cursor !== undefined) {
    const valid = (k: string) => paging.key.test(k) && (part !== 'prices' || TIMESTAMP_TEXT.test(paging.after(k)[1] ?? ''));
    const c = decodeCursor(q.cursor, paging.sort, valid, 'Pass nextCursor from the previous page unchanged.');
    after = paging.after(c.k);
  }
  // A market id is the whole key: that statement has no fourth key parameter, and its limit is $4.
  const params =
    part === 'markets'
      ? [range?.from ?? null, range?.to ?? null, after[0], q.limit + 1]
      : [range?.from ?? null, range?.to ?? null, after[0], after[1], q.limit + 1];
  const sql = { trades: TRADES_SQL, equity: EQUITY_SQL, markets: MARKETS_SQL, prices: PRICES_SQL }[part];
  const found = await db.query<Record<string, unknown>>(sql, params);
  const page = found.slice(0, q.limit);
  const rows: BooksRow[] = [];
  for (const r of page) rows.push(await toRow(part, r, path));
  const last = page[page.length - 1];
  const key = (r: Record<string, unknown>): string =>
    part === 'trades'
      ? `${String(r.user_id)}:${String(r.id)}`
      : part === 'equity'
        ? `${String(r.user_id)}:${String(r.day)}`
        : part === 'markets'
          ? String(r.market_id)
          : `${String(r.token_id)}|${String(r.t_text)}`;
  return {
    rows,
    nextCursor: found.length > q.limit && last ? encodeCursor({ s: paging.sort, k: key(last), i: key(last).slice(0, 36) }) : null,
  };
}

async function toRow(part: BooksPart, r: Record<string, unknown>, path?: PricePath): Promise<BooksRow> {
  const m = (k: string) => dollars(r[k] as string | bigint);
  if (part === 'trades') {
    const side = r.side as ExportedTrade['side'];
    const at = new Date(r.created_at as Date).getTime();
    return {
      id: String(r.id),
      userId: String(r.user_id),
      audience: r.audience as Audience,
      marketId: String(r.market_id),
      tokenId: String(r.token_id),
      outcome: String(r.outcome),
      side,
      createdAt: iso(r.created_at as Date),
      price: m('price_micro'),
      shares: m('quantity_micro'),
      cash: m('cash_micro'),
      fee: m('fee_micro'),
      venuePath: path && side === 'BUY' ? await venueHorizons(path, String(r.token_id), at, new Date(r.closed_at as Date).getTime()) : null,
    };
  }
  if (part === 'equity')
    return {
      userId: String(r.user_id),
      audience: r.audience as Audience,
      day: r.day === '' ? null : String(r.day),
      equity: m('equity_micro'),
      flow: m('flow_micro'),
    };
  if (part === 'markets')
    return {
      marketId: String(r.market_id),
      winner: r.winner === null ? null : Number(r.winner),
      closedAt: iso(r.closed_at as Date),
      resolvedAt: iso(r.resolved_at as Date),
      category: String(r.category),
      yesTokenId: (r.yes_token as string | null) ?? null,
      noTokenId: (r.no_token as string | null) ?? null,
    };
  return { tokenId: String(r.token_id), marketId: String(r.market_id), outcome: String(r.outcome), t: iso(r.t as Date), price: m('price_micro') };
}

/** Each part's CSV columns, in order (venuePath is its JSON text). */
export const BOOKS_CSV_COLUMNS: Record<BooksPart, readonly string[]> = {
  trades: ['id', 'userId', 'audience', 'marketId', 'tokenId', 'outcome', 'side', 'createdAt', 'price', 'shares', 'cash', 'fee', 'venuePath'],
  equity: ['userId', 'audience', 'day', 'equity', 'flow'],
  markets: ['marketId', 'winner', 'closedAt', 'resolvedAt', 'category', 'yesTokenId', 'noTokenId'],
  prices: ['tokenId', 'marketId', 'outcome', 't', 'price'],
};
