import { Webhook } from 'standardwebhooks';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { mcpCall, rpcCall } from '../support/rpc';
import { startReceiver } from '../support/webhook-receiver';
import { appendEvent, type AccountEventType } from '../../src/domain/events/account-events';
import { WebhookDeliveries } from '../../src/domain/webhooks/webhook-deliveries';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Commits one account event, as a trade or a notification appends it in its own transaction. */
const append = (t: TestApp, userId: string, type: AccountEventType, data: Record<string, unknown> = {}) =>
  t.services.db.transaction((tx) => appendEvent(tx, userId, type, data, new Date()));

describe.each(backends())('webhooks on $name', (backend) => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    // Deliveries go to a receiver on 127.0.0.1, which only OUTBOUND_ALLOW_PRIVATE lets through; retries after 1 s.
    t = await startTestApp(backend, {
      background: false,
      config: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_S: '1,1', OUTBOUND_TIMEOUT_MS: 400 },
    });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });
  beforeEach(() => {
    rx.received.length = 0;
    rx.answer(() => 200);
  });

  async function register(key: string, body: Record<string, unknown> = {}) {
    const res = await t.api
      .post('/api/webhooks')
      .set(bearer(key))
      .send({ url: rx.url(), ...body });
    expect(res.status).toBe(201);
    return res.body as { webhook: { id: string; url: string; state: string; types: string[] | null }; secret: string };
  }
  const deliveries = async (key: string, id: string, query = '') => {
    const res = await t.api.get(`/api/webhooks/${id}/deliveries${query}`).set(bearer(key));
    expect(res.status).toBe(200);
    return res.body as {
      deliveries: Array<{
        id: string;
        seq: number;
        type: string;
        state: string;
        nextAttemptAt: string | null;
        attempts: Array<{ n: number; at: string; status: number | null; error: string | null; durationMs: number }>;
      }>;
      nextCursor: string | null;
    };
  };
  const run = () => t.services.webhookWorker.runOnce();
  /**
   * The account's seq numbering from now on: seq(k) is the k-th event after the last one the log holds (other code,
   * registration for one, may have written events before the test's own).
   */
  const seqFrom = async (userId: string) => {
    const base = await t.services.events.latest(userId);
    return (k: number) => Number(base + BigInt(k));
  };

  test('when an account event commits, then its webhook gets one POST signed the Standard Webhooks way, which verifies with the secret', async () => {
    const a = await registerAgent(t);
    const { webhook, secret } = await register(a.apiKey, { description: 'all events' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(webhook).toMatchObject({ url: rx.url(), state: 'enabled', types: null });
    const seq = await seqFrom(a.id);
    await append(t, a.id, 'trade', { marketId: 'm1', shares: 12.5 });
    await run();
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0]!;
    const verified = new Webhook(secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    expect(verified).toEqual({ type: 'trade', seq: seq(1), timestamp: expect.any(String), data: { marketId: 'm1', shares: 12.5 } });
    expect(got.headers['content-type']).toBe('application/json');
    // A body changed in transit, or another secret, does not verify.
    expect(() => new Webhook(secret).verify(got.body.replace('12.5', '13.5'), got.headers as Record<string, string>)).toThrow();
    const other = (await register(a.apiKey)).secret;
    expect(() => new Webhook(other).verify(got.body, got.headers as Record<string, string>)).toThrow();
    const list = await deliveries(a.apiKey, webhook.id);
    expect(list.deliveries).toEqual([
      expect.objectContaining({ seq: seq(1), type: 'trade', state: 'succeeded', attempts: [expect.objectContaining({ n: 1, status: 200, error: null })] }),
    ]);
    // Nothing more to send: another pass sends nothing.
    await run();
    expect(rx.received).toHaveLength(1); // the second webhook, registered after the event, gets nothing; the first nothing again
  });

  test('when several events commit, then each webhook receives them in seq order, only the types it asked for, each with a stable webhook-id', async () => {
    const a = await registerAgent(t);
    const all = await register(a.apiKey);
    const trades = await register(a.apiKey, { url: rx.url('/trades'), types: ['trade'] });
    const seq = await seqFrom(a.id);
    for (let i = 0; i < 6; i++) await append(t, a.id, i % 2 ? 'trade' : 'balance', { i });
    await run();
    const toAll = rx.received.filter((r) => r.path === '/hook').map((r) => r.json.seq);
    const toTrades = rx.received.filter((r) => r.path === '/trades').map((r) => [r.json.seq, r.json.type]);
    expect(toAll).toEqual([1, 2, 3, 4, 5, 6].map(seq));
    expect(toTrades).toEqual([
      [seq(2), 'trade'],
      [seq(4), 'trade'],
      [seq(6), 'trade'],
    ]);
    const ids = rx.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(`msg_${all.webhook.id.replace(/-/g, '')}_${seq(3)}`);
    expect(ids).toContain(`msg_${trades.webhook.id.replace(/-/g, '')}_${seq(4)}`);
  });

  test('when the receiver answers 500 then 200, then the delivery is retried after the backoff and succeeds, later events waiting behind it', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    const seq = await seqFrom(a.id);
    rx.answer((r, i) => (i === 0 ? 500 : 200));
    await append(t, a.id, 'trade', { n: 1 });
    await append(t, a.id, 'trade', { n: 2 });
    await run();
    // The first failed; the second is held back so the receiver never sees 2 before 1.
    expect(rx.received.map((r) => r.json.seq)).toEqual([seq(1)]);
    let list = await deliveries(a.apiKey, webhook.id);
    expect(list.deliveries.map((d) => [d.seq, d.state, d.attempts.length])).toEqual([
      [seq(2), 'pending', 0],
      [seq(1), 'pending', 1],
    ]);
    expect(list.deliveries[0]!.nextAttemptAt).toBeNull();
    const retryAt = Date.parse(list.deliveries[1]!.nextAttemptAt!);
    // 1 s after the attempt was recorded, plus up to 20% jitter.
    const sentAt = Date.parse(list.deliveries[1]!.attempts[0]!.at);
    expect(retryAt - sentAt).toBeGreaterThanOrEqual(1000);
    expect(retryAt - sentAt).toBeLessThanOrEqual(1200 + list.deliveries[1]!.attempts[0]!.durationMs + 500);
    await run(); // not due yet
    expect(rx.received).toHaveLength(1);
    await sleep(retryAt - Date.now() + 50);
    await run();
    expect(rx.received.map((r) => r.json.seq)).toEqual([seq(1), seq(1), seq(2)]);
    expect(rx.received[1]!.headers['webhook-id']).toBe(rx.received[0]!.headers['webhook-id']);
    list = await deliveries(a.apiKey, webhook.id);
    expect(list.deliveries.map((d) => [d.seq, d.state])).toEqual([
      [seq(2), 'succeeded'],
      [seq(1), 'succeeded'],
    ]);
    expect(list.deliveries[1]!.attempts.map((x) => [x.n, x.status])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  });

  test('when the receiver never answers, then the attempt times out, is recorded as such, and after the schedule the delivery fails', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    rx.answer(() => 'hang');
    await append(t, a.id, 'notification', { title: 'hello' });
    for (let i = 0; i < 3; i++) {
      await run();
      const d = (await deliveries(a.apiKey, webhook.id)).deliveries[0]!;
      if (d.nextAttemptAt) await sleep(Math.max(0, Date.parse(d.nextAttemptAt) - Date.now() + 50));
    }
    const d = (await deliveries(a.apiKey, webhook.id)).deliveries[0]!;
    expect(d.state).toBe('failed');
    expect(d.attempts).toHaveLength(3); // the first and one per schedule entry (1,1)
    for (const x of d.attempts) {
      expect(x).toMatchObject({ status: null, error: expect.stringMatching(/no answer within 400 ms/) });
      expect(x.durationMs).toBeGreaterThanOrEqual(350);
      expect(x.durationMs).toBeLessThan(2000);
    }
    expect((await deliveries(a.apiKey, webhook.id, '?state=failed')).deliveries).toHaveLength(1);
    expect((await deliveries(a.apiKey, webhook.id, '?state=succeeded')).deliveries).toHaveLength(0);
  });

  test('when a delivery has more attempts than a listing shows, then it lists the latest 20, oldest first, numbered from the first', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    rx.answer(() => 500);
    await append(t, a.id, 'notification', { title: 'many tries' });
    await run();
    const [d] = (await deliveries(a.apiKey, webhook.id)).deliveries;
    expect(d!.attempts.map((x) => x.n)).toEqual([1]);
    // As replays of a failing receiver leave them: 25 in all.
    for (let n = 2; n <= 25; n++)
      await t.services.db.query(
        `INSERT INTO webhook_attempts (delivery_id, n, at, status, error, duration_ms) VALUES ($1, $2::int, now() + $2::int * interval '1 second', 500, NULL, 3)`,
        [d!.id, n],
      );
    const listed = (await deliveries(a.apiKey, webhook.id)).deliveries[0]!;
    expect(listed.attempts.map((x) => x.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    // Its retries would reach the receiver the next tests read.
    expect((await t.api.delete(`/api/webhooks/${webhook.id}`).set(bearer(a.apiKey))).status).toBe(200);
  });

  test('when a delivery is replayed, then it is sent again with the same webhook-id; fromSeq re-sends events, also from before the webhook', async () => {
    const a = await registerAgent(t);
    const seq = await seqFrom(a.id);
    await append(t, a.id, 'trade', { before: true });
    // Trades only: replaying from a seq takes the webhook's types too, whatever else the log holds.
    const { webhook } = await register(a.apiKey, { types: ['trade'] });
    await append(t, a.id, 'trade', { after: true });
    await run();
    expect(rx.received.map((r) => r.json.seq)).toEqual([seq(2)]);
    const [d] = (await deliveries(a.apiKey, webhook.id)).deliveries;
    const one = await t.api.post(`/api/webhooks/${webhook.id}/replay`).set(bearer(a.apiKey)).send({ deliveryId: d!.id });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ replayed: 1, nextCursor: null, nextFromSeq: null });
    await run();
    expect(rx.received.map((r) => r.json.seq)).toEqual([seq(2), seq(2)]);
    expect(rx.received[1]!.headers['webhook-id']).toBe(rx.received[0]!.headers['webhook-id']);
    const from = await t.api
      .post(`/api/webhooks/${webhook.id}/replay`)
      .set(bearer(a.apiKey))
      .send({ fromSeq: Number(seq(1)) });
    expect(from.body).toEqual({ replayed: 2, nextCursor: null, nextFromSeq: null });
    await run();
    expect(rx.received.map((r) => r.json.seq)).toEqual([seq(2), seq(2), seq(1), seq(2)]);
    const list = await deliveries(a.apiKey, webhook.id);
    expect(list.deliveries.map((x) => [x.seq, x.state, x.attempts.length])).toEqual([
      [seq(2), 'succeeded', 3],
      [seq(1), 'succeeded', 1],
    ]);
    const bad = await t.api.post(`/api/webhooks/${webhook.id}/replay`).set(bearer(a.apiKey)).send({ fromSeq: 1, deliveryId: d!.id });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const missing = await t.api.post(`/api/webhooks/${webhook.id}/replay`).set(bearer(a.apiKey)).send({ deliveryId: '00000000-0000-4000-8000-000000000000' });
    expect(missing.status).toBe(404);
  });

  test('when a webhook is deleted, then nothing more is sent to it, queued retries included, and it is gone from the list', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    rx.answer(() => 503);
    await append(t, a.id, 'trade');
    await run();
    expect(rx.received).toHaveLength(1);
    const del = await t.api.delete(`/api/webhooks/${webhook.id}`).set(bearer(a.apiKey));
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    await append(t, a.id, 'trade');
    await sleep(1300);
    await run();
    expect(rx.received).toHaveLength(1);
    expect((await t.api.get('/api/webhooks').set(bearer(a.apiKey))).body).toEqual({ webhooks: [] });
    expect((await t.api.delete(`/api/webhooks/${webhook.id}`).set(bearer(a.apiKey))).status).toBe(404);
    expect((await t.api.get(`/api/webhooks/${webhook.id}/deliveries`).set(bearer(a.apiKey))).status).toBe(404);
  });

  test('when the receiver answers 410 Gone, then the webhook is disabled and gets nothing more', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    rx.answer(() => 410);
    await append(t, a.id, 'trade');
    await append(t, a.id, 'trade');
    await run();
    expect(rx.received).toHaveLength(1);
    const [hook] = (await t.api.get('/api/webhooks').set(bearer(a.apiKey))).body.webhooks;
    expect(hook).toMatchObject({ id: webhook.id, state: 'disabled', disabledReason: expect.stringMatching(/410/) });
    await append(t, a.id, 'trade');
    await run();
    expect(rx.received).toHaveLength(1);
    expect((await deliveries(a.apiKey, webhook.id)).deliveries.map((d) => d.state)).toEqual(['failed', 'failed']);
    const replay = await t.api.post(`/api/webhooks/${webhook.id}/replay`).set(bearer(a.apiKey)).send({ fromSeq: 1 });
    expect(replay.status).toBe(409);
  });

  test('when the secret is rotated, then deliveries carry both signatures for a while, so the old and the new secret verify', async () => {
    const a = await registerAgent(t);
    const { webhook, secret: old } = await register(a.apiKey);
    const rot = await t.api.post(`/api/webhooks/${webhook.id}/rotate-secret`).set(bearer(a.apiKey));
    expect(rot.status).toBe(200);
    const fresh = rot.body.secret as string;
    expect(fresh).not.toBe(old);
    await append(t, a.id, 'balance', { balance: 1000 });
    await run();
    const got = rx.received[0]!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [fresh, old]) expect(new Webhook(s).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'balance' });
    // list_webhooks never shows a secret.
    expect(JSON.stringify((await t.api.get('/api/webhooks').set(bearer(a.apiKey))).body)).not.toMatch(/whsec_/);
  });

  test('when deliveries are listed page by page, then the cursor walks every delivery once, newest first', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    const seq = await seqFrom(a.id);
    for (let i = 0; i < 5; i++) await append(t, a.id, 'trade');
    await run();
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof deliveries>> = await deliveries(a.apiKey, webhook.id, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.deliveries.map((d) => d.seq));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([5, 4, 3, 2, 1].map(seq));
    expect((await t.api.get(`/api/webhooks/${webhook.id}/deliveries?cursor=nonsense`).set(bearer(a.apiKey))).status).toBe(400);
  });

  test('when the worker runs in the background, then it delivers committed events and retries on its own', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    const seq = await seqFrom(a.id);
    rx.answer((r, i) => (i === 0 ? 500 : 200));
    t.services.webhookWorker.start();
    try {
      await append(t, a.id, 'order.filled', { orderId: 'o1' });
      await append(t, a.id, 'order.filled', { orderId: 'o2' });
      await rx.waitFor(3, 10_000); // 1 (500), then 1 again after about a second, then 2
      expect(rx.received.map((r) => r.json.seq)).toEqual([seq(1), seq(1), seq(2)]);
    } finally {
      await t.services.webhookWorker.stop();
    }
    expect((await deliveries(a.apiKey, webhook.id)).deliveries.map((d) => [d.seq, d.state, d.attempts.length])).toEqual([
      [seq(2), 'succeeded', 1],
      [seq(1), 'succeeded', 2],
    ]);
  });

  test('when an event commits, then the worker is woken by the event feed and delivers it without waiting for its poll', async () => {
    const a = await registerAgent(t);
    await register(a.apiKey);
    const seq = await seqFrom(a.id);
    // A worker whose poll comes only once at start and then after a minute: whatever arrives sooner came on a wake.
    const worker = new DeliveryWorker(new WebhookDeliveries(t.services.db), t.services.eventFeed, t.services.clock, t.services.log, {
      schedule: [1],
      timeoutMs: 2000,
      allowPrivate: true,
      pollMs: 60_000,
    });
    worker.start();
    try {
      await sleep(100); // its first sweep is done
      const latencies: number[] = [];
      for (let i = 1; i <= 3; i++) {
        const started = Date.now();
        await append(t, a.id, 'order.filled', { orderId: `o${i}` });
        await rx.waitFor(i, 5000);
        latencies.push(Date.now() - started);
      }
      expect(rx.received.map((r) => [r.json.type, r.json.seq])).toEqual([
        ['order.filled', seq(1)],
        ['order.filled', seq(2)],
        ['order.filled', seq(3)],
      ]);
      expect(Math.max(...latencies)).toBeLessThan(5000);
    } finally {
      await worker.stop();
    }
  });

  test('when a process took a delivery and died before recording it, then another sends it once the lease has run out', async () => {
    const a = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    const seq = await seqFrom(a.id);
    await append(t, a.id, 'trade');
    // The other process: it queues the event and takes the delivery for 300 ms, then is gone.
    const other = new WebhookDeliveries(t.services.db);
    await other.enqueueAll(new Date());
    const now = new Date();
    const taken = await other.claim(now, 10, new Date(now.getTime() + 300));
    expect(taken.map((c) => c.seq)).toEqual([seq(1)]);
    await run(); // leased: not sent
    expect(rx.received).toHaveLength(0);
    await sleep(350);
    await run();
    expect(rx.received).toHaveLength(1);
    const [d] = (await deliveries(a.apiKey, webhook.id)).deliveries;
    // The lost attempt has no record; the one that went out is number 2.
    expect(d).toMatchObject({ state: 'succeeded', attempts: [expect.objectContaining({ n: 2, status: 200 })] });
  });

  test('when another account asks for a webhook, then it is not found; and an account may register only so many', async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const { webhook } = await register(a.apiKey);
    expect((await t.api.get(`/api/webhooks/${webhook.id}/deliveries`).set(bearer(b.apiKey))).status).toBe(404);
    expect((await t.api.delete(`/api/webhooks/${webhook.id}`).set(bearer(b.apiKey))).status).toBe(404);
    expect((await t.api.get('/api/webhooks').set(bearer(b.apiKey))).body.webhooks).toEqual([]);
    for (let i = 1; i < 5; i++) await register(a.apiKey);
    const sixth = await t.api.post('/api/webhooks').set(bearer(a.apiKey)).send({ url: rx.url() });
    expect(sixth.status).toBe(409);
    expect(sixth.body.code).toBe('CONFLICT');
    expect((await t.api.get('/api/webhooks').set(bearer(a.apiKey))).body.webhooks).toHaveLength(5);
    expect((await t.api.post('/api/webhooks').send({ url: rx.url() })).status).toBe(401);
  });

  test('when the methods are called over JSON-RPC and MCP, then they answer the same', async () => {
    const a = await registerAgent(t);
    const created = await rpcCall(t, 'create_webhook', { url: rx.url('/rpc'), types: ['settlement'] }, bearer(a.apiKey));
    expect(created.result).toMatchObject({ webhook: { url: rx.url('/rpc'), types: ['settlement'] }, secret: expect.stringMatching(/^whsec_/) });
    const listed = await mcpCall(t, 'list_webhooks', {}, bearer(a.apiKey));
    expect(listed.result.structuredContent.webhooks).toHaveLength(1);
    const deleted = await rpcCall(t, 'delete_webhook', { id: created.result.webhook.id }, bearer(a.apiKey));
    expect(deleted.result).toEqual({ deleted: true });
  });

  test('when an account is deleted, then its webhooks go with it', async () => {
    const a = await registerAgent(t);
    await register(a.apiKey);
    const res = await t.api.post('/api/user/delete').set(bearer(a.apiKey)).send({ password: 'password123' });
    expect([200, 204]).toContain(res.status);
    const rows = await t.services.db.query('SELECT id FROM webhook_endpoints WHERE user_id = $1', [a.id]);
    expect(rows).toEqual([]);
  });
});

describe.each(backends())('webhook address rule on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
  });
  afterAll(() => t.close());

  test.each([
    'http://127.0.0.1/hook',
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://192.168.1.10/',
    'http://172.16.0.5/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fd00::1]/',
  ])('when %s is registered without OUTBOUND_ALLOW_PRIVATE, then it is refused with ADDRESS_NOT_ALLOWED and nothing registered', async (url) => {
    const a = await registerAgent(t);
    const res = await t.api.post('/api/webhooks').set(bearer(a.apiKey)).send({ url });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('ADDRESS_NOT_ALLOWED');
    expect((await t.api.get('/api/webhooks').set(bearer(a.apiKey))).body.webhooks).toEqual([]);
  });

  test.each(['ftp://example.com/x', 'http://user:pass@example.com/hook', 'not a url'])(
    'when %s is registered, then it is refused as invalid input',
    async (url) => {
      const a = await registerAgent(t);
      const res = await t.api.post('/api/webhooks').set(bearer(a.apiKey)).send({ url });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    },
  );

  test('when a refused address is registered over MCP, then the error carries the same code', async () => {
    const a = await registerAgent(t);
    const res = await mcpCall(t, 'create_webhook', { url: 'http://169.254.169.254/' }, bearer(a.apiKey));
    expect(JSON.stringify(res)).toMatch(/ADDRESS_NOT_ALLOWED/);
  });
});
