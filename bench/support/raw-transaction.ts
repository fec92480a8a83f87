import type { Pool, PoolClient } from 'pg';
import { Announcer } from '../../src/db/announcer';
import { coalescedWrites, type Queryable } from '../../src/db/database';

const announcers = new WeakMap<Pool, Announcer>();

/** One announcer per bench pool, as the service keeps one per process (Database): notifications of many commits share a statement. */
export function poolAnnouncer(pool: Pool): Announcer {
  let a = announcers.get(pool);
  if (!a) {
    a = new Announcer(
      (sql, params) => pool.query(sql, params),
      (err) => console.error(`a raw transaction's notifications failed: ${String(err)}`),
    );
    announcers.set(pool, a);
  }
  return a;
}

/**
 * One transaction straight through `pg`, written as the service's transactions are (Database.transaction): BEGIN
 * goes out with the first statements, what is issued in one tick goes out in one write, and the notifications are
 * announced after COMMIT by `announcer` (poolAnnouncer). The client must be pipelined (benchPool). A failure rolls
 * back and is thrown.
 */
export async function rawTransaction<T>(client: PoolClient, announcer: Announcer, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const coalesce = coalescedWrites(client);
  const send = (text: string, values?: unknown[], name?: string) => {
    coalesce();
    return client.query({ name, text, values });
  };
  const notifications: Array<[string, string]> = [];
  const tx: Queryable = {
    query: async (sql, params, name) => (await send(sql, params, name)).rows as never[],
    notify: (channel, payload) => void notifications.push([channel, payload]),
  };
  const begun = send('BEGIN');
  try {
    const [, out] = await Promise.all([begun, fn(tx)]);
    await send('COMMIT');
    for (const [channel, payload] of notifications) announcer.announce(channel, payload);
    return out;
  } catch (err) {
    await send('ROLLBACK');
    throw err;
  }
}
