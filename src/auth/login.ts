import { AppError } from '../errors/app-error';
import type { Queryable } from '../db/database';
import type { RateLimiter } from '../limits/rate-limiter';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './passwords';
import type { SessionStore } from './sessions';

export interface SignedIn {
  user: { id: string; displayName: string; isAgent: boolean };
  session: { token: string; sessionId: string; maxAgeS: number };
}

/**
 * Email + password sign-in. A wrong password and an unknown email give the same answer after the same
 * work (a dummy hash is verified), and failures are counted per account whether or not it exists.
 */
export class LoginService {
  constructor(
    private readonly db: Queryable,
    private readonly sessions: SessionStore,
    private readonly limiter: RateLimiter,
  ) {}

  async signIn(email: string, password: string, now: Date): Promise<SignedIn> {
    await this.limiter.beginLoginAttempt(email);
    const rows = await this.db.query<{ id: string; display_name: string; is_agent: boolean; password_hash: string }>(
      'SELECT id, display_name, is_agent, password_hash FROM users WHERE lower(email) = lower($1)',
      [email.trim()],
    );
    const row = rows[0];
    const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!row || !ok) {
      throw new AppError('UNAUTHORIZED', 'Email or password is incorrect.', {
        hint: 'Check both and retry. Repeated failures are rate-limited per account and per address.',
      });
    }
    await this.limiter.loginSucceeded(email);
    const session = await this.sessions.create(row.id, now);
    return { user: { id: row.id, displayName: row.display_name, isAgent: row.is_agent }, session };
  }
}
