import type { Queryable } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';

/** The one sort of the list, named in its cursors. */
const SORT = 'notifications';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface NotificationView {
  id: string;
  type: string;
  title: string;
  message: string;
  ref: string | null;
  read: boolean;
  createdAt: string;
}

/** Reading and acknowledging an account's notifications; only ever the caller's own rows. */
export class NotificationService {
  constructor(private readonly db: Queryable) {}

  /** Newest first, keyset-paged on (created_at, id): a notification written while paging never shifts a page. */
  async list(userId: string, limit: number, cursor?: string): Promise<{ notifications: NotificationView[]; unreadCount: number; nextCursor: string | null }> {
    const params: unknown[] = [userId, limit + 1];
    let after = '';
    if (cursor !== undefined) {
      const c = decodeCursor(
        cursor,
        SORT,
        (k) => TIMESTAMP_TEXT.test(k),
        'Pass nextCursor from the previous page unchanged.',
        (i) => UUID.test(i),
      );
      after = ` AND (created_at, id) < ($${params.push(c.k)}::timestamptz, $${params.push(c.i)}::uuid)`;
    }
    const [rows, unread] = await Promise.all([
      this.db.query<{ id: string; type: string; title: string; message: string; ref: string | null; read: boolean; created_at: Date; created_key: string }>(
        `SELECT id, type, title, message, ref, read, created_at, created_at::text AS created_key FROM notifications WHERE user_id = $1${after} ORDER BY created_at DESC, id DESC LIMIT $2`,
        params,
      ),
      this.unreadCount(userId),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      notifications: page.map((r) => ({
        id: r.id,
        type: r.type,
        title: r.title,
        message: r.message,
        ref: r.ref,
        read: r.read,
        createdAt: new Date(r.created_at).toISOString(),
      })),
      unreadCount: unread,
      nextCursor: rows.length > limit && last ? encodeCursor({ s: SORT, k: last.created_key, i: last.id }) : null,
    };
  }

  /** How many of the account's notifications are unread. */
  async unreadCount(userId: string): Promise<number> {
    const rows = await this.db.query<{ n: bigint }>('SELECT count(*) AS n FROM notifications WHERE user_id = $1 AND NOT read', [userId]);
    return Number(rows[0]?.n ?? 0n);
  }

  /** Marks the listed ids (or all, with markAll) read; ids of other accounts or unknown ids are ignored. Returns how many changed. */
  async markRead(userId: string, ids: string[] | undefined, all: boolean): Promise<number> {
    if (all) {
      return this.count('UPDATE notifications SET read = true WHERE user_id = $1 AND NOT read RETURNING id', [userId]);
    }
    const valid = (ids ?? []).filter((id) => UUID.test(id));
    if (!valid.length) return 0;
    return this.count('UPDATE notifications SET read = true WHERE user_id = $1 AND id = ANY($2::uuid[]) AND NOT read RETURNING id', [userId, valid]);
  }

  /** Rows an UPDATE … RETURNING changed (wrapped in a CTE: TypeORM answers a bare UPDATE with [rows, count]). */
  private async count(update: string, params: unknown[]): Promise<number> {
    const rows = await this.db.query<{ n: bigint }>(`WITH changed AS (${update}) SELECT count(*) AS n FROM changed`, params);
    return Number(rows[0]!.n);
  }
}
