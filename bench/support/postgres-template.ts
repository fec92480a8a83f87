import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { openDatabase } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { migrationsDigest } from './migrations-digest';

/**
 * A migrated, empty database on a PostgreSQL server (TEST_DATABASE_URL's, a bench's) that every test or bench database
 * there is copied from (CREATE DATABASE … TEMPLATE): a copy took 0.3 to 0.5 s where a fresh database and every
 * migration took 3 to 4 s on this loaded two-core machine, and CI opens hundreds. Named for the migrations, so a changed one makes a new template; made
 * once per server by whichever worker needs it first, under a name of its own and then renamed into place, so no one
 * copies a half-migrated one (the loser of a race drops its own). Nothing ever connects to it once it is in place,
 * which a copy requires.
 */
const templates = new Map<string, Promise<string>>();

export function migratedTemplate(adminUrl: string): Promise<string> {
  let template = templates.get(adminUrl);
  if (!template) {
    template = ensureTemplate(adminUrl);
    templates.set(adminUrl, template);
    template.catch(() => templates.delete(adminUrl));
  }
  return template;
}

async function ensureTemplate(adminUrl: string): Promise<string> {
  const name = `t_template_${migrationsDigest()}`;
  const found = await withAdmin(adminUrl, (c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]));
  if (found.rowCount === 1) return name;
  const building = `${name}_${randomBytes(4).toString('hex')}`;
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${building}`));
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const db = await openDatabase(testConfig({ DATABASE_URL: url.toString(), DB_POOL_SIZE: 1 }), createLogger('silent'));
    await db.close();
    await withAdmin(adminUrl, (c) => c.query(`ALTER DATABASE ${building} RENAME TO ${name}`));
    return name;
  } catch (err) {
    await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`));
    // duplicate_database: another worker's template went into place first.
    if ((err as { code?: string }).code === '42P04') return name;
    throw err;
  }
}

async function withAdmin<T>(adminUrl: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
