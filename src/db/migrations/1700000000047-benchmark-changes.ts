import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter that moves whenever something the benchmark's reads show commits (issue 33): the records, and the name,
 * kind and deletion of an account. The benchmark's caches renew against it instead of the whole database's commit
 * horizon, which every trade and every API key's bookkeeping moves, so between folds a cached board, record or rank is
 * confirmed by one read of one row and never read again. Triggers move it, so no writer can forget to: a statement
 * on benchmark_records (the folder's upserts, a replay's frozen record) once per statement, an account's change only
 * when a shown column's value changes (a trade's update of the balance names none of them and costs nothing).
 */
export class BenchmarkChanges1700000000047 implements MigrationInterface {
  name = 'BenchmarkChanges1700000000047';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE benchmark_changes (one boolean PRIMARY KEY DEFAULT true CHECK (one), version bigint NOT NULL)`);
    await q.query(`INSERT INTO benchmark_changes (version) VALUES (0)`);
    await q.query(`
      CREATE FUNCTION benchmark_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE benchmark_changes SET version = version + 1;
        RETURN NULL;
      END $fn$`);
    await q.query(`
      CREATE TRIGGER benchmark_records_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON benchmark_records
      FOR EACH STATEMENT EXECUTE FUNCTION benchmark_changed()`);
    await q.query(`
      CREATE TRIGGER benchmark_account_changed AFTER UPDATE OF display_name, is_agent, reference, deleted_at ON users
      FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name OR OLD.is_agent IS DISTINCT FROM NEW.is_agent
        OR OLD.reference IS DISTINCT FROM NEW.reference OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
      EXECUTE FUNCTION benchmark_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER benchmark_account_changed ON users');
    await q.query('DROP TRIGGER benchmark_records_changed ON benchmark_records');
    await q.query('DROP FUNCTION benchmark_changed()');
    await q.query('DROP TABLE benchmark_changes');
  }
}
