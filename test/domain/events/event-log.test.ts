import { backends, describeOnPostgres } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { appendBalanceEvent, appendEvent } from '../../../src/domain/events/account-events';

/**
 * Collects wakes until `n` have arrived (or fails after `ms`). The wake of seq 1 (the registration's balance event,
 * committed before the test subscribed) may still be on its way when a test subscribes: it is left out.
 */
function wakes(subscribe: (wake: (userId: string, seq: bigint | null) => void) => () => void) {
  const seen: Array<[string, bigint | null]> = [];
  let waiter: (() => void) | undefined;
  const stop = subscribe((u, s) => {
    if (s === 1n) return;
    seen.push([u, s]);
    waiter?.();
  });
  return {
    seen,
    stop,
    async until(pred: () => boolean, ms = 5000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > deadline) throw new Error(`timed out; saw ${JSON.stringify(seen.map(([u, s]) => [u, String(s)]))}`);
        await new Promise<void>((r) => {
          waiter = r;
          setTimeout(r, 50);
        });
      }
    },
  };
}

describe.each(backends())('account event log on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
  });
  afterAll(() => t.close());

  test('when events are appended, then each account counts its own seq from 1 and reads them back in order', async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    // Registration wrote seq 1 of each account: the balance of its grant.
    expect((await t.services.events.after(a.id, 0n, 10)).map((e) => [e.seq, e.type])).toEqual([[1, 'balance']]);
    const at = new Date('2026-11-25T10:00:00Z');
    const seqs = await t.services.db.transaction(async (tx) => [
      await appendEvent(tx, a.id, 'trade', { n: 1 }, at),
      await appendEvent(tx, b.id, 'trade', { n: 2 }, at),
      await appendEvent(tx, a.id, 'notification', { n: 3 }, at),
      await appendBalanceEvent(tx, a.id, at),
    ]);
    expect(seqs).toEqual([2n, 2n, 3n, 4n]);
    const events = await t.services.events.after(a.id, 1n, 10);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [2, 'trade'],
      [3, 'notification'],
      [4, 'balance'],
    ]);
    expect(events[2]!.data).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    expect(events[0]!.createdAt).toBe(at.toISOString());
    expect((await t.services.events.after(a.id, 2n, 1)).map((e) => e.seq)).toEqual([3]);
    expect(await t.services.events.latest(a.id)).toBe(4n);
    expect(await t.services.events.latest(b.id)).toBe(2n);
  });

  test('when the transaction rolls back, then its events and their seqs are gone and no wake is heard', async () => {
    const a = await registerAgent(t);
    const w = wakes((wake) => t.services.eventFeed.subscribe(a.id, wake));
    await expect(
      t.services.db.transaction(async (tx) => {
        await appendEvent(tx, a.id, 'trade', {}, new Date());
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await t.services.db.transaction((tx) => appendEvent(tx, a.id, 'notification', {}, new Date()));
    await w.until(() => w.seen.length >= 1);
    expect(w.seen).toEqual([[a.id, 2n]]);
    expect((await t.services.events.after(a.id, 1n, 10)).map((e) => [e.seq, e.type])).toEqual([[2, 'notification']]);
    w.stop();
  });

  test("when an account's event commits, then its subscribers and the all-accounts subscribers wake, and others do not", async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const wa = wakes((wake) => t.services.eventFeed.subscribe(a.id, wake));
    const wb = wakes((wake) => t.services.eventFeed.subscribe(b.id, wake));
    const all = wakes((wake) => t.services.eventFeed.subscribeAll(wake));
    await t.services.db.transaction(async (tx) => {
      await appendEvent(tx, a.id, 'trade', {}, new Date());
      await appendEvent(tx, a.id, 'balance', {}, new Date());
    });
    await wa.until(() => wa.seen.length >= 2);
    await all.until(() => all.seen.filter(([u]) => u === a.id).length >= 2);
    expect(wa.seen).toEqual([
      [a.id, 2n],
      [a.id, 3n],
    ]);
    expect(wb.seen).toEqual([]);
    wa.stop();
    wb.stop();
    all.stop();
  });
});

describeOnPostgres('event feed across processes on $name', (backend) => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    one = await startTestApp(backend, { background: false });
    two = await startTestApp({ name: 'postgres', open: async () => ({ db: one.services.db, drop: async () => {} }) }, { background: false });
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  test('when one service commits an event, then a subscriber of another service on the same database wakes', async () => {
    const a = await registerAgent(one);
    const w = wakes((wake) => two.services.eventFeed.subscribe(a.id, wake));
    await one.services.db.transaction((tx) => appendEvent(tx, a.id, 'trade', {}, new Date()));
    await w.until(() => w.seen.length >= 1);
    expect(w.seen).toEqual([[a.id, 2n]]);
    w.stop();
  });

  test('when the listening session is terminated, then subscribers are woken to catch up and later events still arrive', async () => {
    const a = await registerAgent(one);
    const w = wakes((wake) => one.services.eventFeed.subscribe(a.id, wake));
    await one.services.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN account_events'`,
    );
    await w.until(() => w.seen.some(([, s]) => s === null), 10_000);
    await one.services.db.transaction((tx) => appendEvent(tx, a.id, 'trade', {}, new Date()));
    await w.until(() => w.seen.some(([, s]) => s === 2n), 10_000);
    w.stop();
  });
});
