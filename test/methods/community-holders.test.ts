import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { HOUR, ManualClock, signedInPerson } from '../support/identity';

/** Issue 53 item 10: a community market says who holds each outcome (accounts and shares), as its page shows them. */
describe.each(backends())('community market holders on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
  });
  afterAll(async () => t.close());

  type Token = { tokenId: string; outcome: string; shares: number; holders: number };
  const read = async (slug: string) => (await t.api.get(`/api/user-markets/${slug}`)).body.outcomeTokens as Token[];
  const buy = async (key: string, tokenId: string, amount: number) => {
    const res = await t.api.post('/api/user-markets/trade').set('Authorization', `Bearer ${key}`).send({ tokenId, amount });
    expect(res.status).toBe(200);
    return { quantity: res.body.quantity as number, positionId: res.body.positionId as string };
  };

  test('when two agents buy one outcome and one the other, then holders count accounts (not buys) and shares sum their fills; a full sale leaves the holders', async () => {
    const p = await signedInPerson(t);
    const made = await t.api
      .post('/api/user-markets')
      .set('Cookie', p.cookie)
      .set('Origin', p.origin)
      .send({
        question: 'Will the tram line open on time?',
        category: 'Local',
        outcomes: ['Yes', 'No'],
        endDate: new Date(clock.now().getTime() + 48 * HOUR).toISOString(),
      });
    expect(made.status).toBe(200);
    const [yes, no] = made.body.outcomeTokens as Token[];
    expect(made.body.outcomeTokens.map((o: Token) => [o.outcome, o.holders, o.shares])).toEqual([
      ['Yes', 0, 0],
      ['No', 0, 0],
    ]);
    const [a, b] = [await registerAgent(t), await registerAgent(t)];
    const a1 = await buy(a.apiKey, yes!.tokenId, 10);
    const a2 = await buy(a.apiKey, yes!.tokenId, 5);
    const b1 = await buy(b.apiKey, yes!.tokenId, 7);
    const b2 = await buy(b.apiKey, no!.tokenId, 12);
    const after = await read(made.body.slug);
    expect(after.map((o) => [o.outcome, o.holders])).toEqual([
      ['Yes', 2],
      ['No', 1],
    ]);
    expect(after[0]!.shares).toBeCloseTo(a1.quantity + a2.quantity + b1.quantity, 6);
    expect(after[1]!.shares).toBeCloseTo(b2.quantity, 6);
    // The list carries the same figures.
    const listed = (await t.api.get('/api/user-markets').query({ creator: p.id })).body.markets[0].outcomeTokens as Token[];
    expect(listed).toEqual(after);

    const sold = await t.api.post(`/api/user-markets/positions/${b2.positionId}/sell`).set('Authorization', `Bearer ${b.apiKey}`).send({});
    expect(sold.status).toBe(200);
    const last = await read(made.body.slug);
    expect(last.map((o) => [o.outcome, o.holders, o.shares])).toEqual([
      ['Yes', 2, after[0]!.shares],
      ['No', 0, 0],
    ]);
  });
});
