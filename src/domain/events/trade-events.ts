import type { Queryable } from '../../db/database';
import { fromMicro, MICRO } from '../money/micro';
import type { TradeEvent, TradeHooks } from '../trading/trade-hooks';
import { advanceSeqSql, announce, BALANCE_EVENT_DATA_SQL } from './account-events';

/**
 * A trade's events: `trade` (a buy or sale, on a mirrored or a community market) or `settlement`, then `balance`, both in
 * one statement behind the trade's own, in its transaction. The event sequence's row is locked by its advance, so the two
 * seqs follow the account's previous events with no gap; one announcement (the later seq) wakes the subscribers, who
 * read the log from where they are. An account that does not exist writes nothing (the trade itself is refused).
 */
const APPEND_TRADE_EVENTS = `WITH b AS (SELECT ${BALANCE_EVENT_DATA_SQL} AS balance FROM cash_balances WHERE user_id = $1),
  s AS (${advanceSeqSql('$1::uuid', '2', 'EXISTS (SELECT 1 FROM b)')}),
  e AS (INSERT INTO account_events (user_id, seq, type, data, created_at)
        SELECT $1::uuid, event_seq - 1, $2::text, $3::jsonb, $4::timestamptz FROM s UNION ALL SELECT $1::uuid, event_seq, 'balance', b.balance, $4::timestamptz FROM s, b)
  SELECT event_seq FROM s`;

/** What a `trade` or `settlement` event says (dollars and shares as numbers, like every response). */
export function tradeEventData(e: TradeEvent): Record<string, unknown> {
  // Listeners that do not pass the price (an order's fill path) get cash / shares, which is the fill's own average.
  const priceMicro = e.priceMicro ?? (e.quantityMicro > 0n ? (e.cashMicro * MICRO) / e.quantityMicro : 0n);
  const data: Record<string, unknown> = {
    marketId: e.marketId,
    tokenId: e.tokenId,
    ...(e.side === 'SETTLE' ? {} : { side: e.side }),
    shares: fromMicro(e.quantityMicro),
    price: fromMicro(priceMicro),
    cash: fromMicro(e.cashMicro),
    realizedPnl: fromMicro(e.realizedPnlMicro),
  };
  if (e.positionId) data.positionId = e.positionId;
  if (e.side === 'SETTLE') data.won = e.won ?? null;
  return data;
}

export async function appendTradeEvents(tx: Queryable, e: TradeEvent): Promise<void> {
  const rows = await tx.query<{ event_seq: bigint }>(
    APPEND_TRADE_EVENTS,
    [e.userId, e.side === 'SETTLE' ? 'settlement' : 'trade', JSON.stringify(tradeEventData(e)), e.at],
    'append_trade_events',
  );
  if (rows[0]) announce(tx, e.userId, rows[0].event_seq);
}

/** Every trade, sale and settlement writes its events in its own transaction (register before the track record's
 * listeners, so an account reads its trade before the badges and level-ups it earned). */
export function recordTradeEvents(hooks: TradeHooks): void {
  hooks.on(appendTradeEvents);
}
