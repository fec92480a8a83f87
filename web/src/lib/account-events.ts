import { useEffect } from 'react';
import { useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { Ok } from './api/client';
import { ACCOUNT_QUERY_KEY, type Account } from './account';
import { EventStream } from './event-stream';
import { leadOneTab } from './tab-leader';

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
 * The signed-in person's event stream (GET /api/events), one per browser, not one per tab: the server holds at most
 * EVENT_STREAMS_PER_ACCOUNT streams of an account, and a person with more tabs than that must not be refused. The tab
 * elected under the account's name (tab-leader.ts: a Web Lock, or a lease on an insecure origin) opens the stream and
 * passes every event on to the other tabs over a BroadcastChannel; when it closes, another tab is elected and opens the
 * stream again from the last event it was passed (lastEventId), so nothing is missed. Without BroadcastChannel, each
 * tab opens its own.
 */
export function useAccountEvents(userId: string | null): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!userId) return;
    return sharedAccountStream(userId, (e) => applyAccountEvent(client, e));
  }, [userId, client]);
}

/** Where one browser's tabs meet for an account: the leader's election (tab-leader.ts) and the channel. */
export const accountStreamName = (userId: string) => `paper-trading:account-events:${userId}`;

/** A usable account event, else null (the stream and the channel carry only JSON the server wrote, but check). */
function asEvent(data: unknown): AccountEvent | null {
  const e = data as AccountEvent;
  return typeof e?.seq === 'number' && e.type in STALE && typeof e.data === 'object' && e.data !== null ? e : null;
}

/** Follows the account's events in this tab, through the one stream its tabs share; returns the stop. */
export function sharedAccountStream(userId: string, onEvent: (e: AccountEvent) => void): () => void {
  let lastSeq: number | null = null;
  const seen = (e: AccountEvent) => {
    if (lastSeq !== null && e.seq <= lastSeq) return;
    lastSeq = e.seq;
    onEvent(e);
  };
  const open = (relay?: BroadcastChannel) =>
    new EventStream({
      url: () => `/api/events${lastSeq ? `?lastEventId=${lastSeq}` : ''}`,
      events: EVENT_TYPES,
      onEvent: (_name, data) => {
        const e = asEvent(data);
        if (!e) return;
        relay?.postMessage(e);
        seen(e);
      },
      onStatus: () => undefined,
    });
  if (typeof BroadcastChannel === 'undefined') {
    const stream = open();
    return () => stream.close();
  }
  const channel = new BroadcastChannel(accountStreamName(userId));
  channel.onmessage = (m: MessageEvent) => {
    const e = asEvent(m.data);
    if (e) seen(e);
  };
  const leave = leadOneTab(accountStreamName(userId), () => {
    const stream = open(channel);
    return () => stream.close();
  });
  return () => {
    leave();
    channel.close();
  };
}
