import type { Pool, PoolClient } from 'pg';
import { describeOnPostgres } from '../support/backends';

/**
 * Found by bench:soak: with its connections terminated under load the service once died of "Unhandled 'error'
 * event … terminating connection due to administrator command" (57P01), an error event on a connection that
 * nobody was listening on at that moment. Every connection the pool hands out keeps a listener of its own.
 */
describeOnPostgres('errors on pooled connections on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  beforeAll(async () => {
    opened = await backend.open();
  });
  afterAll(async () => opened.drop());

  const pool = () => (opened.db.dataSource.driver as unknown as { master: Pool }).master;

  test('when a connection is checked out, then an error event on it has a listener even before its holder adds one', async () => {
    const client: PoolClient = await pool().connect();
    try {
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      const lost = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      expect(() => client.emit('error', lost)).not.toThrow();
    } finally {
      client.release(new Error('discard'));
    }
  });

  test('when a query runner releases its connection after an error, then a later error on it does not escape', async () => {
    const runner = opened.db.dataSource.createQueryRunner();
    const connection = (await runner.connect()) as PoolClient;
    const lost = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    connection.emit('error', lost);
    expect(() => connection.emit('error', lost)).not.toThrow();
    // and the pool goes on with new connections
    expect(await opened.db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
