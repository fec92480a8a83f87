import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import type { AccountEvent } from '../events/event-log';

/** A URL that receives an order's updates (an A2A task's push-notification config), as stored. */
export interface PushTarget {
  taskId: string;
  id: string;
  url: string;
  token: string | null;
  /** Sent as `Authorization: <scheme> <credentials>` when both are set. */
  authScheme: string | null;
  authCredentials: string | null;
  /** The protocol version the target was registered in: its payloads are shaped for it. */
  wireVersion: string;
  createdAt: string;
}

/** Events claimed for delivery, with the targets of the orders they are about. */
export interface PushBatch {
  events: AccountEvent[];
  targetsByTask: Map<string, PushTarget[]>;
  /** The claim hit its limit: claim again. */
  more: boolean;
}

/** Announces (after commit) an account whose push targets changed (payload: its id): every worker re-reads who has targets. */
export const PUSH_TARGETS_CHANNEL = 'a2a_push_targets';

/** A task holds at most this many targets (a client registers one or two; more is a mistake or abuse). */
export const MAX_TARGETS_PER_TASK = 10;
const ORDER_EVENT = /^order\./;

interface TargetRow {
  task_id: string;
  id: string;
  url: string;
  token: string | null;
  auth_scheme: string | null;
  auth_credentials: string | null;
  wire_version: string;
  created_at: Date;
}

/**
 * What the task surface (A2A) keeps beside an order: the conversation (contextId) a task was created in, and the
 * push targets of a task with the cursor of account events already pushed. Every read is scoped by the account.
 */
export class TaskPushStore {
  constructor(private readonly db: Database) {}

  /** Records the context an order was placed in (first one wins: a repeated clientOrderId keeps its context). */
  async rememberContext(userId: string, taskId: string, contextId: string, now: Date): Promise<void> {
    await this.db.query('INSERT INTO a2a_task_contexts (task_id, user_id, context_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (task_id) DO NOTHING', [
      taskId,
      userId,
      contextId,
      now,
    ]);
  }

  /** The contexts of some of an account's tasks (tasks without one are absent). */
  async contextsOf(userId: string, taskIds: string[]): Promise<Map<string, string>> {
    if (taskIds.length === 0) return new Map();
    const rows = await this.db.query<{ task_id: string; context_id: string }>(
      'SELECT task_id, context_id FROM a2a_task_contexts WHERE user_id = $1 AND task_id = ANY($2::uuid[])',
      [userId, taskIds],
    );
    return new Map(rows.map((r) => [r.task_id, r.context_id]));
  }

  /**
   * Adds (or replaces, same id) a target of one of the account's orders. The account's push cursor starts at its
   * latest event when it has none, so only what happens from now on is pushed; both in one transaction.
   */
  async saveTarget(userId: string, t: Omit<PushTarget, 'createdAt'>, now: Date): Promise<PushTarget> {
    return this.db.transaction(async (tx) => {
      const owned = await tx.query('SELECT 1 FROM orders WHERE id = $1 AND user_id = $2', [t.taskId, userId]);
      if (!owned[0]) throw new AppError('NOT_FOUND', `Task ${t.taskId} not found.`);
      const count = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM a2a_push_configs WHERE task_id = $1 AND id <> $2', [t.taskId, t.id]);
      if ((count[0]?.n ?? 0) >= MAX_TARGETS_PER_TASK) {
        throw new AppError('VALIDATION_ERROR', `A task holds at most ${MAX_TARGETS_PER_TASK} push notification configs.`, {
          hint: 'Delete one with DeleteTaskPushNotificationConfig first.',
        });
      }
      // The cursor starts (again) at the account's latest event when it has no targets: workers skip such an account's
      // events without claiming them, and they must not be pushed to the first target registered afterwards.
      await tx.query(
        `INSERT INTO a2a_push_cursors (user_id, last_seq) SELECT u.id, coalesce(q.event_seq, 0) FROM users u LEFT JOIN account_event_seqs q ON q.user_id = u.id WHERE u.id = $1
         ON CONFLICT (user_id) DO UPDATE SET last_seq = EXCLUDED.last_seq
           WHERE NOT EXISTS (SELECT 1 FROM a2a_push_configs WHERE user_id = $1)`,
        [userId],
      );
      tx.notify(PUSH_TARGETS_CHANNEL, userId);
      const rows = await tx.query<TargetRow>(
        `INSERT INTO a2a_push_configs (task_id, id, user_id, url, token, auth_scheme, auth_credentials, wire_version, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (task_id, id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token, auth_scheme = EXCLUDED.auth_scheme,
           auth_credentials = EXCLUDED.auth_credentials, wire_version = EXCLUDED.wire_version
         RETURNING *`,
        [t.taskId, t.id, userId, t.url, t.token, t.authScheme, t.authCredentials, t.wireVersion, now],
      );
      return toTarget(rows[0]!);
    });
  }

  async targets(userId: string, taskId: string): Promise<PushTarget[]> {
    const rows = await this.db.query<TargetRow>('SELECT * FROM a2a_push_configs WHERE user_id = $1 AND task_id = $2 ORDER BY created_at, id', [userId, taskId]);
    return rows.map(toTarget);
  }

  /** True when the target existed. */
  async deleteTarget(userId: string, taskId: string, id: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM a2a_push_configs WHERE user_id = $1 AND task_id = $2 AND id = $3 RETURNING id', [userId, taskId, id]);
    if (rows.length > 0) this.db.notify(PUSH_TARGETS_CHANNEL, userId);
    return rows.length > 0;
  }

  /** Accounts that have push targets: the only ones whose events a push worker claims. */
  async usersWithTargets(): Promise<string[]> {
    return (await this.db.query<{ user_id: string }>('SELECT DISTINCT user_id FROM a2a_push_configs')).map((r) => r.user_id);
  }

  /** Whether the account has push targets now. */
  async hasTargets(userId: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM a2a_push_configs WHERE user_id = $1 LIMIT 1', [userId])).length > 0;
  }

  /** How many orders the account has (in one of `states`): ListTasks' totalSize. */
  async countTasks(userId: string, states?: readonly string[]): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM orders WHERE user_id = $1 AND ($2::text[] IS NULL OR state = ANY($2::text[]))',
      [userId, states ? [...states] : null],
    );
    return rows[0]?.n ?? 0;
  }

  /** Removes an account's targets and cursor (account deletion, inside its transaction). */
  async forget(tx: Queryable, userId: string): Promise<void> {
    await tx.query('DELETE FROM a2a_push_configs WHERE user_id = $1', [userId]);
    await tx.query('DELETE FROM a2a_push_cursors WHERE user_id = $1', [userId]);
    tx.notify(PUSH_TARGETS_CHANNEL, userId);
  }

  /**
   * Claims the account's next events for push delivery: under the cursor row's lock (a second process waits, then
   * sees the advanced cursor), reads up to `limit` events after it, advances it past them, and returns the order
   * events whose orders have targets. Undefined when the account has no cursor (it never registered a target).
   */
  async claim(userId: string, limit: number): Promise<PushBatch | undefined> {
    return this.db.transaction(async (tx) => {
      const cursor = await tx.query<{ last_seq: bigint }>('SELECT last_seq FROM a2a_push_cursors WHERE user_id = $1 FOR UPDATE', [userId]);
      if (!cursor[0]) return undefined;
      const rows = await tx.query<{ seq: bigint; type: AccountEvent['type']; data: Record<string, unknown>; created_at: Date }>(
        'SELECT seq, type, data, created_at FROM account_events WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [userId, cursor[0].last_seq.toString(), limit],
      );
      const last = rows[rows.length - 1];
      if (!last) return { events: [], targetsByTask: new Map(), more: false };
      await tx.query('UPDATE a2a_push_cursors SET last_seq = $2 WHERE user_id = $1', [userId, last.seq.toString()]);
      const events = rows
        .filter((r) => ORDER_EVENT.test(r.type) && typeof r.data.id === 'string')
        .map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data, createdAt: new Date(r.created_at).toISOString() }));
      const taskIds = [...new Set(events.map((e) => e.data.id as string))];
      const targets = taskIds.length
        ? await tx.query<TargetRow>('SELECT * FROM a2a_push_configs WHERE user_id = $1 AND task_id::text = ANY($2::text[]) ORDER BY created_at, id', [
            userId,
            taskIds,
          ])
        : [];
      const targetsByTask = new Map<string, PushTarget[]>();
      for (const t of targets.map(toTarget)) targetsByTask.set(t.taskId, [...(targetsByTask.get(t.taskId) ?? []), t]);
      return { events: events.filter((e) => targetsByTask.has(e.data.id as string)), targetsByTask, more: rows.length === limit };
    });
  }
}

function toTarget(r: TargetRow): PushTarget {
  return {
    taskId: r.task_id,
    id: r.id,
    url: r.url,
    token: r.token,
    authScheme: r.auth_scheme,
    authCredentials: r.auth_credentials,
    wireVersion: r.wire_version,
    createdAt: new Date(r.created_at).toISOString(),
  };
}
