import type { Queryable } from '../../db/database';
import { fromMicro } from '../money/micro';

/** What happened to an account, in the order it happened (see migration 18). */
export const ACCOUNT_EVENT_TYPES = [
  'order.accepted',
  'order.partially_filled',
  'order.filled',
  'order.cancelled',
  'order.expired',
  'order.rejected',
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

/** The account's cash after a change, as a `balance` event: balance, reserved by resting orders, available. */
export async function appendBalanceEvent(tx: Queryable, userId: string, at: Date): Promise<bigint> {
  const rows = await tx.query<{ balance_micro: bigint; reserved_micro: bigint }>('SELECT balance_micro, reserved_micro FROM users WHERE id = $1', [userId]);
  const r = rows[0];
  if (!r) throw new Error(`appendBalanceEvent: account ${userId} does not exist`);
  return appendEvent(
    tx,
    userId,
    'balance',
    { balance: fromMicro(r.balance_micro), reserved: fromMicro(r.reserved_micro), available: fromMicro(r.balance_micro - r.reserved_micro) },
    at,
  );
}

/** Parses an announcement payload; undefined for anything else on the channel. */
export function parseAnnouncement(payload: string): { userId: string; seq: bigint } | undefined {
  const m = /^([0-9a-f-]{36}):(\d+)$/i.exec(payload);
  return m ? { userId: m[1]!, seq: BigInt(m[2]!) } : undefined;
}
