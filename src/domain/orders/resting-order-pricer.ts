import { VENUE } from '../ledger/accounts';
import type { Micro } from '../money/micro';
import { buyFill, sellFill } from '../trading/fills';
import { mirroredOpen, type Intent, type IntentForecast, type Pricer } from '../trading/engine';
import type { OrderRow } from './order-rows';
import type { Take } from './order-rules';

/**
 * A limit order's fill as the engine's venue: what order-rules take() decided the order takes now (`t`, in the order's
 * unit at t.priceMicro) is the fill, on the mirrored market's venue account. A buy by amount buys floor(amount / price)
 * shares; one by shares pays the take's cash for its shares; a sale gets t.priceMicro a share. `holds` is the order and
 * the part of its reservation the fill consumes (`release`: its pending transfer is posted by that much, a buy's cash
 * or a sale's shares; 0 for a new order crossing now, which holds nothing yet).
 */
export function restingOrderPricer(o: OrderRow, t: Take, release: Micro): Pricer {
  return {
    account: VENUE,
    buy: () => {
      const fill =
        t.cashMicro !== undefined ? { quantityMicro: t.sizeMicro, priceMicro: t.priceMicro, costMicro: t.cashMicro } : buyFill(t.sizeMicro, t.priceMicro);
      return { amountMicro: fill.costMicro, quantityMicro: fill.quantityMicro, priceMicro: fill.priceMicro };
    },
    check: mirroredOpen,
    sell: (pos, shares) => sellFill({ quantityMicro: pos.quantityMicro, costMicro: pos.costMicro }, shares, t.priceMicro),
    holds: { orderId: o.id, releaseMicro: release },
  };
}

/**
 * The one intent of order `o`'s fill of `t` (a buy of its size in the order's unit, a sale of its shares from
 * `positionId`), with the placing intent's stated forecast when a new order fills now. No limit: take() kept the fill
 * within the order's limit already.
 */
export function restingOrderIntent(o: OrderRow, t: Take, at: Date, positionId: string | null, forecast: IntentForecast | undefined): Intent {
  return {
    userId: o.user_id,
    marketId: o.market_id,
    tokenId: o.token_id,
    outcome: o.outcome,
    side: o.side,
    size: o.side === 'BUY' && o.sized_by === 'amount' ? { by: 'amount', micro: t.sizeMicro } : { by: 'shares', micro: t.sizeMicro },
    ...(positionId !== null ? { positionId } : {}),
    ...(forecast ? { forecast } : {}),
    at,
  };
}
