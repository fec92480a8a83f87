import { describeOnPostgres } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { openPool, sharesForAmount } from '../../../src/domain/community/lmsr';
import { toMicro, fromMicro } from '../../../src/domain/money/micro';

// PGlite runs transactions one at a time, so races only exist on PostgreSQL.
describeOnPostgres('concurrent community market trading on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend as never);
  });
  afterAll(async () => t.close());

  test('when 50 agents buy one market at once, then every fill is priced on the state the one before left, the audit passes and the pool balances', async () => {
    const creator = await registerAgent(t, 'Maker');
    const market = await t.services.community.create(
      creator.id,
      {
        question: 'Will the river freeze over this winter?',
        category: 'Weather',
        outcomes: ['Yes', 'No'],
        endDate: new Date(Date.now() + 86400_000).toISOString(),
      },
      new Date(),
    );
    const yes = market.outcomeTokens[0]!.tokenId;
    const agents = await Promise.all(Array.from({ length: 50 }, (_, i) => registerAgent(t, `Racer${i}`)));
    const results = await Promise.all(
      agents.map((a) => t.api.post('/api/user-markets/trade').set('Authorization', `Bearer ${a.apiKey}`).send({ tokenId: yes, amount: 10 })),
    );
    for (const r of results) expect(r.status).toBe(200);

    // Replaying 50 buys of 10 on YES one after another gives exactly these fills; a lost update would price two on one state.
    const pool = openPool(toMicro(100), 2);
    const expected: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      const s = sharesForAmount(pool, 0, toMicro(10));
      expected.push(fromMicro(s));
      pool.q[0] = pool.q[0]! + s;
    }
    const got = results.map((r) => r.body.quantity as number).sort((a, b) => b - a);
    expect(got).toEqual(expected);

    const after = await t.services.community.bySlug(market.id);
    expect(after.poolCash).toBe(600);
    expect(after.tradeCount).toBe(50);
    const rows = await t.services.db.query<{ shares_micro: bigint }>('SELECT shares_micro FROM community_outcomes WHERE token_id = $1', [yes]);
    expect(BigInt(rows[0]!.shares_micro)).toBe(pool.q[0]);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when buys and sells race on one market, then the pool books still balance to the micro-dollar', async () => {
    const creator = await registerAgent(t, 'Maker');
    const market = await t.services.community.create(
      creator.id,
      {
        question: 'Which ferry leaves first on Monday?',
        category: 'Travel',
        outcomes: ['A', 'B', 'C'],
        endDate: new Date(Date.now() + 86400_000).toISOString(),
      },
      new Date(),
    );
    const agents = await Promise.all(Array.from({ length: 20 }, (_, i) => registerAgent(t, `Mixed${i}`)));
    const bought = await Promise.all(
      agents.map((a, i) =>
        t.api
          .post('/api/user-markets/trade')
          .set('Authorization', `Bearer ${a.apiKey}`)
          .send({ tokenId: market.outcomeTokens[i % 3]!.tokenId, amount: 5 + i }),
      ),
    );
    await Promise.all(
      agents.flatMap((a, i) => [
        t.api.post(`/api/positions/${bought[i]!.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({}),
        t.api
          .post('/api/user-markets/trade')
          .set('Authorization', `Bearer ${a.apiKey}`)
          .send({ tokenId: market.outcomeTokens[(i + 1) % 3]!.tokenId, amount: 3 }),
      ]),
    );
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });
});
