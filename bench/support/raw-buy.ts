import type { PoolClient } from 'pg';
import type { Queryable } from '../../src/db/database';
import { BUY_STATEMENT } from '../../src/domain/trading/trade-sql';
import type { TradeEvent } from '../../src/domain/trading/trade-hooks';
import { trackTrade } from '../../src/domain/track-record/track-listener';

/**
 * One buy transaction straight through `pg`, in the service's shape (Database.transaction, TradingService.buy):
 * BEGIN, the buy statement and, with `track`, the track record's statements go out together, prepared under
 * the service's names; COMMIT once they have answered, or ROLLBACK for a refused buy (no position), which
 * takes the track record's writes with it. The benches' baseline for a trade. The client must be pipelined
 * (benchPool). `buy` is BUY_STATEMENT's parameters; `pending` hears the traders whose figures wait for a board fold.
 */
export async function rawBuy(
  client: PoolClient,
  buy: unknown[],
  track?: TradeEvent,
  pending?: (userId: string) => void,
): Promise<{ positionId: string | null }> {
  const tx: Queryable = { query: async (sql, params, name) => (await client.query({ name, text: sql, values: params })).rows as never[] };
  // Sent in this order: BEGIN, the buy, then the track record.
  const begun = client.query('BEGIN');
  const bought = client.query<{ position_id: string | null }>({ name: 'buy', text: BUY_STATEMENT, values: buy });
  const sent = await Promise.allSettled([begun, bought, track ? trackTrade(tx, track, pending) : undefined]);
  const failed = sent.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await client.query('ROLLBACK');
    throw failed.reason;
  }
  const positionId = (await bought).rows[0]?.position_id ?? null;
  await client.query(positionId ? 'COMMIT' : 'ROLLBACK');
  return { positionId };
}
