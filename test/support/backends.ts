import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { openDatabase, type Database } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { migratedImage } from './pglite-image';
import { migratedTemplate } from '../../bench/support/postgres-template';

export interface Backend {
  name: 'pglite' | 'postgres';
  /** A fresh, migrated, empty database of this kind; drop() closes and removes it. */
  open(): Promise<{ db: Database; url?: string; drop(): Promise<void> }>;
}

const silent = createLogger('silent');

const pglite: Backend = {
  name: 'pglite',
  async open() {
    const db = await openDatabase(testConfig({ DATA_DIR: 'memory' }), silent, { image: await migratedImage() });
    return { db, drop: () => db.close() };
  },
};

/** A throwaway database on TEST_DATABASE_URL's server, so test files never see each other's rows; a copy of a migrated one. */
const postgres = (adminUrl: string): Backend => ({
  name: 'postgres',
  async open() {
    const name = `t_${randomBytes(6).toString('hex')}`;
    const template = await migratedTemplate(adminUrl);
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const db = await openDatabase(testConfig({ DATABASE_URL: url.toString(), DB_POOL_SIZE: 20 }), silent);
    return {
      db,
      url: url.toString(),
      async drop() {
        await db.close();
        const c = new Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  },
});

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export function backends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [pglite, postgres(url)] : [pglite];
}

/**
 * One backend, PostgreSQL where set (PGlite otherwise): for a file whose outcome the database cannot change (an answer's
 * size, the replay engine's determinism, a limiter that counts in memory), where a second run on PGlite would only
 * double its time in CI. Each caller says why in a comment.
 */
export function oneBackend(): Backend[] {
  return backends().slice(-1);
}

/** Only PostgreSQL: concurrency tests prove nothing on PGlite's single connection. */
export function postgresOnly(): Backend[] {
  return backends().filter((b) => b.name === 'postgres');
}

export const POSTGRES_SKIP_REASON = 'TEST_DATABASE_URL is not set';
export const REDIS_SKIP_REASON = 'TEST_REDIS_URL is not set';

type SuiteBody = (backend: Backend) => void;

/**
 * `describe.each` over the PostgreSQL backend, or one skipped suite whose title carries the reason when
 * TEST_DATABASE_URL is unset (jest refuses `.each` over an empty table, which fails the whole file).
 * scripts/run-tests.js prints the skipped suites' reasons after the run.
 */
export function describeOnPostgres(title: string, body: SuiteBody): void {
  describeOn(postgresOnly(), POSTGRES_SKIP_REASON, title, body);
}

/** `describe.each(backends())` that runs only when TEST_REDIS_URL is set; otherwise skipped with the reason. */
export function describeWithRedis(title: string, body: SuiteBody): void {
  if (process.env.TEST_REDIS_URL) describe.each(backends())(title, body);
  else skipped(REDIS_SKIP_REASON, title, body);
}

/** PostgreSQL and Redis both: fault tests that cut Redis under load on the real database. */
export function describeOnPostgresWithRedis(title: string, body: SuiteBody): void {
  if (!process.env.TEST_REDIS_URL) skipped(REDIS_SKIP_REASON, title, body);
  else describeOnPostgres(title, body);
}

function describeOn(list: Backend[], reason: string, title: string, body: SuiteBody): void {
  if (list.length) describe.each(list)(title, body);
  else skipped(reason, title, body);
}

function skipped(reason: string, title: string, body: SuiteBody): void {
  describe.skip(`${title.replace('$name', 'postgres')} (skipped: ${reason})`, () => body(undefined as never));
}
