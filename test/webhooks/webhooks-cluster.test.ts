import { describeOnPostgres } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { startReceiver } from '../support/webhook-receiver';
import { appendEvent } from '../../src/domain/events/account-events';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CONFIG = { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_S: '1,1', OUTBOUND_TIMEOUT_MS: 2000 };

describeOnPostgres('webhook deliveries across processes on $name', (backend) => {
  let one: TestApp;
  let two: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    one = await startTestApp(backend, { background: false, config: CONFIG });
    two = await startTestApp({ name: 'postgres', open: async () => ({ db: one.services.db, drop: async () => {} }) }, { background: false, config: CONFIG });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await one.services.webhookWorker.stop();
    await two.services.webhookWorker.stop();
    await rx.close();
    await two.close();
    await one.close();
  });
  beforeEach(() => {
    rx.received.length = 0;
  });

  async function register(t: TestApp, key: string, path: string): Promise<string> {
    const res = await t.api
      .post('/api/webhooks')
      .set(bearer(key))
      .send({ url: rx.url(path) });
    expect(res.status).toBe(201);
    return res.body.webhook.id as string;
  }

  test('when two services on one database race for the same due delivery, then the receiver gets it once', async () => {
    const a = await registerAgent(one);
    await register(one, a.apiKey, '/race');
    rx.answer(() => ({ status: 200, afterMs: 200 }));
    await one.services.db.transaction((tx) => appendEvent(tx, a.id, 'trade', {}, new Date()));
    await Promise.all([one, two, one, two].map((t) => t.services.webhookWorker.runOnce()));
    await sleep(300);
    expect(rx.received).toHaveLength(1);
  });

  test('when both services run their workers and events of several accounts commit in either, then each is delivered exactly once, in order per webhook', async () => {
    rx.answer(() => ({ status: 200, afterMs: 5 }));
    one.services.webhookWorker.start();
    two.services.webhookWorker.start();
    const accounts = await Promise.all([registerAgent(one), registerAgent(two), registerAgent(one), registerAgent(two)]);
    for (const [i, a] of accounts.entries()) await register(i % 2 ? two : one, a.apiKey, `/a${i}`);
    // Each account's seqs from here on (registration may have written events of its own).
    const bases = await Promise.all(accounts.map((a) => one.services.events.latest(a.id)));
    const N = 15;
    await Promise.all(
      accounts.map(async (a, i) => {
        for (let n = 0; n < N; n++) {
          const t = (n + i) % 2 ? one : two;
          await t.services.db.transaction((tx) => appendEvent(tx, a.id, 'trade', { n }, new Date()));
        }
      }),
    );
    await rx.waitFor(accounts.length * N, 20_000);
    await sleep(1500); // a duplicate would arrive now
    expect(rx.received).toHaveLength(accounts.length * N);
    const ids = rx.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 0; i < accounts.length; i++) {
      const seqs = rx.received.filter((r) => r.path === `/a${i}`).map((r) => BigInt(r.json.seq));
      expect(seqs).toEqual(Array.from({ length: N }, (_, k) => bases[i]! + BigInt(k + 1)));
    }
  });
});
