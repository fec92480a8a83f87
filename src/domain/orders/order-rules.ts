import { MICRO, type Micro } from '../money/micro';

export type OrderSide = 'BUY' | 'SELL';
export type TimeInForce = 'GTC' | 'GTD' | 'IOC' | 'FOK';
export type OrderState = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'expired' | 'rejected';

export const OPEN_STATES: readonly OrderState[] = ['open', 'partially_filled'];

/**
 * The price an order fills at now, or null when the market does not reach its limit: a buy takes the ask when
 * ask <= limit, a sell the bid when bid >= limit. Never worse than the limit, by construction.
 */
export function crossingPrice(side: OrderSide, limitMicro: Micro, quote: { bidMicro: Micro; askMicro: Micro }): Micro | null {
  if (side === 'BUY') return quote.askMicro > 0n && quote.askMicro <= MICRO && quote.askMicro <= limitMicro ? quote.askMicro : null;
  return quote.bidMicro > 0n && quote.bidMicro <= MICRO && quote.bidMicro >= limitMicro ? quote.bidMicro : null;
}

/**
 * What becomes of a new order. No depth is published for the prices this service sees, so a crossing order fills
 * whole at the crossing price; one that does not cross rests (GTC, GTD), is cancelled (IOC: nothing could fill) or
 * rejected (FOK: it could not fill whole).
 */
export function onPlacement(tif: TimeInForce, crosses: boolean): 'fill' | 'rest' | 'cancel' | 'reject' {
  if (crosses) return 'fill';
  if (tif === 'GTC' || tif === 'GTD') return 'rest';
  return tif === 'IOC' ? 'cancel' : 'reject';
}
