import { MICRO, type Micro } from '../money/micro';

/**
 * The arithmetic of fills, pure and exact (micro-units throughout).
 * - A buy spends exactly `amount`; it receives floor(amount / price) shares, so the account never
 *   gets a share fraction it did not pay for.
 * - A sell of q shares at bid p pays round-half-up(q × p).
 * - A position carries its cost basis; selling q of Q shares removes cost × q / Q (all of it on a
 *   full close, so no residue is ever left behind); realized PnL = proceeds − cost removed.
 * - Settlement pays 1 per winning share, 0 per losing one, 0.5 per share of a void market.
 */
export interface BuyFill {
  quantityMicro: Micro;
  costMicro: Micro;
  priceMicro: Micro;
}

export function buyFill(amountMicro: Micro, askMicro: Micro): BuyFill {
  if (askMicro <= 0n || askMicro > MICRO) throw new RangeError('ask outside (0, 1]');
  return { quantityMicro: (amountMicro * MICRO) / askMicro, costMicro: amountMicro, priceMicro: askMicro };
}

/**
 * A buy of an exact number of shares (paper_trade's `shares`): it receives exactly those shares and pays
 * ceil(shares × price), so any rounding of the cost falls on the buyer (at most one micro-dollar), never the house.
 */
export function buySharesFill(quantityMicro: Micro, askMicro: Micro): BuyFill {
  if (askMicro <= 0n || askMicro > MICRO) throw new RangeError('ask outside (0, 1]');
  if (quantityMicro <= 0n) throw new RangeError('quantity must be above 0');
  return { quantityMicro, costMicro: (quantityMicro * askMicro + MICRO - 1n) / MICRO, priceMicro: askMicro };
}

export interface SellFill {
  quantityMicro: Micro;
  /** Credited to the account: after the venue's fee, if any. */
  proceedsMicro: Micro;
  /** The venue's fee on this sale (book-walk.ts), recorded on the trade; 0 when absent. */
  feeMicro?: Micro;
  costRemovedMicro: Micro;
  realizedPnlMicro: Micro;
  priceMicro: Micro;
  closes: boolean;
}

export function sellFill(position: { quantityMicro: Micro; costMicro: Micro }, sellQuantityMicro: Micro, bidMicro: Micro): SellFill {
  if (bidMicro < 0n || bidMicro > MICRO) throw new RangeError('bid outside [0, 1]');
  const proceedsMicro = (sellQuantityMicro * bidMicro * 2n + MICRO) / (2n * MICRO);
  return fillAt(position, sellQuantityMicro, proceedsMicro, bidMicro);
}

/**
 * A sale of `sellQuantityMicro` shares for `proceedsMicro` at `priceMicro` a share (however priced: a bid, or a pool's
 * average): the cost basis those shares carried leaves with them (all of it on a full close) and realizes PnL.
 */
export function fillAt(position: { quantityMicro: Micro; costMicro: Micro }, sellQuantityMicro: Micro, proceedsMicro: Micro, priceMicro: Micro): SellFill {
  if (sellQuantityMicro <= 0n || sellQuantityMicro > position.quantityMicro) throw new RangeError('quantity outside (0, held]');
  const closes = sellQuantityMicro === position.quantityMicro;
  const costRemovedMicro = closes ? position.costMicro : (position.costMicro * sellQuantityMicro) / position.quantityMicro;
  return {
    quantityMicro: sellQuantityMicro,
    proceedsMicro,
    costRemovedMicro,
    realizedPnlMicro: proceedsMicro - costRemovedMicro,
    priceMicro,
    closes,
  };
}

export type Winner = 'YES' | 'NO' | 'VOID';

/** Per-share payout in micro-dollars of a position on `outcome` when the market resolved to `winner`. */
export function settlementPrice(outcome: 'YES' | 'NO', winner: Winner): Micro {
  if (winner === 'VOID') return MICRO / 2n;
  return outcome === winner ? MICRO : 0n;
}

export function settlementFill(
  position: { quantityMicro: Micro; costMicro: Micro },
  payoutPerShareMicro: Micro,
): { payoutMicro: Micro; realizedPnlMicro: Micro } {
  const payoutMicro = (position.quantityMicro * payoutPerShareMicro) / MICRO;
  return { payoutMicro, realizedPnlMicro: payoutMicro - position.costMicro };
}

/** Average entry price in micro-dollars per share (0 when nothing is held). */
export function avgPriceMicro(position: { quantityMicro: Micro; costMicro: Micro }): Micro {
  return position.quantityMicro === 0n ? 0n : (position.costMicro * MICRO) / position.quantityMicro;
}
