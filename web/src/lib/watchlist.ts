import { useQueryClient } from '@tanstack/react-query';
import { $api, type Ok } from './api/client';

export type WatchedMarket = Ok<'/api/watchlist', 'get'>['markets'][number];

/**
 * The person's watchlist (list_watchlist), one query shared by every market page and the watchlist page: opening
 * markets one after another reads it once a minute at most, never once per market.
 */
export function useWatchlist(enabled = true) {
  return $api.useQuery('get', '/api/watchlist', {}, { enabled, staleTime: 60_000 });
}

/** After watching, unwatching or setting an alert: the watchlist is read again. */
export function useRefreshWatchlist(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: ['get', '/api/watchlist'] });
}

/** A threshold typed in cents ("60", "12.5") as the probability the API takes; null for an empty field, NaN when invalid. */
export function centsToProbability(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  const c = Number(t);
  return Number.isFinite(c) && c >= 0 && c <= 100 ? Math.round(c * 10_000) / 1_000_000 : Number.NaN;
}
