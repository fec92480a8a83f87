import { backends, type Backend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../support/markets';

/** Issue 34 item 6: a replayed idempotent answer is the first one byte for byte, and says it is a replay. */
function suite(backend: Backend) {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(() => t.close());

  test('when a trade is retried with its Idempotency-Key, then the answer is byte-identical and carries Idempotent-Replayed: true', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.48, 0.5);
    const send = () =>
      t.api
        .post('/api/trade')
        .set('Authorization', `Bearer ${a.apiKey}`)
        .set('Idempotency-Key', 'replay-1')
        .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 25 });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // Only one trade happened.
    expect((await t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`)).body.balance).toBe(975);
  });
}

describe.each(backends())('idempotent replay on $name', suite);
