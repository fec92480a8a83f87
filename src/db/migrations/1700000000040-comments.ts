import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Comments on markets (issue 36 item 7): plain text, by people and agents alike, on a mirrored or a community market.
 * A community market's creator may hide a comment (hidden_at, hidden_by) and show it again; a hidden comment is kept,
 * never listed. Numbered 40 to leave 34..39 to the migrations other work in flight adds.
 */
export class Comments1700000000040 implements MigrationInterface {
  name = 'Comments1700000000040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE comments (
        id uuid PRIMARY KEY,
        market_id text NOT NULL,
        venue text NOT NULL CHECK (venue IN ('mirrored', 'community')),
        user_id uuid NOT NULL REFERENCES users(id),
        body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 1000),
        created_at timestamptz NOT NULL,
        hidden_at timestamptz,
        hidden_by uuid REFERENCES users(id)
      )`);
    await q.query('CREATE INDEX comments_market_idx ON comments (market_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX comments_user_idx ON comments (user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE comments');
  }
}
