import fc from 'fast-check';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock, HOUR, signedInPerson } from '../support/identity';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { PortfolioHistoryService } from '../../src/domain/portfolio/portfolio-history';

type Person = { id: string; cookie: string; origin: string };
type Outcome = { tokenId: string; outcome: string; price: number };

/** Dollars to micro-dollars, exactly (the API's figures carry at most 6 decimals). */
const micro = (x: number) => Math.round(x * 1e6);

/**
 * Issue 53 item 4: get_portfolio's Equity, the equity curve's live point and the hourly snapshot agree whatever the
 * account holds: a mirrored position (a published book), a simulated one, shares bought in someone's community market,
 * and a community market it created (its funding counts at what would return at settlement if prices held).
 */
describe.each(backends())('equity that agrees on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2031-03-01T00:00:00Z'));
  let mirrored: SeededMarket;
  let simulated: SeededMarket;
  let other: { id: string; apiKey: string };
  let theirs: { id: string; outcomeTokens: Outcome[] };

  const send = (p: Person, path: string, body: Record<string, unknown>) => t.api.post(path).set('Cookie', p.cookie).set('Origin', p.origin).send(body);
  const create = async (p: Person, liquidity: number, opening: number) => {
    const res = await send(p, '/api/user-markets', {
      question: 'Will the harbour ferry run on time all week?',
      category: 'Culture',
      outcomes: ['Yes', 'No'],
      endDate: new Date(clock.now().getTime() + 72 * HOUR).toISOString(),
      liquidity,
      openingProbabilities: [opening / 100, 1 - opening / 100],
    });
    expect(res.status).toBe(200);
    return res.body as { id: string; outcomeTokens: Outcome[] };
  };
  const buyCommunity = async (p: Person | { apiKey: string }, tokenId: string, amount: number) => {
    const req = t.api.post('/api/user-markets/trade');
    const res = await ('apiKey' in p ? req.set('Authorization', `Bearer ${p.apiKey}`) : req.set('Cookie', p.cookie).set('Origin', p.origin)).send({
      tokenId,
      amount,
    });
    expect(res.status).toBe(200);
    return res.body.quantity as number;
  };
  const buyMarket = async (p: Person, m: SeededMarket, amount: number) => {
    const res = await send(p, '/api/trade', { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount });
    expect(res.status).toBe(200);
    return res.body.quantity as number;
  };
  const communityMarket = async (id: string) => (await t.api.get(`/api/user-markets/${id}`)).body as { poolCash: number; outcomeTokens: Outcome[] };
  const tokenPrice = async (tokenId: string) =>
    Number((await t.services.db.query<{ price_micro: bigint }>('SELECT price_micro FROM market_tokens WHERE token_id = $1', [tokenId]))[0]!.price_micro);

  /** The three figures the app shows for one account: the Equity tile, the curve's live point, and this hour's snapshot. */
  const figures = async (p: Person) => {
    const totals = (await t.api.get('/api/positions').set('Cookie', p.cookie)).body.totals;
    expect(await new PortfolioHistoryService(t.services.db).snapshot(clock.now())).toBeGreaterThan(0);
    const points = (await t.api.get('/api/portfolio/history').set('Cookie', p.cookie).query({ period: '1d' })).body.points as Array<{
      equity: number;
      live: boolean;
    }>;
    const live = points.at(-1)!;
    const stored = points.at(-2)!;
    expect([live.live, stored.live]).toEqual([true, false]);
    return { totals, live: live.equity, stored: stored.equity };
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock, background: false });
    mirrored = await seedMarket(t.services.db);
    simulated = await seedMarket(t.services.db);
    prices.book(mirrored.yes, [[0.49, 100000]], [[0.51, 100000]]);
    await moveQuote(t.services.db, prices, mirrored.yes, 0.49, 0.51, clock.now());
    await moveQuote(t.services.db, prices, simulated.yes, 0.39, 0.41, clock.now());
    other = await registerAgent(t, 'Other');
    const maker = await signedInPerson(t);
    theirs = await create(maker, 200, 50);
  });
  afterAll(async () => t.close());

  test('when a person funds a 100-dollar market at 50/50 and buys 20 dollars of it (the issue’s case), then the tile and the curve both say 1000', async () => {
    const p = await signedInPerson(t);
    clock.advance(HOUR);
    const m = await create(p, 100, 50);
    await buyCommunity(p, m.outcomeTokens[0]!.tokenId, 20);
    const f = await figures(p);
    // Hand-computed: 880 cash; the pool holds 120, of which the 20-dollar position is worth q × p and the funding the rest,
    // and this person is the pool's only holder, so position + funding = 120 exactly, whatever the price moved to.
    expect(f.totals.cash).toBe(880);
    expect(micro(f.totals.marketValue) + micro(f.totals.poolFunding)).toBe(micro(120));
    // The buy raised the price it is marked at, so the position is worth more than its 20 dollars and the funding less than 100.
    expect(f.totals.marketValue).toBeGreaterThan(20);
    expect(f.totals.poolFunding).toBeLessThan(100);
    expect([f.totals.equity, f.live, f.stored]).toEqual([1000, 1000, 1000]);
  });

  test('when a person holds any mix of mirrored, simulated and community positions and created markets others trade, then the curve’s last point is the Equity tile, and both are the holdings recomputed here', async () => {
    const action = fc.oneof(
      fc.record({ kind: fc.constant('mirrored' as const), amount: fc.integer({ min: 1, max: 80 }) }),
      fc.record({ kind: fc.constant('simulated' as const), amount: fc.integer({ min: 1, max: 80 }) }),
      fc.record({ kind: fc.constant('bought' as const), amount: fc.integer({ min: 1, max: 80 }), i: fc.integer({ min: 0, max: 1 }) }),
      fc.record({
        kind: fc.constant('created' as const),
        liquidity: fc.integer({ min: 50, max: 150 }),
        opening: fc.integer({ min: 5, max: 95 }),
        own: fc.integer({ min: 0, max: 40 }),
        others: fc.integer({ min: 0, max: 60 }),
        i: fc.integer({ min: 0, max: 1 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 4 }), fc.integer({ min: 2, max: 98 }), async (actions, mark) => {
        clock.advance(HOUR);
        const p = await signedInPerson(t);
        // What this test knows independently: shares held per token (from the fills), every buyer's shares per
        // community market, and the markets this person created.
        const held = new Map<string, number>();
        const add = (m: Map<string, number>, k: string, q: number) => m.set(k, (m.get(k) ?? 0) + micro(q));
        const sold = new Map<string, Map<string, number>>();
        const soldIn = (marketId: string) => sold.get(marketId) ?? sold.set(marketId, new Map()).get(marketId)!;
        const created: string[] = [];
        for (const a of actions) {
          if (a.kind === 'mirrored') add(held, mirrored.yes, await buyMarket(p, mirrored, a.amount));
          else if (a.kind === 'simulated') add(held, simulated.yes, await buyMarket(p, simulated, a.amount));
          else if (a.kind === 'bought') {
            const token = theirs.outcomeTokens[a.i]!.tokenId;
            add(held, token, await buyCommunity(p, token, a.amount));
          } else {
            const m = await create(p, a.liquidity, a.opening);
            created.push(m.id);
            const token = m.outcomeTokens[a.i]!.tokenId;
            if (a.own > 0) {
              const q = await buyCommunity(p, token, a.own);
              add(held, token, q);
              add(soldIn(m.id), token, q);
            }
            if (a.others > 0) add(soldIn(m.id), m.outcomeTokens[1 - a.i]!.tokenId, await buyCommunity(other, m.outcomeTokens[1 - a.i]!.tokenId, a.others));
          }
        }
        // The mirrored mid moves after the buys: the marks are today's prices, not the fills'.
        await moveQuote(t.services.db, prices, mirrored.yes, mark / 100 - 0.01, mark / 100 + 0.01, clock.now());

        // Independently: cash + Σ shares × price now (floored per position) + Σ over created pools (cash − every holder's shares × price).
        const priceOf = new Map<string, number>();
        for (const token of [mirrored.yes, simulated.yes]) priceOf.set(token, await tokenPrice(token));
        for (const o of (await communityMarket(theirs.id)).outcomeTokens) priceOf.set(o.tokenId, micro(o.price));
        let funding = 0;
        for (const id of created) {
          const m = await communityMarket(id);
          for (const o of m.outcomeTokens) priceOf.set(o.tokenId, micro(o.price));
          let owed = 0;
          for (const [token, q] of soldIn(id)) owed += Math.floor((q * priceOf.get(token)!) / 1e6);
          funding += micro(m.poolCash) - owed;
        }
        let positions = 0;
        for (const [token, q] of held) positions += Math.floor((q * priceOf.get(token)!) / 1e6);
        const cash = micro((await t.api.get('/api/user/balance').set('Cookie', p.cookie)).body.balance);

        const f = await figures(p);
        expect(micro(f.totals.equity)).toBe(micro(f.totals.cash) + micro(f.totals.marketValue) + micro(f.totals.poolFunding));
        expect(micro(f.live)).toBe(micro(f.totals.equity));
        expect(micro(f.stored)).toBe(micro(f.totals.equity));
        // One holder per outcome of a created market (this person on one, the other agent on the other): the floors agree.
        expect(micro(f.totals.poolFunding)).toBe(funding);
        expect(micro(f.totals.marketValue)).toBe(positions);
        expect(micro(f.totals.cash)).toBe(cash);
      }),
      { numRuns: 10 },
    );
  });
});
