import { DataSource } from 'typeorm';
import { Client, types, type ClientConfig, type Pool, type PoolClient, type QueryResult } from 'pg';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { MIGRATIONS } from './migrations';
import { openPglite, type EmbeddedPostgres, type EmbeddedSeed } from './pglite';
import { Announcer } from './announcer';

// int8 (sums, counts, micro-unit money) arrives as bigint, never as a float: JSON.stringify refuses a
// bigint, so one that reaches the wire unconverted fails loudly in tests instead of losing precision.
types.setTypeParser(20, (v: string) => BigInt(v));

export interface Queryable {
  /**
   * Runs one statement. With `name`, it is a named prepared statement: each connection parses and plans it
   * once, for statements on a hot path. A name must always stand for the same text.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], name?: string): Promise<T[]>;
  /**
   * Announces `payload` to the listeners of `channel` (Database.listen), in this process and every other, once the
   * transaction commits, and never if it rolls back; outside a transaction, at once. Sent after the commit, with
   * other commits' (announcer.ts): a listener may hear it a moment late, and never if the process dies first, so
   * a notification is a wake to read the tables, never the only copy of a fact.
   */
  notify(channel: string, payload: string): void;
}

export type DatabaseKind = 'postgres' | 'pglite';

/** A statement as pg takes it: named (prepared once per connection) when it has a name. */
const statement = (text: string, values: unknown[], name?: string) => (name ? { name, text, values } : { text, values });

/**
 * The service's handle on storage: plain SQL on the pg pool TypeORM opened (its DataSource keeps
 * migrations and the connection options). Going to the pool directly returns rows for every
 * statement (TypeORM's query() answers an UPDATE … RETURNING with [rows, count]) and saves a layer
 * on the trade path.
 */
export class Database implements Queryable {
  private readonly announcer: Announcer;

  constructor(
    readonly dataSource: DataSource,
    readonly kind: DatabaseKind,
    private readonly onClose: () => Promise<void> = async () => {},
    /** The embedded database behind a 'pglite' one (its image is the tests' migrated start). */
    readonly embedded?: EmbeddedPostgres,
    /**
     * A replay run's schema on a shared PostgreSQL database (src/db/run-database.ts): its NOTIFY channels and advisory
     * locks are its own, so a run's sync never waits on the live one's lock and its announcements reach only its listeners.
     */
    readonly scope?: string,
    log?: Logger,
  ) {
    if (kind === 'postgres') guardConnections(this.pool);
    this.announcer = new Announcer(
      (sql, params) => this.query(sql, params),
      (err, lost) => log?.warn('notifications were not sent; their listeners catch up later', { lost, error: String(err) }),
    );
  }

  notify(channel: string, payload: string): void {
    this.announcer.announce(channel, payload);
  }

  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], name?: string): Promise<T[]> {
    if (this.kind === 'postgres') return (await this.pool.query(statement(sql, params, name))).rows as T[];
    // PGlite's one connection is kept through a statement's SQL error, as transaction() keeps it: pool.query()
    // discards a client whose statement failed, and a new adapter connection to the same PGlite then read what the
    // failed extended-protocol statement left behind ("Connection terminated unexpectedly", then "unexpected
    // rowDescription"): every later statement of the process failed.
    const client = await this.pool.connect();
    try {
      return (await client.query(statement(sql, params, name))).rows as T[];
    } finally {
      client.release();
    }
  }

  /**
   * Runs `fn` in one READ COMMITTED transaction; with a pool of one (PGlite) only `tx` may be used inside.
   *
   * On PostgreSQL the pool's connections pipeline (pg's `pipeline` option): BEGIN travels with the first
   * statement instead of costing a round trip of its own, and statements `fn` issues without awaiting the
   * previous one (a buy and its hooks) travel together; PostgreSQL still runs them one after the other, in
   * the order they were issued. PGlite's adapter answers one statement at a time, so there the wrapper
   * queues them itself, in the same order.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // The pool listens for errors only on idle clients: a connection that drops while checked out emits
    // 'error' on the client, which with no listener ends the process. Noted here, the client is discarded
    // on release; the statements in flight reject on their own ("Connection terminated unexpectedly").
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    let queue: Promise<unknown> = Promise.resolve();
    const coalesce = coalescedWrites(client);
    const send = (sql: string, params: unknown[] = [], name?: string): Promise<QueryResult> => {
      if (this.kind === 'postgres') {
        coalesce();
        return client.query(statement(sql, params, name));
      }
      const sent = queue.then(() => client.query(statement(sql, params, name)));
      queue = sent.catch(() => {});
      return sent;
    };
    // BEGIN can only fail on a connection that is already unusable, where nothing sent behind it runs
    // either; its outcome is still checked before anything commits.
    const begin = send('BEGIN');
    begin.catch(() => {});
    // Once `fn` has settled, a straggling statement would run after COMMIT or ROLLBACK, on its own: refused.
    let open = true;
    const notifications: Array<[string, string]> = [];
    try {
      const tx: Queryable = {
        query: async (sql, params = [], name) => {
          if (!open) throw new Error('a statement was issued after its transaction had ended');
          return (await send(sql, params, name)).rows;
        },
        notify: (channel, payload) => {
          if (!open) throw new Error('a notification was given after its transaction had ended');
          notifications.push([channel, payload]);
        },
      };
      const out = await fn(tx).finally(() => {
        open = false;
      });
      await begin;
      await send('COMMIT');
      for (const [channel, payload] of notifications) this.announcer.announce(channel, payload);
      return out;
    } catch (err) {
      await send('ROLLBACK').catch((e: Error) => {
        broken = e;
      });
      throw err;
    } finally {
      if (!broken) client.off('error', onError); // a broken client keeps it: it is discarded, late errors and all
      // A connection that dropped or cannot even roll back is discarded (PGlite has only the one: keep it).
      client.release(this.kind === 'postgres' ? broken : undefined);
    }
  }

  /**
   * A connection of its own, outside the pool and with the pool's options, for a session that must last as
   * long as the process (a lease held as an advisory lock). `onLost` hears when it drops; it is then unusable.
   */
  async sessionClient(onLost: (err?: Error) => void): Promise<Client> {
    const client = new Client(this.pool.options as ClientConfig);
    client.on('error', onLost);
    client.on('end', () => onLost());
    await client.connect();
    return client;
  }

  /**
   * Hears every NOTIFY on `channel` once it commits, from this process and every other on the same database.
   * On PostgreSQL a session of its own holds the LISTEN and is reopened (with backoff) when it drops; NOTIFYs sent
   * while it was down are lost, so `onResumed` is called after each reconnect for listeners to catch up from the
   * source of truth. Returns a function that stops listening.
   */
  async listen(channel: string, onPayload: (payload: string) => void, onResumed: () => void = () => {}): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    if (this.embedded) return this.embedded.listen(channel, onPayload);
    channel = scopedChannel(channel, this.scope);
    let stopped = false;
    let client: Client | undefined;
    let pending = false; // one reopen at a time: a drop fires both 'error' and 'end'
    let delay = 100;
    const lost = (c: Client) => {
      if (client === c) client = undefined;
      schedule();
    };
    const schedule = () => {
      if (stopped || pending) return;
      pending = true;
      setTimeout(() => {
        open()
          .then(() => {
            pending = false;
            delay = 100;
            onResumed();
          })
          .catch(() => {
            pending = false;
            delay = Math.min(delay * 2, 5000);
            schedule();
          });
      }, delay).unref();
    };
    const open = async (): Promise<void> => {
      const holder: { c?: Client } = {};
      const c = await this.sessionClient(() => {
        if (holder.c) lost(holder.c);
      });
      holder.c = c;
      c.on('notification', (n) => {
        if (n.channel === channel) onPayload(n.payload ?? '');
      });
      try {
        await c.query(`LISTEN ${channel}`);
      } catch (err) {
        await c.end().catch(() => {});
        throw err;
      }
      if (stopped) await c.end().catch(() => {});
      else client = c;
    };
    try {
      await open();
    } catch (err) {
      stopped = true;
      throw err;
    }
    return async () => {
      stopped = true;
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    };
  }

  async pendingMigrations(): Promise<boolean> {
    return this.dataSource.showMigrations();
  }

  async close(): Promise<void> {
    await this.announcer.drained();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.onClose();
  }
}

/** A channel as a scoped database's NOTIFYs reach it (the run schema's pg_notify appends its scope: run-database.ts). */
export function scopedChannel(channel: string, scope: string | undefined): string {
  return scope ? `${channel}_${scope}` : channel;
}

const guarded = new WeakSet<PoolClient>();
const ignore = () => {};

/**
 * Every connection the pool hands out keeps an 'error' listener for its whole life. Its holders (pg-pool's
 * own query, TypeORM's query runner, Database.transaction) listen only while they hold it, and an error
 * event with no listener ends the process: bench:soak saw the service die of an unhandled 57P01 ("terminating
 * connection due to administrator command") when its connections were terminated under load. The holders
 * still see every failure (their statements reject) and the pool discards the broken connection.
 */
function guardConnections(pool: Pool): void {
  pool.on('acquire', (client) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', ignore);
  });
}

const common = {
  type: 'postgres' as const,
  migrations: MIGRATIONS,
  migrationsTableName: 'typeorm_migrations',
  synchronize: false,
  logging: false as const,
  uuidExtension: 'pgcrypto' as const,
};

export function postgresDataSource(
  config: Pick<Config, 'DATABASE_URL' | 'DB_POOL_SIZE' | 'DB_CONNECT_TIMEOUT_MS' | 'DB_STATEMENT_TIMEOUT_MS' | 'DB_QUERY_TIMEOUT_MS'>,
  url?: string,
  /** A replay run's schema: its tables first on the search path, pg_catalog before public so its own pg_notify wins. */
  schema?: string,
): DataSource {
  // The server cancels a slow statement a little before the client gives up on it, so a statement that is
  // merely slow costs only itself (57014, connection kept); the client-side bound then fires only when the
  // server or the link stalls, and pg destroys that connection (a pipelined one cannot be reused).
  const statementTimeout = Math.max(1, Math.min(config.DB_STATEMENT_TIMEOUT_MS, config.DB_QUERY_TIMEOUT_MS - 250));
  return new DataSource({
    ...common,
    url: url ?? config.DATABASE_URL,
    installExtensions: false,
    ...(schema ? { schema } : {}),
    extra: {
      ...(schema ? { options: `-c search_path=${schema},pg_catalog,public` } : {}),
      max: config.DB_POOL_SIZE,
      connectionTimeoutMillis: config.DB_CONNECT_TIMEOUT_MS,
      query_timeout: config.DB_QUERY_TIMEOUT_MS,
      statement_timeout: statementTimeout,
      idle_in_transaction_session_timeout: config.DB_STATEMENT_TIMEOUT_MS * 2,
      application_name: 'paper-trading',
      // Statements issued together go out together (see Database.transaction); each still gets its own result or error.
      pipeline: true,
    },
  });
}

/** Opens PostgreSQL on DATABASE_URL, else the embedded PGlite in DATA_DIR, and applies migrations. */
export async function openDatabase(config: Config, log: Logger, seed: EmbeddedSeed = {}): Promise<Database> {
  let db: Database;
  if (config.DATABASE_URL) {
    const ds = postgresDataSource(config);
    await ds.initialize();
    db = new Database(ds, 'postgres', undefined, undefined, undefined, log);
  } else {
    db = await openEmbedded(config.DATA_DIR, log, seed);
  }
  await migrate(db, log);
  return db;
}

/** The embedded PGlite in `dataDir` ('memory': in memory) behind pg's adapter, not yet migrated. */
export async function openEmbedded(dataDir: string, log: Logger, seed: EmbeddedSeed = {}): Promise<Database> {
  const embedded = await openPglite(dataDir, log, seed);
  const ds = new DataSource({ ...common, installExtensions: false, extra: { ...embedded.pgConfig, max: 1, idleTimeoutMillis: 0 } });
  await ds.initialize();
  return new Database(ds, 'pglite', embedded.close, embedded, undefined, log);
}

/** Applies the migrations a database lacks. */
export async function migrate(db: Database, log: Logger): Promise<void> {
  const applied = await db.dataSource.runMigrations({ transaction: 'each' });
  if (applied.length) log.info('migrations applied', { migrations: applied.map((m) => m.name), database: db.kind, scope: db.scope });
}

/**
 * Holds a connection's writes until the statements issued in the same tick have all been queued, then sends them in one
 * write. pg writes each statement of a pipeline on its own (a `writev` each); on loopback a write runs much of both
 * sides' TCP stack and wakes the backend, and a profile of the trade bench had 17 % of its samples (idle included) in
 * those calls, for a dozen statements a trade. The socket's cork counter nests, so pg's own cork and uncork around each statement stay inside.
 */
export function coalescedWrites(client: PoolClient): () => void {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  if (!stream?.cork || !stream.uncork) return () => {};
  const { cork, uncork } = { cork: stream.cork.bind(stream), uncork: stream.uncork.bind(stream) };
  let corked = false;
  return () => {
    if (corked) return;
    corked = true;
    cork();
    // At the next tick: what was issued until then (a buy's statements sent together) goes out in one write.
    process.nextTick(() => {
      corked = false;
      uncork();
    });
  };
}

/**
 * Statements sent together on one transaction's connection (pipelined: one round trip) and awaited together: resolves
 * with their answers in order, or throws the first failure once every one has settled, so none outlives the transaction.
 */
export async function together<T extends readonly unknown[]>(...sent: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const done = await Promise.allSettled(sent);
  const failed = done.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return done.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
