import { Announcer } from '../../src/db/announcer';
import type { Database } from '../../src/db/database';
import { backends } from '../support/backends';

/** A send whose statements wait until released, noting what each carried. */
class HeldStatements {
  readonly sent: Array<{ channels: string[]; payloads: string[] }> = [];
  private release: Array<(err?: Error) => void> = [];
  send = (_sql: string, params: unknown[]): Promise<unknown> => {
    this.sent.push({ channels: params[0] as string[], payloads: params[1] as string[] });
    return new Promise((resolve, reject) => this.release.push((err) => (err ? reject(err) : resolve(undefined))));
  };
  /** Settles the oldest statement still waiting (with `err`: as failed), then lets the announcer go on. */
  async settle(err?: Error): Promise<void> {
    this.release.shift()!(err);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Announcer', () => {
  test('when announcements come while a statement is under way, then the next statement carries all of them, in order', async () => {
    const held = new HeldStatements();
    const announcer = new Announcer(held.send, () => {});
    announcer.announce('a', '1');
    announcer.announce('b', '2');
    await tick();
    expect(held.sent).toEqual([{ channels: ['a', 'b'], payloads: ['1', '2'] }]);
    announcer.announce('a', '3');
    announcer.announce('a', '4');
    announcer.announce('c', '5');
    await tick();
    expect(held.sent).toHaveLength(1); // one statement at a time
    await held.settle();
    expect(held.sent[1]).toEqual({ channels: ['a', 'a', 'c'], payloads: ['3', '4', '5'] });
    const drained = announcer.drained();
    await held.settle();
    await drained;
    expect(held.sent).toHaveLength(2);
  });

  test('when a statement fails, then its notifications are reported lost and the next ones still go', async () => {
    const held = new HeldStatements();
    const failures: Array<{ err: unknown; lost: number }> = [];
    const announcer = new Announcer(held.send, (err, lost) => failures.push({ err, lost }));
    announcer.announce('a', '1');
    announcer.announce('a', '2');
    await tick();
    announcer.announce('a', '3');
    await held.settle(new Error('connection lost'));
    expect(failures).toEqual([{ err: new Error('connection lost'), lost: 2 }]);
    expect(held.sent[1]).toEqual({ channels: ['a'], payloads: ['3'] });
    await held.settle();
    await announcer.drained();
    expect(failures).toHaveLength(1);
  });

  test('when more than a statement holds are waiting, then they go in statements of at most 1,000', async () => {
    const sizes: number[] = [];
    const announcer = new Announcer(
      async (_sql, params) => void sizes.push((params[0] as string[]).length),
      () => {},
    );
    for (let i = 0; i < 2500; i++) announcer.announce('a', String(i));
    await announcer.drained();
    expect(sizes).toEqual([1000, 1000, 500]);
  });
});

describe.each(backends())('Queryable.notify on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  let db: Database;
  const heard: string[] = [];
  let stop: () => Promise<void>;
  beforeAll(async () => {
    opened = await backend.open();
    db = opened.db;
    stop = await db.listen('announcer_probe', (p) => heard.push(p));
  });
  afterAll(async () => {
    await stop();
    await opened.drop();
  });
  const heardSoon = async (payload: string) => {
    for (const deadline = Date.now() + 5000; !heard.includes(payload) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
    return heard.includes(payload);
  };

  test('when a transaction that notified commits, then its notifications are heard, in the order given', async () => {
    await db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      tx.notify('announcer_probe', 'committed-1');
      tx.notify('announcer_probe', 'committed-2');
    });
    expect(await heardSoon('committed-2')).toBe(true);
    expect(heard.indexOf('committed-1')).toBeLessThan(heard.indexOf('committed-2'));
  });

  test('when a transaction that notified rolls back, then its notification is never heard', async () => {
    await expect(
      db.transaction(async (tx) => {
        tx.notify('announcer_probe', 'rolled-back');
        await tx.query('SELECT 1/0');
      }),
    ).rejects.toThrow();
    // A later notification is heard after anything sent before it: the rolled-back one would have been heard by then.
    db.notify('announcer_probe', 'marker');
    expect(await heardSoon('marker')).toBe(true);
    expect(heard).not.toContain('rolled-back');
  });

  test('when a transaction is open, then its notification is not heard before it commits', async () => {
    await db.transaction(async (tx) => {
      tx.notify('announcer_probe', 'held');
      await tx.query('SELECT 1');
      await new Promise((r) => setTimeout(r, 300));
      expect(heard).not.toContain('held');
    });
    expect(await heardSoon('held')).toBe(true);
  });

  test('when a notification is given after its transaction has ended, then it is refused', async () => {
    let late: { notify(c: string, p: string): void } | undefined;
    await db.transaction(async (tx) => void (late = tx));
    expect(() => late!.notify('announcer_probe', 'late')).toThrow(/after its transaction had ended/);
  });
});
