import { Webhook } from 'standardwebhooks';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket } from '../support/markets';
import { startReceiver } from '../support/webhook-receiver';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('a trade delivered by webhook on $name', (backend) => {
  let t: TestApp;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false, prices, config: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  test('when an agent buys, then its webhook receives the trade and the balance change, signed, in seq order', async () => {
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.6, 0.625);
    const a = await registerAgent(t);
    const hook = await t.api
      .post('/api/webhooks')
      .set(bearer(a.apiKey))
      .send({ url: rx.url(), types: ['trade', 'balance'] });
    expect(hook.status).toBe(201);
    const buy = await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 });
    expect(buy.status).toBe(200);
    await t.services.webhookWorker.runOnce();
    const wh = new Webhook(hook.body.secret as string);
    const events = rx.received.map(
      (r) => wh.verify(r.body, r.headers as Record<string, string>) as { type: string; seq: number; data: Record<string, unknown> },
    );
    expect(events.map((e) => e.type).sort()).toEqual(['balance', 'trade']);
    const seqs = events.map((e) => Number(e.seq));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(events.find((e) => e.type === 'balance')!.data).toMatchObject({ balance: 900 });
  });
});
