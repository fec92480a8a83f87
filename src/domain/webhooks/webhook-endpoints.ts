import { randomBytes, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { lockEventSeq, type AccountEventType } from '../events/account-events';

/** A registered endpoint as the owner sees it; the secret is shown only by create and rotate. */
export interface WebhookView {
  id: string;
  url: string;
  description: string | null;
  /** Event types delivered; null: every type. */
  types: AccountEventType[] | null;
  state: 'enabled' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
}

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  types: AccountEventType[] | null;
  state: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
}

/** How long the secret a rotation replaced still signs deliveries beside the new one (receivers switch over). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64 (the key is the decoded bytes). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const toView = (r: EndpointRow): WebhookView => ({
  id: r.id,
  url: r.url,
  description: r.description,
  types: r.types,
  state: r.state,
  disabledReason: r.disabled_reason,
  createdAt: new Date(r.created_at).toISOString(),
});

const COLUMNS = 'id, url, description, types, state, disabled_reason, created_at';

export const webhookNotFound = (id: string) => new AppError('NOT_FOUND', `Webhook ${id} not found.`, { hint: 'List yours with list_webhooks.' });

/** The webhook endpoints accounts register (migration 19): registration, listing, deletion, secret rotation. */
export class WebhookEndpoints {
  constructor(private readonly db: Database) {}

  /**
   * Registers an endpoint that receives the account's events from now on (those after its current seq). The account
   * row is locked while its endpoints are counted, so concurrent registrations cannot pass the limit together.
   */
  async create(
    userId: string,
    input: { url: string; types?: AccountEventType[]; description?: string },
    max: number,
    now: Date,
  ): Promise<WebhookView & { secret: string }> {
    const secret = newSigningSecret();
    return this.db.transaction(async (tx) => {
      const user = await tx.query('SELECT 1 FROM users WHERE id = $1', [userId]);
      if (!user[0]) throw new AppError('NOT_FOUND', 'Account not found.');
      // The log's sequence, locked: no event of the account commits between the cursor read here and the endpoint.
      const eventSeq = await lockEventSeq(tx, userId);
      const count = await tx.query<{ n: bigint }>('SELECT count(*) AS n FROM webhook_endpoints WHERE user_id = $1', [userId]);
      if (Number(count[0]!.n) >= max) {
        throw new AppError('CONFLICT', `An account may register at most ${max} webhooks; nothing was registered.`, {
          hint: 'Delete one you no longer need (delete_webhook), or subscribe one endpoint to several event types.',
        });
      }
      const types = input.types?.length ? [...new Set(input.types)] : null;
      const rows = await tx.query<EndpointRow>(
        `INSERT INTO webhook_endpoints (id, user_id, url, description, types, secret, state, cursor_seq, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'enabled', $7, $8) RETURNING ${COLUMNS}`,
        [randomUUID(), userId, input.url, input.description ?? null, types, secret, eventSeq.toString(), now],
      );
      return { ...toView(rows[0]!), secret };
    });
  }

  async list(userId: string): Promise<WebhookView[]> {
    const rows = await this.db.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
    return rows.map(toView);
  }

  async get(q: Queryable, userId: string, id: string): Promise<WebhookView> {
    const rows = UUID.test(id) ? await q.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND user_id = $2`, [id, userId]) : [];
    if (!rows[0]) throw webhookNotFound(id);
    return toView(rows[0]);
  }

  /** Deletes the endpoint with its deliveries and attempts: nothing more is sent to it, even a delivery in flight's retry. */
  async delete(userId: string, id: string): Promise<void> {
    const rows = UUID.test(id)
      ? await this.db.query<{ id: string }>('DELETE FROM webhook_endpoints WHERE id = $1 AND user_id = $2 RETURNING id', [id, userId])
      : [];
    if (!rows[0]) throw webhookNotFound(id);
  }

  /** A new secret signs from now on; the old one also signs for PREVIOUS_SECRET_GRACE_MS, so receivers can switch. */
  async rotateSecret(userId: string, id: string, now: Date): Promise<WebhookView & { secret: string }> {
    const secret = newSigningSecret();
    const rows = UUID.test(id)
      ? await this.db.query<EndpointRow>(
          `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = $3, secret = $4
           WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
          [id, userId, new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS), secret],
        )
      : [];
    if (!rows[0]) throw webhookNotFound(id);
    return { ...toView(rows[0]), secret };
  }

  /** Run inside an account's deletion: its endpoints go, with everything queued for them. */
  static async deleteAllOf(tx: Queryable, userId: string): Promise<void> {
    await tx.query('DELETE FROM webhook_endpoints WHERE user_id = $1', [userId]);
  }
}
