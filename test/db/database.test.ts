import { backends, describeOnPostgres } from '../support/backends';
import { openDatabase, type Database, type Queryable } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { turnCountingProxy } from '../support/turn-counting-proxy';

describeOnPostgres('Database.transaction round trips on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  let proxy: Awaited<ReturnType<typeof turnCountingProxy>>;
  let viaProxy: Database;
  beforeAll(async () => {
    opened = await backend.open();
    proxy = await turnCountingProxy(new URL(opened.url!), 5);
    viaProxy = await openDatabase(testConfig({ DATABASE_URL: proxy.url, DB_POOL_SIZE: 1 }), createLogger('silent'));
  });
  afterAll(async () => {
    await viaProxy.close();
    await proxy.close();
    await opened.drop();
  });

  test('when statements are issued without awaiting each other, then BEGIN and they travel in one turn and COMMIT in a second', async () => {
    await viaProxy.query('SELECT 1'); // the pool's one connection is open and idle
    const before = proxy.turns();
    const out = await viaProxy.transaction(async (tx) => {
      const a = tx.query<{ n: number }>('SELECT 1 AS n');
      const b = tx.query<{ n: number }>('SELECT 2 AS n');
      return [(await a)[0]!.n, (await b)[0]!.n];
    });
    expect(out).toEqual([1, 2]);
    // Without pipelining: BEGIN, SELECT 1, SELECT 2 and COMMIT are four turns.
    expect(proxy.turns() - before).toBe(2);
  });

  test('when statements are awaited one by one, then BEGIN still travels with the first', async () => {
    await viaProxy.query('SELECT 1');
    const before = proxy.turns();
    await viaProxy.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await tx.query('SELECT 2');
    });
    expect(proxy.turns() - before).toBe(3);
  });
});

describe.each(backends())('Database.transaction on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  let db: Database;
  beforeAll(async () => {
    opened = await backend.open();
    db = opened.db;
    await db.query('CREATE TABLE probe (n integer PRIMARY KEY)');
  });
  afterAll(async () => opened.drop());
  beforeEach(async () => {
    await db.query('DELETE FROM probe');
  });
  const count = async () => Number((await db.query<{ c: bigint }>('SELECT count(*) AS c FROM probe'))[0]!.c);

  test('when a statement is issued before the previous one answered, then it runs after it and sees its writes', async () => {
    const seen = await db.transaction(async (tx) => {
      const insert = tx.query('INSERT INTO probe VALUES (1), (2)');
      const read = tx.query<{ c: bigint }>('SELECT count(*) AS c FROM probe');
      await insert;
      return Number((await read)[0]!.c);
    });
    expect(seen).toBe(2);
    expect(await count()).toBe(2);
  });

  test('when one of the statements issued together fails, then none of them commits', async () => {
    await expect(
      db.transaction(async (tx) => {
        const sent = [tx.query('INSERT INTO probe VALUES (1)'), tx.query('INSERT INTO probe VALUES (1)'), tx.query('INSERT INTO probe VALUES (2)')];
        const settled = await Promise.allSettled(sent);
        const failed = settled.find((s) => s.status === 'rejected');
        if (failed) throw (failed as PromiseRejectedResult).reason;
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await count()).toBe(0);
    // The connection is usable afterwards.
    await db.transaction((tx) => tx.query('INSERT INTO probe VALUES (3)'));
    expect(await count()).toBe(1);
  });

  test('when a statement is issued after its transaction has ended, then it is refused and runs nowhere', async () => {
    let kept: Queryable | undefined;
    await db.transaction(async (tx) => {
      kept = tx;
      await tx.query('INSERT INTO probe VALUES (1)');
    });
    await expect(kept!.query('INSERT INTO probe VALUES (2)')).rejects.toThrow(/after its transaction had ended/);
    await expect(
      db.transaction(async (tx) => {
        kept = tx;
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await expect(kept!.query('INSERT INTO probe VALUES (3)')).rejects.toThrow(/after its transaction had ended/);
    expect((await db.query<{ n: number }>('SELECT n FROM probe')).map((r) => r.n)).toEqual([1]);
  });
});
