import type { MigrationInterface, QueryRunner } from 'typeorm';

/** User-created markets (SPEC: Community markets): listed publicly, created and resolved by their creator. */
export class CommunityMarkets1700000000007 implements MigrationInterface {
  name = 'CommunityMarkets1700000000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE community_markets (
        id uuid PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        creator_id uuid NOT NULL REFERENCES users(id),
        question text NOT NULL,
        description text NOT NULL DEFAULT '',
        category text NOT NULL,
        outcomes jsonb NOT NULL,
        end_date timestamptz NOT NULL,
        image_url text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'resolved')),
        resolved_outcome text,
        resolved_at timestamptz,
        featured boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX community_markets_status_created ON community_markets (status, created_at DESC)`);
    await q.query(`CREATE INDEX community_markets_creator ON community_markets (creator_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE community_markets');
  }
}
