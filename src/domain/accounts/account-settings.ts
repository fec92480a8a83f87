import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { hashPassword, verifyPassword } from '../../auth/passwords';
import { SessionStore } from '../../auth/sessions';
import { wrongPassword } from './account-deletion';

/** Run inside a rename's transaction by other areas (the leaderboard card carries the name). */
export type RenameHook = (tx: Queryable, account: { id: string; displayName: string }) => Promise<void>;

/** A person's own settings: display name and password. */
export class AccountSettings {
  private readonly renameHooks: RenameHook[] = [];
  private readonly renamed: Array<() => void> = [];

  constructor(private readonly db: Database) {}

  onRename(hook: RenameHook): void {
    this.renameHooks.push(hook);
  }

  /** Called after a rename has committed (cached boards show the new name). */
  onRenamed(listener: () => void): void {
    this.renamed.push(listener);
  }

  async rename(userId: string, displayName: string): Promise<{ id: string; displayName: string; isAgent: boolean }> {
    const name = displayName.trim();
    const user = await this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string; is_agent: boolean }>(
        'WITH r AS (UPDATE users SET display_name = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING id, is_agent) SELECT id, is_agent FROM r',
        [userId, name],
      );
      if (!rows[0]) throw new AppError('NOT_FOUND', 'Account not found.');
      for (const hook of this.renameHooks) await hook(tx, { id: userId, displayName: name });
      return { id: userId, displayName: name, isAgent: rows[0].is_agent };
    });
    for (const l of this.renamed) l();
    return user;
  }

  /**
   * Replaces the password and, in the same transaction, ends every browser session of the account except
   * `keepSessionId` (the one making the change, if any): whoever knew the old password is signed out.
   * Returns how many sessions ended. API keys and access tokens are not password-bound and stay.
   */
  async changePassword(userId: string, current: string, next: string, keepSessionId: string | undefined): Promise<number> {
    const rows = await this.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1 AND deleted_at IS NULL', [userId]);
    const hash = rows[0]?.password_hash;
    if (!hash) throw new AppError('NOT_FOUND', 'Account not found.');
    // Both slow hashes before the transaction; the update then requires the hash just verified (no lost race).
    if (!(await verifyPassword(current, hash))) throw wrongPassword();
    const nextHash = await hashPassword(next);
    return this.db.transaction(async (tx) => {
      const done = await tx.query<{ id: string }>(
        'WITH u AS (UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2 RETURNING id) SELECT id FROM u',
        [userId, hash, nextHash],
      );
      if (!done[0]) throw wrongPassword();
      return SessionStore.endOthers(tx, userId, keepSessionId);
    });
  }
}
