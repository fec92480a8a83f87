import { cents } from '../../lib/format';

type Outcome = 'YES' | 'NO';

/** A request from the buy bar to the trade ticket: buy this outcome; `n` counts requests so a repeat still scrolls. */
export interface TicketPick {
  outcome: Outcome;
  n: number;
}

/**
 * The phone's buy bar (shown below 640 px by phone.css): stays at the bottom of a market page as it scrolls,
 * with each outcome's ask, and opens the trade ticket on that outcome.
 */
export function BuyBar({ asks, onPick }: { asks: Record<Outcome, number | null>; onPick: (o: Outcome) => void }) {
  return (
    <div className="buy-bar" role="group" aria-label="Buy">
      {(['YES', 'NO'] as const).map((o) => (
        <button key={o} type="button" className={`buy-${o.toLowerCase()}`} onClick={() => onPick(o)}>
          Buy {o} · {cents(asks[o])}
        </button>
      ))}
    </div>
  );
}
