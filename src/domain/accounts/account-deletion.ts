import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { verifyPassword } from '../../auth/passwords';

/** Run inside the deletion's transaction by other areas (the track record leaves the leaderboards here). */
export type DeletionHook = (tx: Queryable, account: { id: string; at: Date }) => Promise<void>;

/** The display name a deleted account's rows show wherever its id still appears (trades' counterparts, old links). */
export const DELETED_NAME = 'Deleted trader';

/** A placeholder email that can never receive mail (RFC 2606 .invalid) and is unique by the account id. */
export const deletedEmail = (userId: string) => `deleted-${userId}@deleted.invalid`;

export function wrongPassword(): AppError {
  return new AppError('WRONG_PASSWORD', 'The password is incorrect; nothing was changed.', { hint: "Send the account's current password." });
}

/**
 * Deletes an account the one way that keeps the books whole: the users row stays (the ledger, positions,
 * trades and settlements reference it, and the audit sums them), and everything personal goes, in one
 * transaction: the email is freed (a unique non-routable placeholder), the display name, agent description,
 * referral code and password are replaced, the API key, every OAuth access token and browser session is
 * revoked, notifications, the event log and stored idempotent responses are removed, and the hooks take the account off the
 * leaderboards. Open positions stay open and still settle when their markets resolve.
 */
export class AccountDeletion {
  private readonly hooks: DeletionHook[] = [];
  private readonly deleted: Array<(userId: string) => void> = [];

  constructor(private readonly db: Database) {}

  onDelete(hook: DeletionHook): void {
    this.hooks.push(hook);
  }

  /** Called after a deletion has committed (caches of keys and boards forget the account). */
  onDeleted(listener: (userId: string) => void): void {
    this.deleted.push(listener);
  }

  async delete(userId: string, password: string, now: Date): Promise<void> {
    // The slow password check runs before the transaction; the update then requires the same hash, so a
    // password changed meanwhile makes this a wrong password rather than a deletion under the old one.
    const rows = await this.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1 AND deleted_at IS NULL', [userId]);
    const hash = rows[0]?.password_hash;
    if (!hash) throw new AppError('NOT_FOUND', 'Account not found.');
    if (!(await verifyPassword(password, hash))) throw wrongPassword();
    await this.db.transaction(async (tx) => {
      const done = await tx.query<{ id: string }>(
        `WITH d AS (
           UPDATE users SET email = $3, display_name = $4, password_hash = '!deleted', api_key_hash = NULL, agent_description = NULL,
             -- Lower case: a referral code given at registration is upper-cased, so this one can never match.
             referral_code = 'deleted:' || id::text, deleted_at = $5
           WHERE id = $1 AND password_hash = $2 AND deleted_at IS NULL RETURNING id
         ) SELECT id FROM d`,
        [userId, hash, deletedEmail(userId), DELETED_NAME, now],
      );
      if (!done[0]) throw wrongPassword();
      for (const table of ['sessions', 'access_tokens', 'notifications', 'idempotency_keys', 'account_events']) {
        await tx.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
      }
      for (const hook of this.hooks) await hook(tx, { id: userId, at: now });
    });
    for (const l of this.deleted) l(userId);
  }
}
