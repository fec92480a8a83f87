import type { Queryable } from '../../db/database';
import { appendEvent } from '../events/account-events';
import { sharesShort } from '../ledger/shares';
import { fromMicro, type Micro } from '../money/micro';
import { venueOf, type IntentForecast, type TradeEngine } from '../trading/engine';
import { openPositionOf } from '../ledger/trade-moves';
import { toView, type OrderRow } from './order-rows';
import type { Take } from './order-rules';
import { restingOrderIntent, restingOrderPricer } from './resting-order-pricer';

/**
 * Fills `t` of order `o` (its row as locked) inside `tx` (t.sizeMicro in the order's unit at t.priceMicro): one intent
 * executed by the engine against the order's pricer (resting-order-pricer.ts), which prices the fill at the order's
 * price and posts `release` of its reservation into the trade (a resting order consumes what it held for the part that
 * fills; a buy's release beyond the fill's cost returns to available cash, order-rules buyRelease). Appends
 * order.filled or order.partially_filled. A buy's statements are all known up front, so they go out together (one
 * round trip on a pipelined connection); a refused trade throws and the transaction takes them all back. `forecast`:
 * the placing intent's stated forecast (a new order's fill), recorded by the engine with the trade.
 */
export async function fillOrder(tx: Queryable, engine: TradeEngine, o: OrderRow, t: Take, now: Date, release: Micro, forecast?: IntentForecast): Promise<void> {
  const pricer = restingOrderPricer(o, t, release);
  const sent: Array<Promise<unknown>> = [];
  let shares: Micro;
  let cash: Micro;
  if (o.side === 'BUY') {
    // Sent, not awaited: the engine's statements go out before their first answer, so the order's own writes below
    // travel in the same round trip; a refused buy throws once everything sent has finished. The pricer is pure, so
    // what the engine will fill is known now.
    const intent = restingOrderIntent(o, t, now, null, forecast);
    const priced = pricer.buy(intent);
    shares = priced.quantityMicro;
    cash = priced.amountMicro;
    sent.push(engine.execute(tx, intent, venueOf('mirrored', pricer)));
  } else {
    // A sell order's fill, from the position its reservation holds (or the account's open one in the token).
    const positionId = o.position_id ?? (await openPosition(tx, o, t));
    const sold = await engine.execute(tx, restingOrderIntent(o, t, now, positionId, forecast), venueOf('mirrored', pricer));
    if (sold.side !== 'SELL') throw new Error('a sell order executed as a buy');
    shares = sold.fill.quantityMicro;
    cash = sold.fill.proceedsMicro;
  }
  const filledSize = o.filled_size_micro + t.sizeMicro;
  const after: OrderRow = {
    ...o,
    state: filledSize >= o.size_micro ? 'filled' : 'partially_filled',
    filled_size_micro: filledSize,
    filled_shares_micro: o.filled_shares_micro + shares,
    filled_cash_micro: o.filled_cash_micro + cash,
    // The ledger's post of `release` (the engine's trade) leaves this held.
    held_micro: o.held_micro - release,
    updated_at: now,
  };
  sent.push(
    tx.query(
      `UPDATE orders SET state = $2, filled_size_micro = $3, filled_shares_micro = $4, filled_cash_micro = $5, updated_at = $6 WHERE id = $1`,
      [o.id, after.state, after.filled_size_micro, after.filled_shares_micro, after.filled_cash_micro, now],
      'order_filled',
    ),
  );
  const fill = { shares: fromMicro(shares), price: fromMicro(t.priceMicro), cash: fromMicro(cash) };
  sent.push(appendEvent(tx, o.user_id, after.state === 'filled' ? 'order.filled' : 'order.partially_filled', { ...toView(after), fill }, now));
  // Everything sent is awaited before deciding (none may outlive the transaction).
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function openPosition(tx: Queryable, o: OrderRow, t: Take): Promise<string> {
  const held = await openPositionOf(tx, o.user_id, o.token_id);
  if (!held) throw sharesShort(`Not enough unreserved shares of this token to sell ${fromMicro(t.sizeMicro)}.`);
  return held;
}
