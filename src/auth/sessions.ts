import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database';
import { hashSecret } from './api-keys';

/** Browser session tokens: `sst_` + 64 hex chars (256 random bits), kept in an HttpOnly cookie. */
export const SESSION_TOKEN_PATTERN = /^sst_[0-9a-f]{64}$/;
export const SESSION_LIFETIME_S = 30 * 24 * 3600;
/** Sliding expiry is written at most this often, so a busy session does not update its row on every request. */
const RENEW_AFTER_MS = 24 * 3600 * 1000;

export interface VerifiedSession {
  sessionId: string;
  userId: string;
  isAgent: boolean;
  /** Set when this use extended the session: the transport re-sends the cookie with a fresh Max-Age. */
  renewed: boolean;
}

/** Server-side sessions: revocable (a row per session), sliding 30-day expiry judged by the injected clock. */
export class SessionStore {
  constructor(private readonly db: Queryable) {}

  /** Opens a session; expired sessions of the same account are swept here (bounded table, no timer). */
  async create(userId: string, now: Date): Promise<{ token: string; sessionId: string; maxAgeS: number }> {
    const token = `sst_${randomBytes(32).toString('hex')}`;
    const sessionId = randomUUID();
    await this.db.query('DELETE FROM sessions WHERE user_id = $1 AND expires_at <= $2', [userId, now]);
    await this.db.query(`INSERT INTO sessions (id, token_hash, user_id, created_at, renewed_at, expires_at) VALUES ($1, $2, $3, $4, $4, $5)`, [
      sessionId,
      hashSecret(token),
      userId,
      now,
      new Date(now.getTime() + SESSION_LIFETIME_S * 1000),
    ]);
    return { token, sessionId, maxAgeS: SESSION_LIFETIME_S };
  }

  async verify(token: string, now: Date): Promise<VerifiedSession | null> {
    if (!SESSION_TOKEN_PATTERN.test(token)) return null;
    const rows = await this.db.query<{ id: string; user_id: string; is_agent: boolean; renewed_at: Date }>(
      `SELECT s.id, s.user_id, u.is_agent, s.renewed_at
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > $2`,
      [hashSecret(token), now],
    );
    const row = rows[0];
    if (!row) return null;
    let renewed = false;
    if (now.getTime() - new Date(row.renewed_at).getTime() >= RENEW_AFTER_MS) {
      await this.db.query('UPDATE sessions SET renewed_at = $2, expires_at = $3 WHERE id = $1', [
        row.id,
        now,
        new Date(now.getTime() + SESSION_LIFETIME_S * 1000),
      ]);
      renewed = true;
    }
    return { sessionId: row.id, userId: row.user_id, isAgent: row.is_agent, renewed };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
  }

  /** Ends every session of an account (sign out everywhere); returns how many there were. */
  async revokeAll(userId: string): Promise<number> {
    const rows = await this.db.query<{ n: number }>('WITH d AS (DELETE FROM sessions WHERE user_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM d', [
      userId,
    ]);
    return rows[0]!.n;
  }

  /** Ends every session of an account but `keepSessionId` (a password change), in the caller's transaction; returns how many ended. */
  static async endOthers(tx: Queryable, userId: string, keepSessionId: string | undefined): Promise<number> {
    const rows = await tx.query<{ n: number }>(
      'WITH d AS (DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2::uuid RETURNING 1) SELECT count(*)::int AS n FROM d',
      [userId, keepSessionId ?? null],
    );
    return rows[0]!.n;
  }

  async revokeToken(token: string): Promise<void> {
    if (SESSION_TOKEN_PATTERN.test(token)) await this.db.query('DELETE FROM sessions WHERE token_hash = $1', [hashSecret(token)]);
  }
}
