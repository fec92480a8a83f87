import 'reflect-metadata';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { openDatabase } from '../src/db/database';

/**
 * `node dist/scripts/migrate.js`: applies pending migrations to the configured database and exits. Replicas
 * that start together on a new database would otherwise all migrate at once; docker-compose.yml runs this
 * first and starts the replicas after it (npm run cluster starts its first process alone for the same reason).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config, createLogger(config.LOG_LEVEL));
  await db.close();
}

main().catch((err) => {
  process.stderr.write(`migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
