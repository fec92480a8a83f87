import { useEffect } from 'react';
import { useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { Ok } from './api/client';
import { ACCOUNT_QUERY_KEY, type Account } from './account';
import { EventStream } from './event-stream';

/** One event of the account's log, as GET /api/events sends it (the same object list_events returns). */
export type AccountEvent = Ok<'/api/user/events', 'get'>['events'][number];
type EventType = AccountEvent['type'];

const POSITIONS: QueryKey = ['get', '/api/positions'];
const TRADES: QueryKey = ['get', '/api/trades'];
const ORDERS: QueryKey = ['get', '/api/orders'];
const HISTORY: QueryKey = ['get', '/api/portfolio/history'];
const NOTIFICATIONS: QueryKey = ['get', '/api/notifications'];

/** What each event makes stale (read again where a page shows it; elsewhere at its next use). */
const STALE: Record<EventType, QueryKey[]> = {
  'order.accepted': [ORDERS],
  'order.partially_filled': [ORDERS, POSITIONS, TRADES],
  'order.filled': [ORDERS, POSITIONS, TRADES],
  'order.cancelled': [ORDERS],
  'order.expired': [ORDERS],
  'order.rejected': [ORDERS],
  'order.replaced': [ORDERS],
  trade: [POSITIONS, TRADES, HISTORY],
  settlement: [POSITIONS, TRADES, HISTORY, ACCOUNT_QUERY_KEY],
  notification: [NOTIFICATIONS],
  // The balance event carries the new figures: the account is updated in place, without a read.
  balance: [],
};
const EVENT_TYPES = Object.keys(STALE) as EventType[];

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Applies one account event to what the pages hold. A balance event sets the header's balance, reserved and available;
 * a notification adds one unread; the others mark the reads they change stale. A read already made after the event
 * (the page that traded re-reads by itself) is not read again, nor one under way.
 */
export function applyAccountEvent(client: QueryClient, e: AccountEvent): void {
  const d = e.data;
  if (e.type === 'balance') {
    const balance = num(d.balance);
    const reserved = num(d.reserved);
    const available = num(d.available);
    if (balance !== undefined && reserved !== undefined && available !== undefined)
      client.setQueryData<Account | null>(ACCOUNT_QUERY_KEY, (a) => (a ? { ...a, balance, reserved, available } : a));
  }
  if (e.type === 'notification')
    client.setQueryData<Account | null>(ACCOUNT_QUERY_KEY, (a) => (a ? { ...a, unreadNotifications: a.unreadNotifications + 1 } : a));
  const happened = Date.parse(e.createdAt);
  for (const queryKey of STALE[e.type])
    void client.invalidateQueries({ queryKey, predicate: (q) => !(q.state.dataUpdatedAt > happened) }, { cancelRefetch: false });
}

/**
 * The signed-in person's event stream (GET /api/events), one per tab while signed in: fills, trades, settlements,
 * notifications and balance changes reach the header and the pages as they happen. After a lost connection it
 * resumes after the last event seen (lastEventId), so nothing is missed.
 */
export function useAccountEvents(userId: string | null): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!userId) return;
    let lastSeq: number | null = null;
    const stream = new EventStream({
      url: () => `/api/events${lastSeq ? `?lastEventId=${lastSeq}` : ''}`,
      events: EVENT_TYPES,
      onEvent: (_name, data) => {
        const e = data as AccountEvent;
        if (typeof e?.seq !== 'number' || !(e.type in STALE) || typeof e.data !== 'object' || e.data === null) return;
        lastSeq = e.seq;
        applyAccountEvent(client, e);
      },
      onStatus: () => undefined,
    });
    return () => stream.close();
  }, [userId, client]);
}
