import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RunClient } from '../../lib/api/run-client';
import { cents, money, percent, shares } from '../../lib/format';
import { newIdempotencyKey } from '../../lib/idempotency';
import { InputField } from '../../components/form-field';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { OutcomeTabs } from '../../components/outcome-tabs';
import { chanceOk, chanceProbability } from '../../lib/chance';

type Outcome = 'YES' | 'NO';

/** One market of the run: its prices, a buy (paper_trade) and a stated forecast (submit_forecast), both with the run's key. */
export function RunTicket({ rc, marketId }: { rc: RunClient; marketId: string }) {
  const client = useQueryClient();
  const market = rc.$api.useQuery('get', '/api/markets/{idOrSlug}', { params: { path: { idOrSlug: marketId } } });
  const [outcome, setOutcome] = useState<Outcome>('YES');
  const [amount, setAmount] = useState('10');
  const [chance, setChance] = useState('');
  const [round, setRound] = useState(0);
  const sectionRef = useRef<HTMLElement>(null);
  // Picked from the news (on a phone, far below): bring the ticket into view.
  useEffect(() => {
    sectionRef.current?.scrollIntoView({ block: 'nearest' });
  }, [marketId, market.isSuccess]);
  const amountOk = Number.isFinite(Number(amount)) && Number(amount) >= 0.01 && Number(amount) <= 1_000_000;
  // One key per outcome, amount and purchase: a double click or a retry never buys twice, a second purchase does.
  const key = useMemo(() => newIdempotencyKey(), [marketId, outcome, amount, round]);
  const buy = useMutation({
    mutationFn: async (body: { marketId: string; marketSlug: string; tokenId: string; outcome: Outcome; amount: number }) =>
      (await rc.api.POST('/api/trade', { params: { header: { 'Idempotency-Key': key } }, body })).data!,
    onSuccess: () => {
      setRound((r) => r + 1);
      return client.invalidateQueries({ queryKey: ['get', '/api/positions'] });
    },
  });
  const forecast = useMutation({
    mutationFn: async (probability: number) => (await rc.api.POST('/api/forecasts', { body: { marketId, probability } })).data!,
  });

  if (market.isPending) return <Loading what="the market" />;
  if (market.isError) return <ErrorMessage error={market.error} />;
  const m = market.data;
  const tokenId = m.outcomeTokens.find((t) => t.outcome === outcome)?.tokenId ?? null;
  const mid = m.odds.yes.mid;
  const open = m.status === 'active';

  const submitBuy = (e: FormEvent) => {
    e.preventDefault();
    if (!amountOk || !tokenId || buy.isPending) return;
    buy.mutate({ marketId: m.id, marketSlug: m.slug, tokenId, outcome, amount: Number(amount) });
  };
  const chanceText = chance === '' && mid !== null ? String(Math.round(mid * 100)) : chance;
  const submitForecast = (e: FormEvent) => {
    e.preventDefault();
    if (!chanceOk(chanceText) || forecast.isPending) return;
    forecast.mutate(chanceProbability(chanceText));
  };

  return (
    <section className="card ticket" aria-labelledby="replay-ticket" ref={sectionRef}>
      <h2 id="replay-ticket">Trade: {m.question}</h2>
      <p>
        Chance of YES now: <strong>{percent(mid)}</strong> · buy YES at {cents(m.odds.yes.ask)}, NO at {cents(m.odds.no.ask)}
      </p>
      {!open ? <p>This market is {m.status === 'resolved' ? `resolved: ${m.winner ?? '—'} won` : 'closed'}.</p> : null}
      <form onSubmit={submitBuy} aria-label="Buy">
        <OutcomeTabs
          outcome={outcome}
          onPick={(o) => {
            setOutcome(o);
            buy.reset();
          }}
        />
        <InputField
          label="Amount (practice dollars)"
          inputMode="decimal"
          value={amount}
          onChange={(e) => {
            setAmount(e.target.value);
            buy.reset();
          }}
          error={amountOk ? undefined : 'Enter an amount of at least $0.01.'}
        />
        {buy.isError ? <ErrorMessage error={buy.error} /> : null}
        <button type="submit" disabled={!open || !amountOk || !tokenId || buy.isPending}>
          {buy.isPending ? 'Buying…' : `Buy ${outcome} for ${amountOk ? money(Number(amount)) : '—'}`}
        </button>
      </form>
      {buy.isSuccess ? (
        <p role="status" className="fill">
          Bought {shares(buy.data.quantity)} {outcome} shares at {cents(buy.data.price)} for {money(buy.data.totalCost)}. Cash left {money(buy.data.balance)}.
        </p>
      ) : null}
      <form onSubmit={submitForecast} aria-label="Forecast">
        <InputField
          label="Your chance of YES (%)"
          inputMode="decimal"
          value={chanceText}
          onChange={(e) => {
            setChance(e.target.value);
            forecast.reset();
          }}
          help="What you think the chances really are. Your record compares it with the market's price when the market settles."
          error={chanceOk(chanceText) ? undefined : 'Enter a number from 0 to 100.'}
        />
        {forecast.isError ? <ErrorMessage error={forecast.error} /> : null}
        <button type="submit" className="secondary" disabled={!open || !chanceOk(chanceText) || forecast.isPending}>
          {forecast.isPending ? 'Saving…' : 'Save forecast'}
        </button>
      </form>
      {forecast.isSuccess ? (
        <p role="status" className="fill">
          Forecast saved: {percent(forecast.data.forecast.probability ?? null)} chance of YES.
        </p>
      ) : null}
    </section>
  );
}
