import { backends } from '../support/backends';
import { CommitWatermark } from '../../src/db/commit-watermark';
import type { Database } from '../../src/db/database';

describe.each(backends())('CommitWatermark on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  let db: Database;
  let watermark: CommitWatermark;
  beforeAll(async () => {
    opened = await backend.open();
    db = opened.db;
    watermark = new CommitWatermark(db);
    await db.query('CREATE TABLE probe (n integer PRIMARY KEY)');
  });
  afterAll(async () => opened.drop());
  const mark = async () => (await watermark.read()).mark;

  test('when nothing is written between two readings, then they are equal, reads and read-only transactions included', async () => {
    // The mark is the whole server's: other test files writing to their own databases on the same server move it
    // too. Reads alone must leave it where it was in at least one of a few tries (with them moving it, none would).
    const tries: boolean[] = [];
    for (let i = 0; i < 20 && !tries.includes(true); i++) {
      const before = await mark();
      await db.query('SELECT count(*) FROM probe');
      await db.transaction(async (tx) => tx.query('SELECT count(*) FROM probe'));
      tries.push((await mark()) === before);
    }
    expect(tries).toContain(true);
  });

  test('when a write commits between two readings, then they differ', async () => {
    const before = await mark();
    await db.query('INSERT INTO probe VALUES (1)');
    const after = await mark();
    expect(after).not.toBe(before);
    await db.transaction(async (tx) => tx.query('UPDATE probe SET n = 2'));
    expect(await mark()).not.toBe(after);
  });

  test('when readings are asked for together, then they share one statement', async () => {
    let statements = 0;
    const counted = new CommitWatermark({
      query: async <T>(sql: string, params?: unknown[], name?: string) => {
        statements += 1;
        return db.query<T>(sql, params, name);
      },
      notify: (channel, payload) => db.notify(channel, payload),
    });
    const [a, b] = await Promise.all([counted.read(), counted.read()]);
    expect(a).toBe(b);
    expect(statements).toBe(1);
    await counted.read();
    expect(statements).toBe(2);
  });

  // PGlite runs transactions one at a time, so only PostgreSQL can hold one open while another commits.
  (backend.name === 'postgres' ? test : test.skip)(
    'when a transaction that wrote before a reading commits after it, then the next reading differs',
    async () => {
      const watermark = new CommitWatermark(db);
      let finish!: () => void;
      const held = new Promise<void>((r) => (finish = r));
      let wrote!: () => void;
      const written = new Promise<void>((r) => (wrote = r));
      // An older writer still running while a newer one commits: the older one's commit must still show.
      const older = db.transaction(async (tx) => {
        await tx.query('INSERT INTO probe VALUES (10)');
        wrote();
        await held;
      });
      await written;
      await db.query('INSERT INTO probe VALUES (11)');
      // Readings settle while the older writer is still open (a few tries: other databases on the server move the mark too).
      let before = (await watermark.read()).mark;
      let settled = false;
      for (let i = 0; i < 20 && !settled; i++) {
        const again = (await watermark.read()).mark;
        settled = again === before;
        before = again;
      }
      expect(settled).toBe(true);
      finish();
      await older;
      expect((await watermark.read()).mark).not.toBe(before);
    },
  );
});
