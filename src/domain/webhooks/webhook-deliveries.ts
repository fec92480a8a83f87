import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { decodeCursor, encodeCursor } from '../../db/keyset-cursor';
import type { AccountEventType } from '../events/account-events';
import { nextAttemptAt } from './retry-schedule';
import { UUID, webhookNotFound } from './webhook-endpoints';

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

export interface AttemptView {
  n: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (error says why). */
  httpStatus: number | null;
  /** Deprecated duplicate of httpStatus (docs/glossary.md), kept one version. */
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryView {
  id: string;
  webhookId: string;
  seq: number;
  type: AccountEventType;
  state: DeliveryState;
  attempts: AttemptView[];
  /** When the next attempt is due; null when none is scheduled (done, or waiting behind an earlier event). */
  nextAttemptAt: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** A delivery this process holds the lease of, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  userId: string;
  seq: number;
  type: AccountEventType;
  /** This attempt's number among all the delivery's attempts. */
  attempt: number;
  /** This attempt's number in the current round (the retry schedule counts these). */
  tries: number;
  leaseToken: string;
  url: string;
  /** Secrets to sign with: the current one, and the one a rotation replaced while its grace lasts. */
  secrets: string[];
  data: Record<string, unknown>;
  createdAt: string;
}

export interface AttemptOutcome {
  at: Date;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** What became of a delivery after an attempt: done, tried again later, given up, or the endpoint is gone (410). */
export type Recorded = 'succeeded' | 'retrying' | 'failed' | 'disabled' | 'lost';

/** Events read per transaction when queueing an endpoint's backlog. */
const ENQUEUE_BATCH = 500;
/**
 * Attempts listed per delivery: the latest this many (n still numbers every attempt from 1). Each replay adds a
 * schedule's worth, so without a bound one delivery could outgrow a page's byte budget (src/registry/pages.ts).
 */
export const ATTEMPTS_LISTED = 20;

/** Deliveries a replay from a seq re-queues per call; the answer says where to go on. */
export const REPLAY_BATCH = 1000;
const SORT = 'seq';

/**
 * The deliveries of account events to webhook endpoints (migration 19), as plain SQL on PostgreSQL: queueing events
 * per endpoint, claiming due deliveries under a lease (`FOR UPDATE SKIP LOCKED`, so one process of the cluster sends
 * each), recording attempts, listing, replaying. An endpoint's deliveries go one at a time in seq order: a claim takes
 * only an endpoint's lowest pending seq. Every change to an endpoint's queue locks the endpoint row first.
 */
export class WebhookDeliveries {
  constructor(private readonly db: Database) {}

  /** Queues the account's new events for each of its enabled endpoints that is behind; returns deliveries queued. */
  async enqueueFor(userId: string, now: Date): Promise<number> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT e.id FROM webhook_endpoints e JOIN account_event_seqs q ON q.user_id = e.user_id
       WHERE e.user_id = $1 AND e.state = 'enabled' AND e.cursor_seq < q.event_seq`,
      [userId],
      'webhook_endpoints_behind_of',
    );
    return this.enqueueEach(rows, now);
  }

  /** Queues new events for every endpoint that is behind (the catch-up after a lost wake, and the periodic sweep). */
  async enqueueAll(now: Date): Promise<number> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT e.id FROM webhook_endpoints e JOIN account_event_seqs q ON q.user_id = e.user_id WHERE e.state = 'enabled' AND e.cursor_seq < q.event_seq`,
      [],
      'webhook_endpoints_behind',
    );
    return this.enqueueEach(rows, now);
  }

  private async enqueueEach(rows: Array<{ id: string }>, now: Date): Promise<number> {
    let queued = 0;
    for (const r of rows) {
      for (;;) {
        const step = await this.enqueueEndpoint(r.id, now);
        queued += step.queued;
        if (!step.more) break;
      }
    }
    return queued;
  }

  /** One batch of an endpoint's backlog: a delivery per event its types take, and the cursor past every event read. */
  private async enqueueEndpoint(endpointId: string, now: Date): Promise<{ queued: number; more: boolean }> {
    return this.db.transaction(async (tx) => {
      const ep = await tx.query<{ user_id: string; types: string[] | null; cursor_seq: bigint; state: string }>(
        'SELECT user_id, types, cursor_seq, state FROM webhook_endpoints WHERE id = $1 FOR UPDATE',
        [endpointId],
      );
      const e = ep[0];
      if (!e || e.state !== 'enabled') return { queued: 0, more: false };
      const events = await tx.query<{ seq: bigint; type: string }>(
        'SELECT seq, type FROM account_events WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [e.user_id, e.cursor_seq.toString(), ENQUEUE_BATCH],
      );
      if (events.length === 0) return { queued: 0, more: false };
      const taken = events.filter((ev) => e.types === null || e.types.includes(ev.type));
      if (taken.length > 0) {
        // Only the endpoint's first pending delivery is due; the rest wait (null) until the one before them is done.
        await tx.query(
          `INSERT INTO webhook_deliveries (id, endpoint_id, user_id, seq, type, state, next_attempt_at, created_at)
           SELECT gen_random_uuid(), $1, $2, x.seq, x.type, 'pending',
                  CASE WHEN x.ord = 1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = $1 AND p.state = 'pending') THEN $5::timestamptz END,
                  $5
           FROM unnest($3::bigint[], $4::text[]) WITH ORDINALITY AS x(seq, type, ord)
           ON CONFLICT (endpoint_id, seq) DO NOTHING`,
          [endpointId, e.user_id, taken.map((t) => t.seq.toString()), taken.map((t) => t.type), now],
        );
      }
      await tx.query('UPDATE webhook_endpoints SET cursor_seq = $2 WHERE id = $1', [endpointId, events[events.length - 1]!.seq.toString()]);
      return { queued: taken.length, more: events.length === ENQUEUE_BATCH };
    });
  }

  /**
   * Takes up to `limit` due deliveries, each the first pending one of its endpoint, and leases them to this process
   * until `leaseUntil`: another process skips them while the lease lasts (one that crashed mid-send leaves its
   * delivery to be claimed again once the lease ends).
   */
  async claim(now: Date, limit: number, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    const rows = await this.db.query<{
      id: string;
      endpoint_id: string;
      user_id: string;
      seq: bigint;
      type: AccountEventType;
      attempts: number;
      tries: number;
      lease_token: string;
      url: string;
      secret: string;
      previous_secret: string | null;
      previous_secret_until: Date | null;
      data: Record<string, unknown>;
      event_at: Date;
    }>(
      `WITH picked AS (
         SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND e.state = 'enabled'
           AND (d.lease_until IS NULL OR d.lease_until < $1)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.state = 'pending' AND p.seq < d.seq)
         ORDER BY d.next_attempt_at
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries d
       SET lease_until = $3, lease_token = gen_random_uuid(), attempts = d.attempts + 1, tries = d.tries + 1
       FROM picked, webhook_endpoints e, account_events ev
       WHERE d.id = picked.id AND e.id = d.endpoint_id AND ev.user_id = d.user_id AND ev.seq = d.seq
       RETURNING d.id, d.endpoint_id, d.user_id, d.seq, d.type, d.attempts, d.tries, d.lease_token, e.url, e.secret,
                 e.previous_secret, e.previous_secret_until, ev.data, ev.created_at AS event_at`,
      [now, limit, leaseUntil],
      'webhook_deliveries_claim',
    );
    return rows.map((r) => ({
      id: r.id,
      endpointId: r.endpoint_id,
      userId: r.user_id,
      seq: Number(r.seq),
      type: r.type,
      attempt: r.attempts,
      tries: r.tries,
      leaseToken: r.lease_token,
      url: r.url,
      secrets: r.previous_secret && r.previous_secret_until && new Date(r.previous_secret_until) > now ? [r.secret, r.previous_secret] : [r.secret],
      data: r.data,
      createdAt: new Date(r.event_at).toISOString(),
    }));
  }

  /**
   * Records an attempt of a delivery this process still holds, and its outcome: a 2xx succeeds; 410 Gone disables the
   * endpoint (its pending deliveries fail); anything else is retried on the schedule, then fails. 'lost': the lease
   * was taken over or the endpoint deleted meanwhile, and nothing is recorded.
   */
  async record(c: ClaimedDelivery, outcome: AttemptOutcome, schedule: readonly number[], now: Date): Promise<Recorded> {
    return this.db.transaction(async (tx) => {
      const ep = await tx.query<{ state: string }>('SELECT state FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [c.endpointId]);
      if (!ep[0]) return 'lost';
      const held = await tx.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE id = $1 AND lease_token = $2 FOR UPDATE', [c.id, c.leaseToken]);
      if (!held[0]) return 'lost';
      await tx.query('INSERT INTO webhook_attempts (delivery_id, n, at, status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [
        c.id,
        c.attempt,
        outcome.at,
        outcome.status,
        outcome.error?.slice(0, 500) ?? null,
        Math.round(outcome.durationMs),
      ]);
      let result: Recorded;
      if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
        await this.finish(tx, c.id, 'succeeded', now);
        result = 'succeeded';
      } else if (outcome.status === 410) {
        await tx.query(`UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = $2 WHERE id = $1`, [
          c.endpointId,
          `the receiver answered 410 Gone at ${now.toISOString()}`,
        ]);
        await tx.query(
          `UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, lease_until = NULL, lease_token = NULL, finished_at = $2
           WHERE endpoint_id = $1 AND state = 'pending'`,
          [c.endpointId, now],
        );
        result = 'disabled';
      } else {
        const next = nextAttemptAt(schedule, c.tries, now);
        if (next) {
          await tx.query('UPDATE webhook_deliveries SET next_attempt_at = $2, lease_until = NULL, lease_token = NULL WHERE id = $1', [c.id, next]);
          result = 'retrying';
        } else {
          await this.finish(tx, c.id, 'failed', now);
          result = 'failed';
        }
      }
      await promoteHead(tx, c.endpointId, now);
      return result;
    });
  }

  private async finish(tx: Queryable, id: string, state: 'succeeded' | 'failed', now: Date): Promise<void> {
    await tx.query('UPDATE webhook_deliveries SET state = $2, next_attempt_at = NULL, lease_until = NULL, lease_token = NULL, finished_at = $3 WHERE id = $1', [
      id,
      state,
      now,
    ]);
  }

  /** The endpoint's deliveries, newest event first, each with its attempts. */
  async list(
    userId: string,
    endpointId: string,
    q: { state?: DeliveryState; limit: number; cursor?: string },
  ): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
    await this.ownedEndpoint(this.db, userId, endpointId);
    const params: unknown[] = [endpointId, q.limit + 1];
    const param = (v: unknown) => `$${params.push(v)}`;
    let where = 'endpoint_id = $1';
    if (q.state !== undefined) where += ` AND state = ${param(q.state)}`;
    if (q.cursor !== undefined) {
      const c = decodeCursor(
        q.cursor,
        SORT,
        (k) => /^\d{1,19}$/.test(k),
        'Pass nextCursor from the previous page unchanged.',
        (i) => UUID.test(i),
      );
      where += ` AND seq < ${param(c.k)}::bigint`;
    }
    const rows = await this.db.query<{
      id: string;
      seq: bigint;
      type: AccountEventType;
      state: DeliveryState;
      next_attempt_at: Date | null;
      created_at: Date;
      finished_at: Date | null;
    }>(`SELECT id, seq, type, state, next_attempt_at, created_at, finished_at FROM webhook_deliveries WHERE ${where} ORDER BY seq DESC LIMIT $2`, params);
    const page = rows.slice(0, q.limit);
    const attempts = page.length
      ? await this.db.query<{ delivery_id: string; n: number; at: Date; status: number | null; error: string | null; duration_ms: number }>(
          `SELECT delivery_id, n, at, status, error, duration_ms
           FROM (SELECT *, row_number() OVER (PARTITION BY delivery_id ORDER BY n DESC) AS latest FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[])) a
           WHERE latest <= $2 ORDER BY delivery_id, n`,
          [page.map((r) => r.id), ATTEMPTS_LISTED],
        )
      : [];
    const byDelivery = new Map<string, AttemptView[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push({ n: a.n, at: new Date(a.at).toISOString(), httpStatus: a.status, status: a.status, error: a.error, durationMs: a.duration_ms });
      byDelivery.set(a.delivery_id, list);
    }
    const last = page[page.length - 1];
    return {
      deliveries: page.map((r) => ({
        id: r.id,
        webhookId: endpointId,
        seq: Number(r.seq),
        type: r.type,
        state: r.state,
        attempts: byDelivery.get(r.id) ?? [],
        nextAttemptAt: r.state === 'pending' && r.next_attempt_at ? new Date(r.next_attempt_at).toISOString() : null,
        createdAt: new Date(r.created_at).toISOString(),
        finishedAt: r.finished_at ? new Date(r.finished_at).toISOString() : null,
      })),
      nextCursor: rows.length > q.limit && last ? encodeCursor({ s: SORT, k: last.seq.toString(), i: last.id }) : null,
    };
  }

  /**
   * Sends again one delivery (`deliveryId`), or every event of the account from `fromSeq` on that the endpoint takes
   * (up to REPLAY_BATCH a call; events older than the endpoint too). Each starts a new round of the retry schedule
   * and keeps its webhook-id; they go out in seq order, before later pending ones.
   */
  async replay(
    userId: string,
    endpointId: string,
    from: { deliveryId: string } | { fromSeq: bigint },
    now: Date,
  ): Promise<{ replayed: number; nextFromSeq: string | null }> {
    return this.db.transaction(async (tx) => {
      const ep = await this.ownedEndpoint(tx, userId, endpointId, true);
      if (ep.state !== 'enabled') {
        throw new AppError('CONFLICT', `Webhook ${endpointId} is disabled (${ep.disabled_reason ?? 'no reason recorded'}); nothing was replayed.`, {
          hint: 'Register the URL again with create_webhook once it accepts deliveries.',
        });
      }
      let replayed: number;
      let nextFromSeq: string | null = null;
      const reset = `state = 'pending', tries = 0, finished_at = NULL,
        next_attempt_at = CASE WHEN webhook_deliveries.state = 'pending' AND webhook_deliveries.next_attempt_at IS NOT NULL
                               THEN least(webhook_deliveries.next_attempt_at, $3::timestamptz) END`;
      if ('deliveryId' in from) {
        const rows = UUID.test(from.deliveryId)
          ? await tx.query<{ id: string }>(`UPDATE webhook_deliveries SET ${reset} WHERE id = $1 AND endpoint_id = $2 RETURNING id`, [
              from.deliveryId,
              endpointId,
              now,
            ])
          : [];
        if (!rows[0])
          throw new AppError('NOT_FOUND', `Delivery ${from.deliveryId} of webhook ${endpointId} not found.`, {
            hint: 'List them with list_webhook_deliveries.',
          });
        replayed = 1;
      } else {
        const rows = await tx.query<{ seq: bigint }>(
          `INSERT INTO webhook_deliveries (id, endpoint_id, user_id, seq, type, state, created_at)
           SELECT gen_random_uuid(), $1, $2, ev.seq, ev.type, 'pending', $3 FROM account_events ev
           WHERE ev.user_id = $2 AND ev.seq >= $4 AND ev.seq <= $5 AND ($6::text[] IS NULL OR ev.type = ANY($6::text[]))
           ORDER BY ev.seq LIMIT ${REPLAY_BATCH}
           ON CONFLICT (endpoint_id, seq) DO UPDATE SET ${reset}
           RETURNING seq`,
          [endpointId, userId, now, from.fromSeq.toString(), ep.cursor_seq.toString(), ep.types],
        );
        replayed = rows.length;
        if (rows.length === REPLAY_BATCH) {
          const last = rows.reduce((m, r) => (BigInt(r.seq) > m ? BigInt(r.seq) : m), 0n);
          if (last < BigInt(ep.cursor_seq)) nextFromSeq = (last + 1n).toString();
        }
      }
      await promoteHead(tx, endpointId, now);
      return { replayed, nextFromSeq };
    });
  }

  private async ownedEndpoint(
    q: Queryable,
    userId: string,
    endpointId: string,
    lock = false,
  ): Promise<{ state: string; disabled_reason: string | null; cursor_seq: bigint; types: string[] | null }> {
    const rows = UUID.test(endpointId)
      ? await q.query<{ state: string; disabled_reason: string | null; cursor_seq: bigint; types: string[] | null }>(
          `SELECT state, disabled_reason, cursor_seq, types FROM webhook_endpoints WHERE id = $1 AND user_id = $2${lock ? ' FOR UPDATE' : ''}`,
          [endpointId, userId],
        )
      : [];
    if (!rows[0]) throw webhookNotFound(endpointId);
    return rows[0];
  }
}

/** Makes the endpoint's first pending delivery due if it was waiting behind one that is now done. */
async function promoteHead(tx: Queryable, endpointId: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE webhook_deliveries SET next_attempt_at = $2
     WHERE id = (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'pending' ORDER BY seq LIMIT 1) AND next_attempt_at IS NULL`,
    [endpointId, now],
  );
}
