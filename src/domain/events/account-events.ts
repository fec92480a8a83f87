import type { Queryable } from '../../db/database';

/** What happened to an account, in the order it happened (see migration 18). */
export const ACCOUNT_EVENT_TYPES = [
  'order.accepted',
  'order.partially_filled',
  'order.filled',
  'order.cancelled',
  'order.expired',
  'order.rejected',
  'order.replaced',
  'trade',
  'settlement',
  'notification',
  'balance',
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** The channel every committed event is announced on (`<userId>:<seq>`), to this process and every other. */
export const ACCOUNT_EVENTS_CHANNEL = 'account_events';

/**
 * Appends one event to the account's log inside the caller's transaction and returns its sequence number. The
 * account row is locked by the seq update until the transaction ends (trades already hold it), so seqs commit in
 * order; the announcement goes out on commit and never for a rolled-back event. `data` must be JSON (no bigint).
 */
export async function appendEvent(tx: Queryable, userId: string, type: AccountEventType, data: Record<string, unknown>, at: Date): Promise<bigint> {
  const rows = await tx.query<{ seq: bigint }>(
    `WITH s AS (UPDATE users SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq),
          e AS (INSERT INTO account_events (user_id, seq, type, data, created_at) SELECT $1, event_seq, $2, $3, $4 FROM s RETURNING seq)
     SELECT seq, pg_notify('${ACCOUNT_EVENTS_CHANNEL}', $1::text || ':' || seq::text) FROM e`,
    [userId, type, JSON.stringify(data), at],
    'append_account_event',
  );
  const row = rows[0];
  if (!row) throw new Error(`appendEvent: account ${userId} does not exist`);
  return BigInt(row.seq);
}

/**
 * The JSON of a `balance` event, computed in SQL from a `users` row (`u`): dollars as exact decimals (trim_scale drops
 * the trailing zeros, so 999.99 reads back as the number fromMicro would give).
 */
export const BALANCE_EVENT_DATA_SQL = `jsonb_build_object('balance', trim_scale(balance_micro::numeric / 1000000),
  'reserved', trim_scale(reserved_micro::numeric / 1000000), 'available', trim_scale((balance_micro - reserved_micro)::numeric / 1000000))`;

/**
 * The account's cash after a change, as a `balance` event: balance, reserved by resting orders, available. One statement
 * (it reads the row it bumps), so every change of cash pays one round trip for its event.
 */
export async function appendBalanceEvent(tx: Queryable, userId: string, at: Date): Promise<bigint> {
  const rows = await tx.query<{ seq: bigint }>(
    `WITH s AS (UPDATE users SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq, ${BALANCE_EVENT_DATA_SQL} AS data),
          e AS (INSERT INTO account_events (user_id, seq, type, data, created_at) SELECT $1, event_seq, 'balance', data, $2 FROM s RETURNING seq)
     SELECT seq, pg_notify('${ACCOUNT_EVENTS_CHANNEL}', $1::text || ':' || seq::text) FROM e`,
    [userId, at],
    'append_balance_event',
  );
  const row = rows[0];
  if (!row) throw new Error(`appendBalanceEvent: account ${userId} does not exist`);
  return BigInt(row.seq);
}

/** Parses an announcement payload; undefined for anything else on the channel. */
export function parseAnnouncement(payload: string): { userId: string; seq: bigint } | undefined {
  const m = /^([0-9a-f-]{36}):(\d+)$/i.exec(payload);
  return m ? { userId: m[1]!, seq: BigInt(m[2]!) } : undefined;
}
