import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { openPglite, PGLITE_SETTINGS } from '../../src/db/pglite';
import { openDatabase } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { migratedImage } from '../support/pglite-image';

/** The embedded database's Postgres settings are what keeps its idle memory down (bench/README.md). */
describe('the embedded database settings', () => {
  const silent = createLogger('silent');

  test('when the service opens an in-memory embedded database, then it runs with the chosen shared_buffers', async () => {
    const db = await openDatabase(testConfig({ DATA_DIR: 'memory' }), silent, { image: await migratedImage() });
    try {
      expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await db.close();
    }
  });

  test('when an embedded database is opened on a data directory, then every chosen setting is in force', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-settings-'));
    const embedded = await openPglite(path.join(dir, 'data'), silent, { templateDir: path.join(dir, 'missing') });
    const client = new Client(embedded.pgConfig);
    try {
      await client.connect();
      for (const [name, value] of Object.entries(PGLITE_SETTINGS)) {
        const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
        expect(rows).toEqual([{ [name]: value }]);
      }
      // A cache size, not durability: what is committed survives a reopen.
      await client.query('CREATE TABLE kept (n int)');
      await client.query('INSERT INTO kept VALUES (42)');
    } finally {
      await client.end();
      await embedded.close();
    }
    const reopened = await openPglite(path.join(dir, 'data'), silent, { templateDir: path.join(dir, 'missing') });
    const again = new Client(reopened.pgConfig);
    try {
      await again.connect();
      expect((await again.query('SELECT n FROM kept')).rows).toEqual([{ n: 42 }]);
    } finally {
      await again.end();
      await reopened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the embedded database after a statement fails', () => {
  test('when a statement with parameters fails outside a transaction, then the next statements still run', async () => {
    const db = await openDatabase(testConfig({ DATA_DIR: 'memory' }), createLogger('silent'), { image: await migratedImage() });
    try {
      await db.query('CREATE TABLE probe (a int PRIMARY KEY, b uuid)');
      await db.query('INSERT INTO probe VALUES ($1, NULL)', [1]);
      // A duplicate key and a bad uuid, each sent with parameters (the extended protocol) and outside a transaction.
      await expect(db.query('INSERT INTO probe VALUES ($1, NULL)', [1])).rejects.toMatchObject({ code: '23505' });
      await expect(db.query('SELECT 1 FROM probe WHERE b = $1::uuid', ['not-a-uuid'])).rejects.toMatchObject({ code: '22P02' });
      // Before, the first of these read "Connection terminated unexpectedly" and the next "unexpected rowDescription".
      for (let i = 0; i < 3; i++) expect(await db.query('SELECT count(*)::int AS n FROM probe WHERE a = $1', [1])).toEqual([{ n: 1 }]);
      expect(await db.transaction(async (tx) => tx.query('SELECT count(*)::int AS n FROM probe'))).toEqual([{ n: 1 }]);
    } finally {
      await db.close();
    }
  });
});
