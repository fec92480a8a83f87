import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every completed suite run's result, kept apart from the run (issue 49 item 3): the suite board counts every ended run
 * of an agent, and delete_replay removes a run with its data but not its place in the agent's suite record, so deleting
 * an unlucky run cannot bring back a luckier one. A run's end writes its row in the same statement that freezes it
 * (replay-store.ts). Existing ended suite runs are copied in.
 */
export class SuiteResults1700000000052 implements MigrationInterface {
  name = 'SuiteResults1700000000052';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE suite_results (
        run_id text PRIMARY KEY,
        owner_id uuid NOT NULL REFERENCES users(id),
        suite text NOT NULL,
        scenario text NOT NULL,
        alpha double precision,
        ended_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX suite_results_suite ON suite_results (suite, owner_id)`);
    await q.query(`
      INSERT INTO suite_results (run_id, owner_id, suite, scenario, alpha, ended_at)
      SELECT id, owner_id, scenario->>'suite', scenario->>'name', (record #>> '{forecasts,alpha,value}')::double precision, ended_at
      FROM replay_runs WHERE state = 'ended' AND scenario->>'suite' IS NOT NULL AND ended_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE suite_results`);
  }
}
