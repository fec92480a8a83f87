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
  quantity: number;
  question: string;
}

/**
 * Sell part or all of an open position: the quantity (all by default), a quote first (quote_trade SELL),
 * then sell_position with an Idempotency-Key, so a double click or a retry sells once.
 */
export function SellPosition({ position, onClosed }: { position: SellablePosition; onClosed?: (summary: string) => void }) {
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
    { body: { side: 'SELL', tokenId: position.tokenId, quantity: settled } },
    { enabled: open && settled > 0, staleTime: 10_000 },
  );
  // One key per intended sale: the same quantity again (a double click, a retry) is the same sale.
  const key = useMemo(() => newIdempotencyKey(), [position.id, text, news]);
  const sell = $api.useMutation('post', '/api/positions/{id}/sell', {
    onSuccess: (r) => {
      // A sale of everything closes the position and this form leaves the list: the parent keeps the news.
      if (r.isClosed) onClosed?.(soldText(r));
      setNews(soldText(r));
      setOpen(false);
      return refresh();
    },
  });

  const start = () => {
    sell.reset();
    setText(sharesInput(position.quantity));
    setOpen(true);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid || sell.isPending) return;
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
        <button type="button" className="secondary" onClick={start} aria-label={`Sell ${position.outcome} shares of ${position.question}`}>
          Sell
        </button>
      </>
    );
  }
  return (
    <form onSubmit={submit} className="sell-form" aria-label={`Sell ${position.outcome} shares`}>
      <div className="field">
        <label htmlFor={`${id}-qty`}>Shares to sell (you hold {shares(position.quantity)})</label>
        <input id={`${id}-qty`} inputMode="decimal" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={!valid || undefined} />
      </div>
      {!valid ? <p className="field-error">Enter a number of shares between 0 and {shares(position.quantity)}.</p> : null}
      {valid && quote.data ? (
        <p role="status">
          Quote: {sharesOf(quote.data.quantity)} at {cents(quote.data.price)} → {money(quote.data.amount)}
        </p>
      ) : null}
      {quote.isError ? <ErrorMessage error={quote.error} /> : null}
      {sell.isError ? <ErrorMessage error={sell.error} /> : null}
      <div className="row">
        <button type="submit" disabled={!valid || sell.isPending || !quote.data}>
          {sell.isPending ? 'Selling…' : 'Confirm sale'}
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function soldText(r: { quantitySold: number; price: number; proceeds: number; realizedPnl: number; balance: number }): string {
  return `Sold ${sharesOf(r.quantitySold)} at ${cents(r.price)} for ${money(r.proceeds)} (realized ${signedMoney(r.realizedPnl)}). New balance ${money(r.balance)}.`;
}
