import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { $api } from '../../lib/api/client';
import { cents, money, percent, shares, signedPercent } from '../../lib/format';
import { useAccount } from '../../lib/account';
import { newIdempotencyKey } from '../../lib/idempotency';
import { useDebounced } from '../../lib/use-debounced';
import { useSessionDraft } from '../../lib/session-draft';
import { useRefreshAfterTrade } from '../../lib/portfolio';
import { signInHref } from '../../lib/paths';
import { isShortOfCash } from '../../lib/cash';
import { optionalChance } from '../../lib/chance';
import { InputField } from '../../components/form-field';
import { ErrorMessage } from '../../components/error-message';
import { OutcomeTabs } from '../../components/outcome-tabs';
import type { TicketPick } from './buy-bar';

type Outcome = 'YES' | 'NO';

/** One-tap amounts, in virtual dollars. */
const QUICK_AMOUNTS = [10, 25, 100] as const;
/** A quote is read again after a price move, but not sooner than this after the last read. */
const REQUOTE_MS = 5_000;

export interface TicketMarket {
  id: string;
  slug: string;
  outcomeTokens: { outcome: Outcome; tokenId: string | null }[];
}

/**
 * Buy YES or NO for an amount of virtual dollars: a live quote (quote_trade, once typing pauses) before
 * confirming, then paper_trade with an Idempotency-Key tied to this outcome and amount, so a double click or
 * a retry never trades twice. The fill is shown: shares, price, cost and the new balance.
 */
export function TradeTicket({
  market,
  signedIn,
  pick = null,
  priceAt,
}: {
  market: TicketMarket;
  signedIn: boolean;
  pick?: TicketPick | null;
  /** When each outcome's price last came from the price stream (ms), or null: a newer price than the quote's re-reads the quote. */
  priceAt?: Record<Outcome, number | null>;
}) {
  const id = useId();
  const sectionRef = useRef<HTMLElement>(null);
  const [location] = useLocation();
  // Kept in this tab's storage: a lost session, the sign-in and the way back here keep what was typed.
  const [side, setSide] = useSessionDraft(`trade-outcome:${market.id}`, 'YES');
  const outcome: Outcome = side === 'NO' ? 'NO' : 'YES';
  const setOutcome = (o: Outcome) => setSide(o);
  const [text, setText] = useSessionDraft(`trade-amount:${market.id}`, '10');
  // The stated forecast (optional): the person's chance of YES, carried by the trade as its forecast.
  const [chance, setChance] = useState('');
  const stated = optionalChance(chance);
  const [round, setRound] = useState(0);
  // No quote until the person turns to the ticket (pointer or focus): a person browsing markets costs no quote calls.
  const [engaged, setEngaged] = useState(false);
  const engage = () => setEngaged(true);
  const refresh = useRefreshAfterTrade();
  const available = useAccount().data?.available ?? null;
  const tokenId = market.outcomeTokens.find((t) => t.outcome === outcome)?.tokenId ?? null;
  const amount = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(amount) && amount >= 0.01 && amount <= 1_000_000;
  // A buy beyond the available cash is refused as it is typed, before any quote or click.
  const short = valid && isShortOfCash(amount, available);
  const settled = useDebounced(valid && !short ? amount : 0, 400);
  const quote = $api.useQuery(
    'post',
    '/api/trade/quote',
    { body: { side: 'BUY', tokenId: tokenId ?? '', amount: settled } },
    { enabled: engaged && signedIn && tokenId !== null && settled > 0, staleTime: 10_000 },
  );
  const key = useMemo(() => newIdempotencyKey(), [outcome, text, chance, round]);
  const trade = $api.useMutation('post', '/api/trade', { onSuccess: () => refresh() });
  const quoteIsCurrent = quote.data !== undefined && settled === amount && quote.data.tokenId === tokenId;
  // The price moved after the quote was read: quote again (at most once per REQUOTE_MS, so a busy market costs few calls).
  const movedAt = priceAt?.[outcome] ?? null;
  const quotedAt = quote.dataUpdatedAt;
  const requote = quote.refetch;
  useEffect(() => {
    if (!engaged || movedAt === null || quotedAt === 0 || movedAt <= quotedAt) return;
    const timer = setTimeout(() => void requote(), Math.max(0, quotedAt + REQUOTE_MS - Date.now()));
    return () => clearTimeout(timer);
  }, [engaged, movedAt, quotedAt, requote]);

  // The buy bar picked an outcome: switch to it, bring the ticket into view and put the cursor in its first field.
  useEffect(() => {
    if (!pick) return;
    if (signedIn) setSide(pick.outcome);
    const section = sectionRef.current;
    section?.scrollIntoView({ block: 'start' });
    section?.querySelector<HTMLElement>('input, a')?.focus({ preventScroll: true });
    // Only a new pick runs this (setSide and signedIn changing must not scroll the page).
  }, [pick]);

  const pickAmount = (next: string) => {
    setText(next);
    trade.reset();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // After a fill the same key would replay that trade: a new one starts with "New trade" (or a new amount or outcome).
    if (!valid || short || !stated.ok || !tokenId || trade.isPending || trade.isSuccess) return;
    trade.mutate({
      params: { header: { 'Idempotency-Key': key } },
      body: {
        marketId: market.id,
        marketSlug: market.slug,
        tokenId,
        outcome,
        amount,
        ...(stated.forecast === undefined ? {} : { probability: stated.forecast }),
      },
    });
  };

  if (!signedIn) {
    return (
      <section className="card ticket" aria-labelledby={`${id}-h`} ref={sectionRef}>
        <h2 id={`${id}-h`}>Trade</h2>
        <p>
          <Link href={signInHref(location)}>Sign in</Link> or <Link href="/signup">create an account</Link> to trade this market with virtual dollars.
        </p>
      </section>
    );
  }
  return (
    <section className="card ticket" aria-labelledby={`${id}-h`} onPointerEnter={engage} onFocus={engage} ref={sectionRef}>
      <h2 id={`${id}-h`}>Trade</h2>
      <form onSubmit={submit}>
        <OutcomeTabs
          outcome={outcome}
          onPick={(o) => {
            setOutcome(o);
            trade.reset();
          }}
        />
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
        <div className="tabs quick-amounts" role="group" aria-label="Quick amounts">
          {QUICK_AMOUNTS.map((q) => (
            <button key={q} type="button" className="secondary" onClick={() => pickAmount(String(q))}>
              {money(q).replace('.00', '')}
            </button>
          ))}
          {/* Whole cents only: all the available cash (exact to 6 decimals), rounded down. */}
          <button
            type="button"
            className="secondary"
            disabled={!available}
            onClick={() => pickAmount(String(Math.floor(Math.round((available ?? 0) * 1e6) / 1e4) / 100))}
          >
            Max
          </button>
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
              Quote: {shares(quote.data.shares)} {outcome} shares at {cents(quote.data.price)} for {money(quote.data.amount)}
            </p>
          ) : null}
          {valid && !short && quoteIsCurrent ? (
            // The walk of the venue's book behind that average: how far it reaches and what the venue charges.
            <p className="quote-depth muted">
              Average over {quote.data.levels.length} {quote.data.levels.length === 1 ? 'level' : 'levels'}, worst {cents(quote.data.worstPrice)}, slippage{' '}
              {cents(quote.data.slippage)}; fee {money(quote.data.fee)}
            </p>
          ) : null}
          {valid && !short && quoteIsCurrent ? (
            // A share pays $1 if its outcome wins: the payout is the share count, the return its gain over the amount.
            <p className="payout">
              Pays {money(quote.data.shares)} if {outcome} ({signedPercent(quote.data.shares / quote.data.amount - 1)})
            </p>
          ) : valid && !short && quote.isFetching ? (
            <p className="muted">Getting a quote…</p>
          ) : null}
        </div>
        <InputField
          label="Your chance of YES (%, optional)"
          inputMode="decimal"
          value={chance}
          onChange={(e) => {
            setChance(e.target.value);
            trade.reset();
          }}
          help="What you think the chances really are, stated with the trade. Your record compares it with the market's price when the market settles."
          error={stated.ok ? undefined : 'Enter a number from 0 to 100, or leave it empty.'}
        />
        {quote.isError ? <ErrorMessage error={quote.error} /> : null}
        {trade.isError ? <ErrorMessage error={trade.error} /> : null}
        <button type="submit" disabled={!valid || short || !stated.ok || !quoteIsCurrent || trade.isPending || trade.isSuccess}>
          {trade.isPending ? 'Buying…' : `Buy ${outcome} for ${valid ? money(amount) : '—'}`}
        </button>
      </form>
      {trade.isSuccess ? (
        <div role="status" className="fill">
          <p>
            Bought {shares(trade.data.quantity)} {outcome} shares at {cents(trade.data.price)} for {money(trade.data.totalCost)}. New balance{' '}
            {money(trade.data.balance)}.{stated.forecast !== undefined ? ` Your forecast: ${percent(stated.forecast)} chance of YES.` : ''}
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
