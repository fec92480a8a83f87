import { Client } from 'pg';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { Database, migrate, openEmbedded, postgresDataSource } from './database';

/**
 * A replay run's own database (issue 35 item 2): every table of the service, empty, for one run's books and mirror.
 * On PostgreSQL a schema per run on the same server (`replay_<id>`, a small pool whose search_path puts it first); on
 * PGlite an in-memory instance per run. Isolation is by construction: the run's services hold only this handle.
 */
export interface RunDatabases {
  open(runId: string): Promise<Database>;
  /** Closes the run's database and removes its data (drops the schema; an in-memory instance just goes). */
  drop(runId: string, db: Database | undefined): Promise<void>;
}

const RUN_ID = /^[0-9a-f]{12}$/;

export function runSchema(runId: string): string {
  if (!RUN_ID.test(runId)) throw new Error(`not a run id: ${runId}`);
  return `replay_${runId}`;
}

export function runDatabases(config: Config, log: Logger, opts: { image?: () => Promise<Blob> } = {}): RunDatabases {
  if (config.DATABASE_URL) return postgresRuns(config, log);
  // A migrated, empty image, made once per process (PGlite's initdb and the migrations cost seconds; loading one, under one).
  let image: Promise<Blob> | undefined;
  const imageOf = () => (image ??= opts.image?.() ?? freshImage(log));
  return {
    async open() {
      const db = await openEmbedded('memory', log, { image: await imageOf() });
      await migrate(db, log);
      return db;
    },
    async drop(_runId, db) {
      await db?.close();
    },
  };
}

async function freshImage(log: Logger): Promise<Blob> {
  const db = await openEmbedded('memory', log);
  try {
    await migrate(db, log);
    return await db.embedded!.dump();
  } finally {
    await db.close();
  }
}

function postgresRuns(config: Config, log: Logger): RunDatabases {
  const admin = async <T>(fn: (c: Client) => Promise<T>): Promise<T> => {
    const c = new Client({ connectionString: config.DATABASE_URL });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    async open(runId) {
      const schema = runSchema(runId);
      await admin(async (c) => {
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        // The run's NOTIFYs go out on channels of its own (Database.listen appends the same suffix), so a run's prices and
        // events never reach the live listeners: this pg_notify is found before pg_catalog's on the run's search_path.
        await c.query(
          `CREATE OR REPLACE FUNCTION ${schema}.pg_notify(channel text, payload text) RETURNS void LANGUAGE sql AS
           $$ SELECT pg_catalog.pg_notify(channel || '_${schema}', payload) $$`,
        );
      });
      const ds = postgresDataSource({ ...config, DB_POOL_SIZE: 3 }, undefined, schema);
      await ds.initialize();
      const db = new Database(ds, 'postgres', async () => {}, undefined, schema, log);
      try {
        await migrate(db, log);
      } catch (err) {
        await db.close();
        throw err;
      }
      return db;
    },
    async drop(runId, db) {
      await db?.close();
      await admin((c) => c.query(`DROP SCHEMA IF EXISTS ${runSchema(runId)} CASCADE`));
    },
  };
}
