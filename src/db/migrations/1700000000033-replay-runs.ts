import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replay runs (issue 35 item 2): a scenario of the simulated venue on its own clock, owned by a live account. The run's
 * books live in a database of their own (a schema per run on PostgreSQL, an in-memory instance on PGlite:
 * src/db/run-database.ts), so this table holds only what finds and drives a run: its key (hashed), its clock and, once
 * ended, its frozen benchmark record.
 */
export class ReplayRuns1700000000033 implements MigrationInterface {
  name = 'ReplayRuns1700000000033';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE replay_runs (
        id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{12}$'),
        owner_id uuid NOT NULL REFERENCES users(id),
        key_hash text NOT NULL UNIQUE,
        scenario jsonb NOT NULL,
        mode text NOT NULL CHECK (mode IN ('step', 'speed')),
        speed double precision CHECK ((mode = 'speed') = (speed IS NOT NULL AND speed > 0)),
        start_at timestamptz NOT NULL,
        end_at timestamptz NOT NULL CHECK (end_at > start_at),
        sim_now timestamptz NOT NULL,
        wall_started_at timestamptz NOT NULL,
        account_id uuid NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'ended')),
        record jsonb,
        created_at timestamptz NOT NULL,
        ended_at timestamptz
      )`);
    await q.query('CREATE INDEX replay_runs_owner_idx ON replay_runs (owner_id, created_at DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE replay_runs');
  }
}
