import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';

/** The trade journal (`trades`): one row per buy, sale and settlement, written here alone, in the trade's transaction. */
export interface TradeRecord {
  id: string;
  userId: string;
  positionId: string;
  marketId: string;
  tokenId: string;
  side: 'BUY' | 'SELL' | 'SETTLE';
  quantityMicro: Micro;
  priceMicro: Micro;
  /** Cash moved: negative for a buy (spent, the fee included), positive for a sale's proceeds or a settlement's payout. */
  cashMicro: Micro;
  /** Realized PnL (0 for a buy). */
  realizedPnlMicro: Micro;
  /** The venue's fee, part of cashMicro (0 for a settlement). */
  feeMicro: Micro;
  at: Date;
}

const INSERT = `INSERT INTO trades (id, user_id, position_id, market_id, token_id, side, quantity_micro, price_micro, cash_micro, realized_pnl_micro, fee_micro, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

export async function recordTrade(tx: Queryable, t: TradeRecord): Promise<void> {
  await tx.query(
    INSERT,
    [
      t.id,
      t.userId,
      t.positionId,
      t.marketId,
      t.tokenId,
      t.side,
      t.quantityMicro.toString(),
      t.priceMicro.toString(),
      t.cashMicro.toString(),
      t.realizedPnlMicro.toString(),
      t.feeMicro.toString(),
      t.at,
    ],
    'trade_record',
  );
}
