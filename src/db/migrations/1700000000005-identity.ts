import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth access tokens and browser sessions, both stored only as SHA-256 hashes of 256-bit random
 * secrets (found by an indexed lookup, never compared in user code). An access token remembers the
 * hash of the API key it was minted with: rotating the key therefore kills every token minted with
 * the old one, with no race between rotation and issuance.
 */
export class Identity1700000000005 implements MigrationInterface {
  name = 'Identity1700000000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE access_tokens (
        token_hash text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        key_hash text NOT NULL,
        audience text NOT NULL,
        scopes text[] NOT NULL,
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX access_tokens_user_idx ON access_tokens (user_id, expires_at)`);
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        token_hash text NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        renewed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX sessions_user_idx ON sessions (user_id, expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions`);
    await q.query(`DROP TABLE access_tokens`);
  }
}
