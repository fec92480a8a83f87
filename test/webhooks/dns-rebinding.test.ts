import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { startReceiver } from '../support/webhook-receiver';
import { appendEvent } from '../../src/domain/events/account-events';
import type { Resolve } from '../../src/outbound/guarded-post';

const HOST = 'hooks.rebind.test';

describe.each(backends())('webhooks and DNS rebinding on $name', (backend) => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  // What HOST resolves to now: a public address at registration, loopback (where the receiver is) at delivery.
  let answer = '93.184.216.34';
  const asked: string[] = [];
  const resolve: Resolve = async (hostname) => {
    asked.push(hostname);
    if (hostname !== HOST) throw new Error(`unexpected lookup of ${hostname}`);
    return [{ address: answer, family: 4 }];
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { background: false, resolve });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  test('when a name that resolved to a public address at registration resolves to loopback at delivery, then the delivery is refused and nothing reaches the receiver', async () => {
    const a = await registerAgent(t);
    const auth = { Authorization: `Bearer ${a.apiKey}` };
    const res = await t.api
      .post('/api/webhooks')
      .set(auth)
      .send({ url: `http://${HOST}:${rx.port}/hook` });
    expect(res.status).toBe(201);
    answer = '127.0.0.1';
    await t.services.db.transaction((tx) => appendEvent(tx, a.id, 'trade', {}, new Date()));
    await t.services.webhookWorker.runOnce();
    expect(asked).toEqual([HOST, HOST]); // resolved at registration and again at delivery
    expect(rx.received).toHaveLength(0);
    const list = await t.api.get(`/api/webhooks/${res.body.webhook.id}/deliveries`).set(auth);
    expect(list.body.deliveries[0]).toMatchObject({
      state: 'pending',
      attempts: [expect.objectContaining({ status: null, error: expect.stringMatching(/^ADDRESS_NOT_ALLOWED/) })],
    });
    // Registering the name now is refused up front.
    const again = await t.api
      .post('/api/webhooks')
      .set(auth)
      .send({ url: `http://${HOST}:${rx.port}/hook` });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('ADDRESS_NOT_ALLOWED');
  });
});
