import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { sessionCookieOf, ManualClock } from '../support/identity';
import { BENCHMARK_METRICS, MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';

/**
 * Issue 49, attack 2 ("creator and puppet"): a creator makes markets ending 40 s out, a second account buys the outcome
 * the creator will pick, stating [1, 0], and the creator resolves to it. On c169af9 the puppet was rank 1 on alpha
 * (0.8006, n 32), Brier and log score. Community markets now count on no forecasting board or record, and on the SPEC
 * boards only once they have had COMMUNITY_MIN_TRADERS distinct traders besides the creator.
 */
describe.each(backends())('the creator-and-puppet attack on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse('2031-05-07T12:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
  });
  afterAll(async () => t.close());

  const MARKETS = MIN_RESOLVED_MARKETS + 2;

  test(`when a creator's second account buys and states [1, 0] on ${MARKETS} markets the creator then resolves its way, then it gains no rank on any forecasting board, no forecasting record, and no place on any leaderboard`, async () => {
    const creator = await registerAgent(t, 'Creator');
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: creator.email, password: 'password123' });
    const cookie = sessionCookieOf(login)!;
    const origin = t.config.BASE_URL!;
    const puppet = await registerAgent(t, 'Puppet');

    for (let i = 0; i < MARKETS; i++) {
      const made = await t.api
        .post('/api/user-markets')
        .set('Cookie', cookie)
        .set('Origin', origin)
        .send({
          question: `Will the harbour festival number ${i} sell out?`,
          category: 'Local',
          outcomes: ['Yes', 'No'],
          endDate: new Date(clock.now().getTime() + 40_000).toISOString(),
          liquidity: 50,
        });
      expect(made.status).toBe(200);
      const bought = await t.api
        .post('/api/user-markets/trade')
        .set('Authorization', `Bearer ${puppet.apiKey}`)
        .send({ tokenId: made.body.outcomeTokens[0].tokenId, amount: 10, forecasts: [1, 0] });
      expect(bought.status).toBe(200);
      clock.advance(41_000);
      const resolved = await t.api.post(`/api/user-markets/${made.body.id}/resolve`).set('Cookie', cookie).set('Origin', origin).send({ outcome: 'Yes' });
      expect(resolved.status).toBe(200);
    }
    // The money moved as usual: the puppet won every market.
    const balance = (await t.api.get('/api/user/balance').set('Authorization', `Bearer ${puppet.apiKey}`)).body.balance as number;
    expect(balance).toBeGreaterThan(1000 + MARKETS);

    await t.services.benchmarkFolder.runOnce(clock.now());
    t.services.benchmark.invalidate();

    // No forecasting record: nothing scored, not ranked, on no benchmark board for any metric or audience.
    for (const season of ['all', clock.now().toISOString().slice(0, 7)]) {
      const record = (await t.api.get('/api/benchmark/record').query({ userId: puppet.id, season })).body;
      expect(record).toMatchObject({ resolvedMarkets: 0, ranked: false });
      expect(record.forecasts.questions).toBe(0);
      expect(record.entryPrice.questions).toBe(0);
      for (const metric of Object.keys(BENCHMARK_METRICS)) {
        for (const audience of ['bots', 'everyone']) {
          const board = await t.api.get('/api/benchmark/leaderboard').set('Authorization', `Bearer ${puppet.apiKey}`).query({ season, metric, audience });
          expect(board.status).toBe(200);
          expect(board.body.entries.map((e: { userId: string }) => e.userId)).not.toContain(puppet.id);
          expect(board.body.you.rank).toBeNull();
        }
      }
    }

    // The reputation's forecasting figures leave community markets out.
    const rep = (await t.api.get(`/api/agents/${puppet.id}/reputation`)).body;
    expect(rep.forecasting.settledPositions).toBe(0);
    expect(rep.recentSettled).toEqual([]);

    // The SPEC boards: a market with one trader besides its creator is too thin to count, on every metric and period.
    for (const metric of ['pnl', 'accuracy', 'volume', 'trades']) {
      for (const period of ['weekly', 'monthly', 'alltime']) {
        const res = await t.api.get('/api/leaderboard').set('Authorization', `Bearer ${puppet.apiKey}`).query({ period, metric, audience: 'everyone' });
        expect(res.status).toBe(200);
        expect(res.body.leaderboard.map((r: { user: { id: string } }) => r.user.id)).not.toContain(puppet.id);
        expect(res.body.currentUserRank).toBeNull();
      }
    }
  });
});
