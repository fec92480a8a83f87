import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database';
import { hashSecret } from './api-keys';

/** OAuth access tokens: `sat_` + 64 hex chars (256 random bits), opaque to clients, one hour. */
export const ACCESS_TOKEN_PATTERN = /^sat_[0-9a-f]{64}$/;
export const ACCESS_TOKEN_LIFETIME_S = 3600;

export interface IssuedToken {
  token: string;
  expiresAt: Date;
  scopes: string[];
  audience: string;
}

export interface VerifiedToken {
  userId: string;
  isAgent: boolean;
  audience: string;
  scopes: string[];
}

export function generateAccessToken(): string {
  return `sat_${randomBytes(32).toString('hex')}`;
}

/** Issues and verifies access tokens. Only their hash is stored; expiry is judged by the injected clock. */
export class AccessTokenStore {
  constructor(private readonly db: Queryable) {}

  /**
   * Stores a token bound to the API key it was minted with (`keyHash`): a rotated key invalidates it.
   * Expired tokens of the same account are swept here, so the table stays bounded without a timer.
   */
  async issue(args: { token: string; userId: string; keyHash: string; audience: string; scopes: string[]; now: Date }): Promise<IssuedToken> {
    const expiresAt = new Date(args.now.getTime() + ACCESS_TOKEN_LIFETIME_S * 1000);
    await this.db.query('DELETE FROM access_tokens WHERE user_id = $1 AND expires_at <= $2', [args.userId, args.now]);
    await this.db.query(
      `INSERT INTO access_tokens (token_hash, user_id, key_hash, audience, scopes, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [hashSecret(args.token), args.userId, args.keyHash, args.audience, args.scopes, args.now, expiresAt],
    );
    return { token: args.token, expiresAt, scopes: args.scopes, audience: args.audience };
  }

  /** Removes every token of an account (after a key rotation they no longer verify anyway: this keeps the table clean). */
  async revokeAll(userId: string): Promise<void> {
    await this.db.query('DELETE FROM access_tokens WHERE user_id = $1', [userId]);
  }

  /** The token's account, audience and scopes; null when unknown, expired, or minted with a key since rotated. */
  async verify(token: string, now: Date): Promise<VerifiedToken | null> {
    if (!ACCESS_TOKEN_PATTERN.test(token)) return null;
    const rows = await this.db.query<{ user_id: string; is_agent: boolean; audience: string; scopes: string[] }>(
      `SELECT t.user_id, u.is_agent, t.audience, t.scopes
         FROM access_tokens t JOIN users u ON u.id = t.user_id AND u.api_key_hash = t.key_hash
        WHERE t.token_hash = $1 AND t.expires_at > $2`,
      [hashSecret(token), now],
    );
    const row = rows[0];
    return row ? { userId: row.user_id, isAgent: row.is_agent, audience: row.audience, scopes: row.scopes } : null;
  }
}
