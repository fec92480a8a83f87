import type { Queryable } from '../../db/database';
import type { AccountEventType } from './account-events';

/**
 * One event as every surface shows it; `seq` is a number (an account's log stays far below 2^53), while SSE ids, webhook
 * ids and cursors, which are text, carry it in decimal.
 */
export interface AccountEvent {
  seq: number;
  type: AccountEventType;
  data: Record<string, unknown>;
  createdAt: string;
}

/** Reads an account's event log, the source of truth for resuming (SSE Last-Event-ID, webhooks, A2A tasks). */
export class EventLog {
  constructor(private readonly db: Queryable) {}

  /** Up to `limit` events after `afterSeq`, oldest first; only those of `types` when given. */
  async after(userId: string, afterSeq: bigint, limit: number, types?: readonly AccountEventType[]): Promise<AccountEvent[]> {
    const rows = await this.db.query<{ seq: bigint; type: AccountEventType; data: Record<string, unknown>; created_at: Date }>(
      ...((types
        ? [
            'SELECT seq, type, data, created_at FROM account_events WHERE user_id = $1 AND seq > $2 AND type = ANY($4::text[]) ORDER BY seq LIMIT $3',
            [userId, afterSeq.toString(), limit, types],
            'account_events_after_of_types',
          ]
        : [
            'SELECT seq, type, data, created_at FROM account_events WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
            [userId, afterSeq.toString(), limit],
            'account_events_after',
          ]) as [string, unknown[], string]),
    );
    return rows.map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data, createdAt: new Date(r.created_at).toISOString() }));
  }

  /** The account's last committed seq (0 before its first event). */
  async latest(userId: string): Promise<bigint> {
    const rows = await this.db.query<{ seq: bigint | null }>('SELECT max(seq) AS seq FROM account_events WHERE user_id = $1', [userId]);
    return rows[0]?.seq ?? 0n;
  }
}
