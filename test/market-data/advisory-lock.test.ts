import { Client } from 'pg';
import { describeOnPostgres } from '../support/backends';
import { tryAdvisoryLock } from '../../src/market-data/advisory-lock';
import type { Database } from '../../src/db/database';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The market sync's leader lock lives on a connection of its own for the whole sync. When the server ends
 * that connection (pg_terminate_backend, a restart: FATAL 57P01), the process must live on: the lock is
 * gone with the session, its release fails quietly, and the next try takes it again on a new connection.
 */
describeOnPostgres('the advisory lock when its connection is terminated on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  let db: Database;
  const uncaught: Error[] = [];
  const onUncaught = (err: Error) => void uncaught.push(err);
  beforeAll(async () => {
    opened = await backend.open();
    db = opened.db;
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await opened.drop();
  });

  const terminateOthers = async () => {
    const admin = new Client({ connectionString: opened.url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    } finally {
      await admin.end();
    }
  };

  test('when the server terminates the lock holder’s connection, then nothing is thrown at the process, release settles, and the lock can be taken again', async () => {
    const key = 424242n;
    const held = await tryAdvisoryLock(db, key);
    expect(held).not.toBeNull();
    await terminateOthers();
    await sleep(200); // the FATAL notice and the socket's end arrive as 'error' events on the held connection
    await held!.release().catch(() => {}); // the session (and its lock) is gone: releasing cannot succeed
    await sleep(100);
    expect(uncaught).toEqual([]);
    const again = await tryAdvisoryLock(db, key);
    expect(again).not.toBeNull();
    await again!.release();
    expect(uncaught).toEqual([]);
  });

  test('when the connection is terminated while the lock holder waits on a statement, then the statement fails and the process lives on', async () => {
    const key = 434343n;
    const held = await tryAdvisoryLock(db, key);
    expect(held).not.toBeNull();
    const releasing = held!.release(); // its unlock statement is in flight when the connection ends
    await terminateOthers();
    await releasing.catch(() => {});
    await sleep(200);
    expect(uncaught).toEqual([]);
    const again = await tryAdvisoryLock(db, key);
    expect(again).not.toBeNull();
    await again!.release();
  });
});
