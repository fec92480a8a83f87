import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scoring v1 (docs/scoring.md, issue 52 item 4): every stored benchmark record is queued to be scored again, so each
 * gains its scoringVersion and life scores (peer, baseline, horizons) on the folder's next runs. Until then the service
 * shows a stored record's missing parts empty, under scoringVersion 'v0'.
 */
export class ScoringV11700000000072 implements MigrationInterface {
  name = 'ScoringV11700000000072';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO benchmark_dirty (user_id, season) SELECT user_id, season FROM benchmark_records ON CONFLICT DO NOTHING`);
  }

  async down(): Promise<void> {
    // Nothing to undo: a queued record is scored again under the rules then in force.
  }
}
