import dns from 'node:dns';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { startReceiver } from '../support/webhook-receiver';
import { appendEvent } from '../../src/domain/events/account-events';

const HOST = 'hooks.rebind.test';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

describe.each(backends())('webhooks and DNS rebinding on $name', (backend) => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  // What HOST resolves to now: a public address at registration, loopback (the receiver) at delivery.
  let answer = '93.184.216.34';
  const realLookup = dns.lookup;

  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
    rx = await startReceiver();
    jest.spyOn(dns, 'lookup').mockImplementation(((host: string, options: unknown, callback?: LookupCallback) => {
      const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
      const opts = (typeof options === 'object' && options !== null ? options : {}) as dns.LookupOptions;
      if (host !== HOST) return (realLookup as (...a: unknown[]) => void)(host, opts, cb);
      process.nextTick(() => (opts.all ? cb(null, [{ address: answer, family: 4 }]) : cb(null, answer, 4)));
    }) as unknown as typeof dns.lookup);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await rx.close();
    await t.close();
  });

  test('when a name resolved to a public address at registration resolves to loopback at delivery, then the delivery is refused at the connection', async () => {
    const a = await registerAgent(t);
    const res = await t.api
      .post('/api/webhooks')
      .set({ Authorization: `Bearer ${a.apiKey}` })
      .send({ url: `http://${HOST}:${rx.port}/hook` });
    expect(res.status).toBe(201);
    answer = '127.0.0.1';
    await t.services.db.transaction((tx) => appendEvent(tx, a.id, 'trade', {}, new Date()));
    await t.services.webhookWorker.runOnce();
    expect(rx.received).toHaveLength(0);
    const list = await t.api.get(`/api/webhooks/${res.body.webhook.id}/deliveries`).set({ Authorization: `Bearer ${a.apiKey}` });
    expect(list.body.deliveries[0]).toMatchObject({
      state: 'pending',
      attempts: [expect.objectContaining({ status: null, error: expect.stringMatching(/ADDRESS_NOT_ALLOWED/) })],
    });
    // Registering the same name now is refused up front.
    const again = await t.api
      .post('/api/webhooks')
      .set({ Authorization: `Bearer ${a.apiKey}` })
      .send({ url: `http://${HOST}:${rx.port}/hook` });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('ADDRESS_NOT_ALLOWED');
  });
});
