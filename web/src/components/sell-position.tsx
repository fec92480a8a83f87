import { useId, useMemo, useState, type FormEvent } from 'react';
import { $api } from '../lib/api/client';
import { cents, money, shares, sharesInput, sharesOf, signedMoney } from '../lib/format';
import { newIdempotencyKey } from '../lib/idempotency';
import { useDebounced } from '../lib/use-debounced';
import { useRefreshAfterTrade } from '../lib/portfolio';
import { ErrorMessage } from './error-message';

export interface SellablePosition {
  id: string;
  tokenId: string;
  outcome: string;
  /** A community market's outcome label (get_portfolio's outcomeLabel); absent on a mirrored market's position. */
  outcomeLabel?: string;
  quantity: number;
  question: string;
}

/**
 * Sell part or all of an open position: the quantity (all by default), a quote first, then the sale with an
 * Idempotency-Key, so a double click or a retry sells once. Every venue's position is quoted by quote_trade and sold by
 * sell_position, which tell the venue from the token and the position (a community one sells to its market maker).
 */
export function SellPosition({
  position,
  onClosed,
  onSold,
}: {
  position: SellablePosition;
  onClosed?: (summary: string) => void;
  /** After any sale (a community sale moves every outcome's price: its page reads the market again). */
  onSold?: () => void;
}) {
  const community = position.outcomeLabel !== undefined;
  const label = position.outcomeLabel ?? position.outcome;
  const id = useId();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  // What the last sale of this position said; a partial sale leaves the Sell button for the rest beside it.
  const [news, setNews] = useState('');
  const refresh = useRefreshAfterTrade();
  const typed = Number(text);
  // The field starts with the holding to 2 decimals: that number (rounded up or down) or the exact holding sells all of it.
  const shown = Number(sharesInput(position.quantity));
  const valid = text.trim() !== '' && Number.isFinite(typed) && typed > 0 && typed <= Math.max(shown, position.quantity) + 1e-9;
  const quantity = typed >= Math.min(shown, position.quantity) - 1e-9 ? position.quantity : typed;
  const settled = useDebounced(valid ? quantity : 0, 400);
  const quote = $api.useQuery(
    'post',
    '/api/trade/quote',
    { body: { side: 'SELL', tokenId: position.tokenId, shares: settled } },
    // A community sale moves its market maker's price with every trade: its quote goes stale sooner.
    { enabled: open && settled > 0, staleTime: community ? 5_000 : 10_000 },
  );
  // Shares sold, the average price per share, dollars received (after the venue's fee).
  const quoted = quote.data;
  // One key per intended sale: the same quantity again (a double click, a retry) is the same sale.
  const key = useMemo(() => newIdempotencyKey(), [position.id, text, news]);
  const onSuccess = (r: Sale) => {
    // A sale of everything closes the position and this form leaves the list: the parent keeps the news (said once).
    if (r.isClosed && onClosed) onClosed(soldText(r));
    else setNews(soldText(r));
    setOpen(false);
    onSold?.();
    return refresh();
  };
  const sell = $api.useMutation('post', '/api/positions/{id}/sell', { onSuccess });

  const start = () => {
    sell.reset();
    setText(sharesInput(position.quantity));
    setOpen(true);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid || !quoted || sell.isPending) return;
    sell.mutate({ params: { path: { id: position.id }, header: { 'Idempotency-Key': key } }, body: { quantity } });
  };

  const status = news ? (
    <div role="status" className="fill">
      {news}
    </div>
  ) : null;
  if (!open) {
    return (
      <>
        {status}
        <button type="button" className="secondary" onClick={start} aria-label={`Sell ${label} shares of ${position.question}`}>
          Sell
        </button>
      </>
    );
  }
  return (
    <form onSubmit={submit} className="sell-form" aria-label={`Sell ${label} shares`}>
      <div className="field">
        <label htmlFor={`${id}-qty`}>Shares to sell (you hold {shares(position.quantity)})</label>
        <input id={`${id}-qty`} inputMode="decimal" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={!valid || undefined} />
      </div>
      {!valid ? <p className="field-error">Enter a number of shares between 0 and {shares(position.quantity)}.</p> : null}
      {valid && quoted ? (
        <p role="status">
          Quote: {sharesOf(quoted.shares)} at {community ? 'an average ' : ''}
          {cents(quoted.price)} → {money(quoted.amount)}
        </p>
      ) : null}
      {quote.isError ? <ErrorMessage error={quote.error} /> : null}
      {sell.isError ? <ErrorMessage error={sell.error} /> : null}
      <div className="row">
        <button type="submit" disabled={!valid || sell.isPending || !quoted}>
          {sell.isPending ? 'Selling…' : 'Confirm sale'}
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** What a sale (sell_position) answers that the form shows. */
interface Sale {
  quantitySold: number;
  price: number;
  proceeds: number;
  realizedPnl: number;
  balance: number;
  isClosed: boolean;
}

function soldText(r: Sale): string {
  return `Sold ${sharesOf(r.quantitySold)} at ${cents(r.price)} for ${money(r.proceeds)} (realized ${signedMoney(r.realizedPnl)}). New balance ${money(r.balance)}.`;
}
