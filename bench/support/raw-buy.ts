import type { PoolClient } from 'pg';
import type { Queryable } from '../../src/db/database';
import { BUY_STATEMENT, buyStatementWith } from '../../src/domain/trading/trade-sql';
import type { BuyRowPart, CarriedPart, TradeEvent } from '../../src/domain/trading/trade-hooks';
import { buyRowPart } from '../../src/domain/track-record/track-listener';
import { appendTradeEvents } from '../../src/domain/events/trade-events';

type Pending = (userId: string, seq: number) => void;
const unheard: Pending = () => {};
/** One part per listener of the folder's marks, as the service makes one when it starts. */
const parts = new WeakMap<Pending, BuyRowPart>();
const partFor = (pending: Pending) => parts.get(pending) ?? parts.set(pending, buyRowPart(pending)).get(pending)!;
const TRACKED_BUY = buyStatementWith([buyRowPart()]);

/** Which of paper_trade's trade listeners (src/services.ts) a raw buy does the work of, besides BUY_STATEMENT itself. */
export interface RawBuyListeners {
  /** The track record: its part of the account row's update in the buy's own statement, then what its answer calls for. */
  track: boolean;
  /**
   * The trade's account events (src/domain/events/trade-events.ts, the service's own statement and name): the `trade`
   * and `balance` rows, the account's event_seq, and the NOTIFY that wakes every process listening.
   */
  events: boolean;
}

/** The tracked buy statement carrying a buy's own part (a stated forecast), one per kind of part. */
const carriedBuys = new Map<string, string>();
const carriedBuy = (carry: CarriedPart) => carriedBuys.get(carry.key) ?? carriedBuys.set(carry.key, buyStatementWith([buyRowPart(), carry])).get(carry.key)!;

/**
 * One buy transaction straight through `pg`, in the service's shape (Database.transaction, TradingService.buy):
 * BEGIN, the buy statement and, with `events`, the trade's events go out together, prepared under the service's
 * names, as the service sends its listeners' statements right behind the buy's; with `track`, the statement carries
 * the track record's part of the account row's update, as paper_trade's does, and what its answer calls for (badges,
 * a level-up) follows; `carry` (with `track`) is a buy's own part, as paper_trade's stated forecast rides in its statement;
 * COMMIT, or ROLLBACK for a refused buy (no position). The benches' baseline for a trade.
 * The client must be pipelined (benchPool). `buy` is BUY_STATEMENT's parameters and `event` the same buy as its
 * listeners hear it; `pending` hears the traders whose board rows the board folder is to bring up to date.
 */
export async function rawBuy(
  client: PoolClient,
  buy: unknown[],
  event: TradeEvent,
  listeners: RawBuyListeners,
  pending: Pending = unheard,
  carry?: CarriedPart,
): Promise<{ positionId: string | null }> {
  if (carry && !listeners.track) throw new Error('a raw buy carries a part only with the track record’s');
  const part = partFor(pending);
  const tx: Queryable = { query: async (sql, params, name) => (await client.query({ name, text: sql, values: params })).rows as never[] };
  const begun = client.query('BEGIN');
  const bought = carry
    ? client.query<Record<string, unknown>>({
        name: `buy_with_parts_${carry.key}`,
        text: carriedBuy(carry),
        values: [...buy, ...part.params(event), ...carry.params(event)],
      })
    : listeners.track
      ? client.query<Record<string, unknown>>({ name: 'buy_with_parts', text: TRACKED_BUY, values: [...buy, ...part.params(event)] })
      : client.query<Record<string, unknown>>({ name: 'buy', text: BUY_STATEMENT, values: buy });
  const evented = listeners.events ? appendTradeEvents(tx, event) : Promise.resolve();
  const sent = await Promise.allSettled([begun, bought, evented]);
  const failed = sent.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await client.query('ROLLBACK');
    throw failed.reason;
  }
  const row = (await bought).rows[0]!;
  const positionId = (row.position_id as string | null) ?? null;
  if (positionId && listeners.track) {
    try {
      await part.after(tx, event, row);
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  }
  await client.query(positionId ? 'COMMIT' : 'ROLLBACK');
  return { positionId };
}
