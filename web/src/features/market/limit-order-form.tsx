import { useId, useMemo, useState, type FormEvent } from 'react';
import { $api } from '../../lib/api/client';
import { cents, money, shares } from '../../lib/format';
import { newIdempotencyKey } from '../../lib/idempotency';
import { useRefreshAfterOrder } from '../../lib/orders';
import { ErrorMessage } from '../../components/error-message';
import { InputField, SelectField } from '../../components/form-field';
import type { TicketMarket } from './trade-ticket';
import { optionalChance } from '../../lib/chance';
import { useAccount } from '../../lib/account';
import { isShortOfCash } from '../../lib/cash';

type Side = 'BUY' | 'SELL';
/** A BUY's unit: dollars to spend or shares to buy (a SELL is always in shares). */
type BuyUnit = 'amount' | 'shares';
type Tif = 'GTC' | 'GTD' | 'IOC' | 'FOK';

const TIFS: ReadonlyArray<readonly [Tif, string]> = [
  ['GTC', 'Good till cancelled'],
  ['GTD', 'Good till date'],
  ['IOC', 'Immediate or cancel'],
  ['FOK', 'Fill or kill'],
];

/** An hour from now in the local time a datetime-local input shows. */
function inAnHour(): string {
  const d = new Date(Date.now() + 3600_000);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * What a BUY of `sharesToBuy` at `limitCents` reserves: shares × limit rounded up to the micro-dollar, as the service
 * reserves it (docs/glossary.md); shown before placing so the person sees the cash it holds.
 */
function sharesReserve(sharesToBuy: number, limitCents: number): number {
  const micro = BigInt(Math.round(sharesToBuy * 1e6)) * BigInt(Math.round(limitCents * 1e4));
  return Number((micro + 999_999n) / 1_000_000n) / 1e6;
}

/**
 * A limit order (place_order): buy (dollars to spend, or shares to buy) or sell (shares) one outcome at a limit price in cents, with a time in
 * force and, for GTD, an expiry. Sent with an Idempotency-Key tied to the form's contents, so a double click places
 * one order. The answer says what happened: filled, partly filled, resting (and what it reserves), cancelled or rejected.
 */
export function LimitOrderForm({ market }: { market: TicketMarket }) {
  const id = useId();
  const [side, setSide] = useState<Side>('BUY');
  const [outcome, setOutcome] = useState<'YES' | 'NO'>('YES');
  const [limitText, setLimitText] = useState('40');
  const [buyUnit, setBuyUnit] = useState<BuyUnit>('amount');
  const [sizeText, setSizeText] = useState('10');
  const [tif, setTif] = useState<Tif>('GTC');
  const [expires, setExpires] = useState(inAnHour);
  // The stated forecast (optional): the person's chance of YES, carried by the order as its forecast.
  const [chance, setChance] = useState('');
  const stated = optionalChance(chance);
  const [round, setRound] = useState(0);
  const refresh = useRefreshAfterOrder();
  const place = $api.useMutation('post', '/api/orders', { onSuccess: () => refresh() });
  const tokenId = market.outcomeTokens.find((t) => t.outcome === outcome)?.tokenId ?? null;
  const limit = Number(limitText);
  const size = Number(sizeText);
  const limitOk = limitText.trim() !== '' && Number.isFinite(limit) && limit > 0 && limit <= 100;
  const sizeOk = sizeText.trim() !== '' && Number.isFinite(size) && size > 0 && size <= 1_000_000;
  const expiresAt = tif === 'GTD' && expires ? new Date(expires) : null;
  const expiresOk = tif !== 'GTD' || (expiresAt !== null && !Number.isNaN(expiresAt.getTime()) && expiresAt.getTime() > Date.now());
  const unit: BuyUnit = side === 'BUY' ? buyUnit : 'shares';
  const available = useAccount().data?.available ?? null;
  // A buy reserves dollars (its amount, or its shares at the limit rounded up): beyond the available cash it is refused as
  // it is typed, before any click. A sell is in shares and reserves no cash.
  const reserve = side !== 'BUY' || !sizeOk ? null : unit === 'amount' ? size : limitOk ? sharesReserve(size, limit) : null;
  const short = reserve !== null && isShortOfCash(reserve, available);
  const valid = limitOk && sizeOk && !short && expiresOk && stated.ok && tokenId !== null;
  const key = useMemo(() => newIdempotencyKey(), [side, unit, outcome, limitText, sizeText, tif, expires, chance, round]);
  const changed =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      place.reset();
    };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid || place.isPending) return;
    place.mutate({
      params: { header: { 'Idempotency-Key': key } },
      body: {
        tokenId: tokenId!,
        side,
        limitPrice: Math.round(limit * 10_000) / 1_000_000,
        // A BUY is sized in dollars or in shares, a SELL in shares (docs/glossary.md).
        ...(unit === 'amount' ? { amount: size } : { shares: size }),
        timeInForce: tif,
        ...(tif === 'GTD' && expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
        ...(stated.forecast === undefined ? {} : { probability: stated.forecast }),
      },
    });
  };

  const o = place.data?.order;
  return (
    <section className="card ticket" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Limit order</h2>
      <form onSubmit={submit}>
        <div className="tabs" role="group" aria-label="Order side">
          {(['BUY', 'SELL'] as const).map((s) => (
            <button key={s} type="button" className="secondary" aria-pressed={side === s} onClick={() => changed(setSide)(s)}>
              {s === 'BUY' ? 'Buy' : 'Sell'}
            </button>
          ))}
        </div>
        <SelectField
          label="Outcome"
          value={outcome}
          onChange={(e) => changed(setOutcome)(e.target.value as 'YES' | 'NO')}
          options={[
            ['YES', 'YES'],
            ['NO', 'NO'],
          ]}
        />
        <InputField
          label="Limit price (cents)"
          inputMode="decimal"
          value={limitText}
          onChange={(e) => changed(setLimitText)(e.target.value)}
          error={limitOk ? undefined : 'Enter a price above 0 and at most 100 cents.'}
          help={side === 'BUY' ? 'The most you pay per share.' : 'The least you accept per share.'}
        />
        {side === 'BUY' ? (
          <SelectField
            label="Buy by"
            value={buyUnit}
            onChange={(e) => changed(setBuyUnit)(e.target.value as BuyUnit)}
            options={[
              ['amount', 'Dollars to spend'],
              ['shares', 'Shares to buy'],
            ]}
          />
        ) : null}
        <InputField
          label={unit === 'amount' ? 'Size (virtual dollars)' : 'Size (shares)'}
          inputMode="decimal"
          value={sizeText}
          onChange={(e) => changed(setSizeText)(e.target.value)}
          error={!sizeOk ? 'Enter a size above 0.' : short ? `Not enough cash: ${money(reserve)} is more than the ${money(available)} available.` : undefined}
          help={
            side === 'BUY' && unit === 'shares' && sizeOk && limitOk
              ? `Reserves up to ${money(sharesReserve(size, limit))}; what the fills cost less comes back.`
              : undefined
          }
        />
        <SelectField label="Time in force" value={tif} onChange={(e) => changed(setTif)(e.target.value as Tif)} options={TIFS} />
        {tif === 'GTD' ? (
          <InputField
            label="Expires at"
            type="datetime-local"
            value={expires}
            onChange={(e) => changed(setExpires)(e.target.value)}
            error={expiresOk ? undefined : 'Pick a time in the future.'}
          />
        ) : null}
        <InputField
          label="Your chance of YES (%, optional)"
          inputMode="decimal"
          value={chance}
          onChange={(e) => changed(setChance)(e.target.value)}
          help="Stated with the order (not if it is rejected); your record compares it with the market's price when the market settles."
          error={stated.ok ? undefined : 'Enter a number from 0 to 100, or leave it empty.'}
        />
        {place.isError ? <ErrorMessage error={place.error} /> : null}
        <button type="submit" disabled={!valid || place.isPending}>
          {place.isPending ? 'Placing…' : `Place ${side === 'BUY' ? 'buy' : 'sell'} order`}
        </button>
      </form>
      {o ? (
        <div role="status" className="fill">
          <p>
            {o.state === 'filled'
              ? `Filled: ${shares(o.filledShares)} ${o.outcome} shares for ${money(o.filledCash)} (average ${cents(o.avgPrice)}).`
              : o.state === 'partially_filled'
                ? `Partly filled: ${shares(o.filledShares)} ${o.outcome} shares for ${money(o.filledCash)}; the rest rests at ${cents(o.limitPrice)}.`
                : o.state === 'open'
                  ? `Order open at ${cents(o.limitPrice)}: ${o.side === 'BUY' ? `${money(o.reservedCash)} reserved` : `${shares(o.reservedShares)} shares reserved`} until it fills${o.expiresAt ? ' or expires' : ''} or you cancel it.`
                  : `Order ${o.state}${o.reason ? `: ${o.reason}` : ''}.`}
          </p>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              place.reset();
              setRound((r) => r + 1);
            }}
          >
            New order
          </button>
        </div>
      ) : null}
    </section>
  );
}
