import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../lib/api/client';
import { cents } from '../lib/format';
import { centsToProbability, useRefreshWatchlist, useWatchlist } from '../lib/watchlist';
import { ErrorMessage } from './error-message';
import { InputField } from './form-field';
import './discovery.css';

/** The watch star of a market page and, once watched, its price alert (watch_market, unwatch_market). */
export function WatchMarket({ marketId }: { marketId: string }) {
  const watchlist = useWatchlist();
  const refresh = useRefreshWatchlist();
  const entry = watchlist.data?.markets.find((m) => m.marketId === marketId);
  const toggle = useMutation({
    mutationFn: async () => {
      if (entry) await api.DELETE('/api/watchlist/{marketId}', { params: { path: { marketId } } });
      else await api.POST('/api/watchlist', { body: { marketId } });
    },
    onSettled: refresh,
  });
  if (watchlist.isError) return <ErrorMessage error={watchlist.error} />;
  return (
    <section className="card" aria-labelledby="watch-heading">
      <h2 id="watch-heading">Watchlist</h2>
      <button
        type="button"
        className="secondary watch-star"
        aria-pressed={Boolean(entry)}
        disabled={!watchlist.isSuccess || toggle.isPending}
        onClick={() => toggle.mutate()}
      >
        <span aria-hidden="true">{entry ? '★' : '☆'}</span> {entry ? 'Watching' : 'Watch this market'}
      </button>
      {toggle.isError ? <ErrorMessage error={toggle.error} /> : null}
      {entry ? <AlertForm key={`${entry.alert.above}-${entry.alert.below}`} marketId={marketId} above={entry.alert.above} below={entry.alert.below} /> : null}
      {entry ? (
        <AlertState above={entry.alert.above} aboveFiredAt={entry.alert.aboveFiredAt} below={entry.alert.below} belowFiredAt={entry.alert.belowFiredAt} />
      ) : null}
    </section>
  );
}

function AlertState(a: { above: number | null; aboveFiredAt: string | null; below: number | null; belowFiredAt: string | null }) {
  const parts = [
    a.above !== null ? `at or above ${cents(a.above)}${a.aboveFiredAt ? ' (fired)' : ''}` : null,
    a.below !== null ? `at or below ${cents(a.below)}${a.belowFiredAt ? ' (fired)' : ''}` : null,
  ].filter(Boolean);
  return <p className="muted">{parts.length ? `Alert when YES is ${parts.join(' or ')}.` : 'No price alert set.'}</p>;
}

/** Thresholds in cents; an empty field clears that side. Saving sets both again, which re-arms an alert that fired. */
function AlertForm({ marketId, above, below }: { marketId: string; above: number | null; below: number | null }) {
  const toText = (p: number | null) => (p === null ? '' : String(Math.round(p * 1_000_000) / 10_000));
  const [aboveText, setAbove] = useState(toText(above));
  const [belowText, setBelow] = useState(toText(below));
  const refresh = useRefreshWatchlist();
  const save = useMutation({
    mutationFn: (body: { alertAbove: number | null; alertBelow: number | null }) => api.POST('/api/watchlist', { body: { marketId, ...body } }),
    onSuccess: refresh,
  });
  const alertAbove = centsToProbability(aboveText);
  const alertBelow = centsToProbability(belowText);
  const bad = 'Enter cents from 0 to 100, or leave it empty.';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (Number.isNaN(alertAbove) || Number.isNaN(alertBelow)) return;
    save.mutate({ alertAbove, alertBelow });
  };
  return (
    <form className="alert-form" aria-label="Price alert" onSubmit={submit}>
      <InputField
        label="Alert at or above (¢)"
        inputMode="decimal"
        value={aboveText}
        onChange={(e) => setAbove(e.target.value)}
        error={Number.isNaN(alertAbove) ? bad : undefined}
      />
      <InputField
        label="Alert at or below (¢)"
        inputMode="decimal"
        value={belowText}
        onChange={(e) => setBelow(e.target.value)}
        error={Number.isNaN(alertBelow) ? bad : undefined}
      />
      <button type="submit" disabled={save.isPending}>
        Save alert
      </button>
      {save.isSuccess ? <p role="status">Alert saved: you get a notification when YES gets there.</p> : null}
      {save.isError ? <ErrorMessage error={save.error} /> : null}
    </form>
  );
}
