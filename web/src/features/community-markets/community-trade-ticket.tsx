import { useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { $api } from '../../lib/api/client';
import { cents, money, shares } from '../../lib/format';
import { newIdempotencyKey } from '../../lib/idempotency';
import { useDebounced } from '../../lib/use-debounced';
import { useRefreshAfterTrade } from '../../lib/portfolio';
import { signInHref } from '../../lib/paths';
import { isShortOfCash } from '../../lib/cash';
import { useAccount } from '../../lib/account';
import { ErrorMessage } from '../../components/error-message';

export interface CommunityOutcomeToken {
  tokenId: string;
  outcome: string;
  price: number;
}

/**
 * Buy one outcome of a community market from its market maker, through the methods every venue shares (they tell the
 * venue from the token): a quote (quote_trade, once typing pauses) shows shares, average price and the price after;
 * confirming buys it (paper_trade, the outcome as YES of its label) with an Idempotency-Key tied to this outcome and
 * amount, so a double click never trades twice.
 */
export function CommunityTradeTicket({
  market,
  tokens,
  signedIn,
  selected,
  onSelect,
  onTraded,
}: {
  /** The market's id and slug, which paper_trade holds the token to. */
  market: { id: string; slug: string };
  tokens: CommunityOutcomeToken[];
  signedIn: boolean;
  selected: number;
  onSelect: (i: number) => void;
  onTraded: () => void;
}) {
  const id = useId();
  const [location] = useLocation();
  const [text, setText] = useState('10');
  const [round, setRound] = useState(0);
  const refresh = useRefreshAfterTrade();
  const token = tokens[selected]!;
  const amount = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(amount) && amount >= 0.01 && amount <= 1_000_000;
  // A buy beyond the available cash is refused as it is typed, before any quote or click.
  const available = useAccount().data?.available ?? null;
  const short = signedIn && valid && isShortOfCash(amount, available);
  const settled = useDebounced(valid && !short ? amount : 0, 400);
  const quote = $api.useQuery(
    'post',
    '/api/trade/quote',
    { body: { side: 'BUY', tokenId: token.tokenId, amount: settled } },
    { enabled: settled > 0, staleTime: 5_000 },
  );
  const key = useMemo(() => newIdempotencyKey(), [selected, text, round]);
  const trade = $api.useMutation('post', '/api/trade', {
    onSuccess: () => {
      refresh();
      onTraded();
    },
  });
  const quoteIsCurrent = quote.data !== undefined && settled === amount && quote.data.tokenId === token.tokenId;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // After a fill the same key would replay that trade: a new one starts with "New trade" (or a new amount or outcome).
    if (!valid || short || !quoteIsCurrent || trade.isPending || trade.isSuccess) return;
    trade.mutate({
      params: { header: { 'Idempotency-Key': key } },
      // A community outcome is bought as YES of its label.
      body: { marketId: market.id, marketSlug: market.slug, tokenId: token.tokenId, outcome: 'YES', amount },
    });
  };

  return (
    <section className="card ticket" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Trade</h2>
      <div className="tabs" role="group" aria-label="Outcome">
        {tokens.map((t, i) => (
          <button
            key={t.tokenId}
            type="button"
            className="secondary"
            aria-pressed={selected === i}
            onClick={() => {
              onSelect(i);
              trade.reset();
            }}
          >
            Buy {t.outcome} · {cents(t.price)}
          </button>
        ))}
      </div>
      {!signedIn ? (
        <p>
          <Link href={signInHref(location)}>Sign in</Link> or <Link href="/signup">create an account</Link> to trade this market with virtual dollars.
        </p>
      ) : (
        <form onSubmit={submit}>
          <div className="field">
            <label htmlFor={`${id}-amount`}>Amount (virtual dollars)</label>
            <input
              id={`${id}-amount`}
              inputMode="decimal"
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                trade.reset();
              }}
              aria-invalid={!valid || short || undefined}
              aria-describedby={short ? `${id}-short` : undefined}
            />
          </div>
          <p className="muted">Available cash: {money(available)}</p>
          {!valid ? <p className="field-error">Enter an amount of at least $0.01.</p> : null}
          <div aria-live="polite">
            {short ? (
              <p className="field-error" id={`${id}-short`}>
                Not enough cash: {money(amount)} is more than the {money(available)} available.
              </p>
            ) : null}
            {valid && !short && quoteIsCurrent ? (
              <p className="quote">
                {/* On a market maker the first and last levels walked are the price now and the price after the fill. */}
                Quote: {shares(quote.data.shares)} {token.outcome} shares at an average {cents(quote.data.price)} for {money(quote.data.amount)}; the price
                moves from {cents(quote.data.bestPrice)} to {cents(quote.data.worstPrice)}.
              </p>
            ) : valid && !short && quote.isFetching ? (
              <p className="muted">Getting a quote…</p>
            ) : null}
          </div>
          {quote.isError ? <ErrorMessage error={quote.error} /> : null}
          {trade.isError ? <ErrorMessage error={trade.error} /> : null}
          <button type="submit" disabled={!valid || short || !quoteIsCurrent || trade.isPending || trade.isSuccess}>
            {trade.isPending ? 'Buying…' : `Buy ${token.outcome} for ${valid ? money(amount) : '—'}`}
          </button>
        </form>
      )}
      {trade.isSuccess ? (
        <div role="status" className="fill">
          <p>
            Bought {shares(trade.data.quantity)} {token.outcome} shares at an average {cents(trade.data.price)} for {money(trade.data.totalCost)}. New balance{' '}
            {money(trade.data.balance)}.
          </p>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              trade.reset();
              setRound((r) => r + 1);
            }}
          >
            New trade
          </button>
        </div>
      ) : null}
    </section>
  );
}
