import type { Queryable } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';
import { fromMicro } from '../money/micro';

export type TradeKind = 'buy' | 'sell' | 'settlement';

export interface TradeView {
  id: string;
  kind: TradeKind;
  marketId: string;
  marketSlug: string;
  question: string;
  tokenId: string;
  outcome: 'YES' | 'NO';
  quantity: number;
  price: number;
  amount: number;
  realizedPnl: number | null;
  createdAt: string;
}

interface TradeRow {
  id: string;
  side: 'BUY' | 'SELL' | 'SETTLE';
  market_id: string;
  slug: string | null;
  question: string | null;
  token_id: string;
  outcome: 'YES' | 'NO';
  quantity_micro: bigint;
  price_micro: bigint;
  cash_micro: bigint;
  realized_pnl_micro: bigint;
  created_at: Date;
  created_key: string;
}

const KIND: Record<TradeRow['side'], TradeKind> = { BUY: 'buy', SELL: 'sell', SETTLE: 'settlement' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The one order of this list, named in its cursors. */
const SORT = 'newest';

/**
 * An account's fills read from the trade journal (the rows the ledger audit checks), newest first: buys,
 * sells and settlements. Keyset-paged on (created_at, id), both descending, so it is a walk of the
 * (user_id, created_at, id) index from the cursor (migration 1700000000011).
 */
export class TradeHistory {
  constructor(private readonly db: Queryable) {}

  async list(userId: string, q: { limit: number; cursor?: string; marketId?: string }): Promise<{ trades: TradeView[]; nextCursor: string | null }> {
    const params: unknown[] = [userId, q.limit + 1];
    const param = (v: unknown) => `$${params.push(v)}`;
    let where = 't.user_id = $1';
    if (q.marketId !== undefined) where += ` AND t.market_id = ${param(q.marketId)}`;
    if (q.cursor !== undefined) {
      const c = decodeCursor(
        q.cursor,
        SORT,
        (k) => TIMESTAMP_TEXT.test(k),
        'Pass nextCursor from the previous page unchanged; omit cursor for the first page.',
        (i) => UUID.test(i),
      );
      where += ` AND (t.created_at, t.id) < (${param(c.k)}::timestamptz, ${param(c.i)}::uuid)`;
    }
    const rows = await this.db.query<TradeRow>(
      `SELECT t.id, t.side, t.market_id, coalesce(m.slug, c.slug) AS slug, coalesce(m.question, c.question) AS question, t.token_id, p.outcome,
              t.quantity_micro, t.price_micro, t.cash_micro, t.realized_pnl_micro, t.created_at, t.created_at::text AS created_key
       FROM trades t JOIN positions p ON p.id = t.position_id LEFT JOIN markets m ON m.id = t.market_id
         LEFT JOIN community_markets c ON m.id IS NULL AND c.id::text = t.market_id
       WHERE ${where}
       ORDER BY t.created_at DESC, t.id DESC
       LIMIT $2`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      trades: page.map(toTradeView),
      nextCursor: rows.length > q.limit && last ? encodeCursor({ s: SORT, k: last.created_key, i: last.id }) : null,
    };
  }
}

function toTradeView(r: TradeRow): TradeView {
  const cash = r.cash_micro < 0n ? -r.cash_micro : r.cash_micro;
  return {
    id: r.id,
    kind: KIND[r.side],
    marketId: r.market_id,
    marketSlug: r.slug ?? r.market_id,
    question: r.question ?? '',
    tokenId: r.token_id,
    outcome: r.outcome,
    quantity: fromMicro(r.quantity_micro),
    price: fromMicro(r.price_micro),
    amount: fromMicro(cash),
    // A buy realizes nothing; a sale or settlement carries what it realized.
    realizedPnl: r.side === 'BUY' ? null : fromMicro(r.realized_pnl_micro),
    createdAt: new Date(r.created_at).toISOString(),
  };
}
