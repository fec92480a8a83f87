import { AppError } from '../../errors/app-error';
import { fromMicro, type Micro } from '../money/micro';
import { afterTaken, bareLevel, levelsFor, walkBook, type BookFill, type DepthShown, type FeeSchedule, type WalkIntent } from './book-walk';
import type { Taken } from './book-consumption';
import type { Depth, LivePrice } from './price-service';

/**
 * A market order priced against a venue's book as the account may still take it: the published levels of the side it
 * takes, less what the account already took of this snapshot (book-consumption.ts). A side the venue shows no level on
 * (or a quote with no book) is one level at the quote's best price, not limited by size.
 * Refuses with INSUFFICIENT_DEPTH naming what the book shows, or VALIDATION_ERROR for an amount that buys no share.
 */
export function priceMarketOrder(live: LivePrice, depth: Depth | undefined, taken: Taken, intent: WalkIntent, fee: FeeSchedule): BookFill {
  const best = intent.side === 'BUY' ? live.askMicro : live.bidMicro;
  const shown = depth ? levelsFor(intent.side, depth) : [];
  const levels = shown.length ? afterTaken(shown, intent.side === 'BUY' ? taken.askMicro : taken.bidMicro) : bareLevel(best);
  const walked = walkBook(levels, intent, fee);
  if (walked.kind === 'fill') return walked.fill;
  if (walked.kind === 'too-small') throw new AppError('VALIDATION_ERROR', 'amount is too small to buy any share at the current price.');
  throw depthShort(intent, walked.shown);
}

/** The refusal of an order the book cannot fill: what it asked, and what the book shows within its reach. */
export function depthShort(intent: WalkIntent, shown: DepthShown): AppError {
  const asked = intent.sizedBy === 'amount' ? `${fromMicro(intent.sizeMicro)} dollars` : `${fromMicro(intent.sizeMicro)} shares`;
  const side = intent.side === 'BUY' ? 'asks' : 'bids';
  const worth = intent.side === 'BUY' ? `costing ${fromMicro(shown.cashMicro)} dollars with the fee` : `worth ${fromMicro(shown.cashMicro)} dollars`;
  const reach = shown.worstMicro === null ? '' : ` ${intent.side === 'BUY' ? 'up' : 'down'} to ${fromMicro(shown.worstMicro as Micro)}`;
  return new AppError(
    'INSUFFICIENT_DEPTH',
    `The book's ${side} show ${fromMicro(shown.sharesMicro)} shares${reach} (${worth}) that you have not already taken; a ${intent.side} of ${asked} needs more. Nothing was traded.`,
    { hint: "Trade a smaller size, read get_order_book for the depth, or wait for the venue's next book." },
  );
}
