import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { IDEMPOTENCY_TTL_MS, requestHash } from '../../../src/domain/idempotency/idempotency-store';

describe.each(backends())('idempotency keys on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());

  test('the request hash ignores key order and undefined fields, and differs by method and value', () => {
    expect(requestHash('paper_trade', { a: 1, b: { c: 2, d: undefined } })).toBe(requestHash('paper_trade', { b: { c: 2 }, a: 1 }));
    expect(requestHash('paper_trade', { a: 1 })).not.toBe(requestHash('sell_position', { a: 1 }));
    expect(requestHash('paper_trade', { a: 1 })).not.toBe(requestHash('paper_trade', { a: 2 }));
  });

  test('when a key is older than 24 hours, then it is no longer replayed and purge() removes it', async () => {
    const a = await registerAgent(t);
    const store = t.services.idempotency;
    const t0 = new Date('2030-01-01T00:00:00Z');
    const first = await store.claim(a.id, 'k', 'paper_trade', 'h1', t0);
    expect(first.kind).toBe('new');
    if (first.kind === 'new') await t.services.db.transaction((tx) => first.complete(tx, { ok: 1 }));
    const replay = await store.claim(a.id, 'k', 'paper_trade', 'h1', new Date(t0.getTime() + 1000));
    expect(replay).toEqual({ kind: 'replay', response: { ok: 1 } });
    const later = new Date(t0.getTime() + IDEMPOTENCY_TTL_MS + 1000);
    const fresh = await store.claim(a.id, 'k', 'paper_trade', 'h2', later);
    expect(fresh.kind).toBe('new');
    if (fresh.kind === 'new') await fresh.release();
    await store.claim(a.id, 'old', 'paper_trade', 'h', t0);
    await store.purge(later);
    const rows = await t.services.db.query('SELECT key FROM idempotency_keys WHERE user_id = $1', [a.id]);
    expect(rows).toEqual([]);
  });

  test('when an in-flight claim is abandoned for over a minute (a crash), then a retry may run', async () => {
    const a = await registerAgent(t);
    const t0 = new Date('2030-01-01T00:00:00Z');
    await t.services.idempotency.claim(a.id, 'crash', 'paper_trade', 'h', t0);
    await expect(t.services.idempotency.claim(a.id, 'crash', 'paper_trade', 'h', new Date(t0.getTime() + 5000))).rejects.toMatchObject({ code: 'CONFLICT' });
    const retry = await t.services.idempotency.claim(a.id, 'crash', 'paper_trade', 'h', new Date(t0.getTime() + 61_000));
    expect(retry.kind).toBe('new');
  });
});
