import { AppError } from '../../errors/app-error';
import { fromMicro, type Micro } from '../money/micro';
import { buyFill } from '../trading/fills';
import type { Depth } from '../trading/price-service';
import { copyDepth, onPlacement, take, unitOf, type OrderSide, type SizedBy, type Take, type TimeInForce } from './order-rules';

/** What a new order is, in micro-units. */
export interface NewOrder {
  side: OrderSide;
  limitMicro: Micro;
  sizeMicro: Micro;
  timeInForce: TimeInForce;
  /** Its unit (absent: its side's own); `sizeMicro` is in it. */
  sizedBy?: SizedBy;
}

/**
 * What placing an order does, decided from the order and the book alone:
 * - `rest`: nothing fills now; the whole order rests holding its reservation (GTC/GTD);
 * - `fill`: it fills whole now;
 * - `fill-rest`: part fills now, the rest rests (GTC/GTD);
 * - `fill-cancel`: part fills now, the rest is cancelled (IOC);
 * - `end`: nothing fills and the order ends at once, cancelled (IOC) or rejected (FOK short of whole).
 * `left` is the book as the fill leaves it (what it took is recorded against the book's record).
 */
export type PlacementPlan =
  | { kind: 'rest'; restMicro: Micro }
  | { kind: 'fill'; take: Take; left?: Depth }
  | { kind: 'fill-rest'; take: Take; restMicro: Micro; left?: Depth }
  | { kind: 'fill-cancel'; take: Take; reason: string; left?: Depth }
  | { kind: 'end'; state: 'cancelled' | 'rejected'; reason: string };

/**
 * The placement plan of `order` against `quote` (null: no fresh price, or a book newer than the one quoted; nothing
 * fills). Pure: the quote's book is not consumed (the plan works on its own copy). A buy too small to get one
 * micro-share of the whole size is refused; one whose book shows too little for a micro-share fills nothing now.
 */
export function planPlacement(order: NewOrder, quote: { bidMicro: Micro; askMicro: Micro; depth?: Depth } | null): PlacementPlan {
  const book = quote && { ...quote, depth: copyDepth(quote.depth) };
  const taken = book ? take(order.side, order.limitMicro, order.sizeMicro, book, order.sizedBy) : null;
  const byAmount = order.side === 'BUY' && unitOf(order.side, order.sizedBy) === 'amount';
  const buysNothing = taken !== null && byAmount && buyFill(taken.sizeMicro, taken.priceMicro).quantityMicro <= 0n;
  if (buysNothing && taken.sizeMicro >= order.sizeMicro) throw new AppError('VALIDATION_ERROR', 'size is too small to buy any share at the current price.');
  const filled = taken !== null && !buysNothing ? taken : null;
  const left = book?.depth;
  switch (onPlacement(order.timeInForce, filled?.sizeMicro ?? 0n, order.sizeMicro)) {
    case 'fill':
      return { kind: 'fill', take: filled!, left };
    case 'fill-rest':
      return { kind: 'fill-rest', take: filled!, restMicro: order.sizeMicro - filled!.sizeMicro, left };
    case 'fill-cancel':
      return { kind: 'fill-cancel', take: filled!, reason: 'IOC: the rest could not fill at the limit', left };
    case 'rest':
      return { kind: 'rest', restMicro: order.sizeMicro };
    case 'cancel':
      return { kind: 'end', state: 'cancelled', reason: 'IOC: nothing could fill at the limit' };
    case 'reject':
      return { kind: 'end', state: 'rejected', reason: 'FOK: the order could not fill whole at the limit' };
  }
}

/** A resting order as an amend sees it (its row as locked), in micro-units. */
export interface AmendedOrder {
  side: OrderSide;
  limitMicro: Micro;
  sizeMicro: Micro;
  filledSizeMicro: Micro;
  timeInForce: TimeInForce;
  sizedBy?: SizedBy;
}

/**
 * What amending a resting order to a new limit and/or total size does (omitted: unchanged): null when both are as
 * they are (nothing changes); otherwise its new terms and the placement plan of its unfilled rest, planned as a new
 * order of that size would be (planPlacement: what now crosses the book fills, the rest rests and reserves). The total
 * size counts what already filled, so it must stay above the filled size (an amend never ends an order: cancel it).
 */
export function planAmend(
  o: AmendedOrder,
  change: { limitMicro?: Micro; sizeMicro?: Micro },
  quote: { bidMicro: Micro; askMicro: Micro; depth?: Depth } | null,
): { limitMicro: Micro; sizeMicro: Micro; plan: PlacementPlan } | null {
  const limitMicro = change.limitMicro ?? o.limitMicro;
  const sizeMicro = change.sizeMicro ?? o.sizeMicro;
  if (sizeMicro <= o.filledSizeMicro) {
    throw new AppError(
      'VALIDATION_ERROR',
      `size must be above the ${fromMicro(o.filledSizeMicro)} already filled (size is the order's total, filled part included).`,
      {
        hint: 'To stop the order, cancel it with cancel_order.',
      },
    );
  }
  if (limitMicro === o.limitMicro && sizeMicro === o.sizeMicro) return null;
  const plan = planPlacement({ side: o.side, limitMicro, sizeMicro: sizeMicro - o.filledSizeMicro, timeInForce: o.timeInForce, sizedBy: o.sizedBy }, quote);
  return { limitMicro, sizeMicro, plan };
}
