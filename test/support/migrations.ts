import type { DataSource, MigrationInterface } from 'typeorm';
import { MIGRATIONS } from '../../src/db/migrations';

/**
 * Runs `inside` with `migration` and every one after it undone, last to first (the schema as it was before it), then
 * runs them again and checks that exactly those ran: a migration's down and up, on a database the service has used.
 */
export async function withMigrationsUndone(ds: DataSource, migration: new () => MigrationInterface, inside: () => Promise<void>): Promise<void> {
  const all: ReadonlyArray<new () => MigrationInterface> = MIGRATIONS;
  const from = all.slice(all.indexOf(migration)).map((M) => new M().name);
  for (let i = 0; i < from.length; i += 1) await ds.undoLastMigration({ transaction: 'each' });
  try {
    await inside();
  } finally {
    expect((await ds.runMigrations({ transaction: 'each' })).map((x) => x.name)).toEqual(from);
  }
}
