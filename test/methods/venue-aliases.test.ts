import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { createCommunityMarket, type CreatedCommunityMarket } from '../support/community';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * Issue 50 item 2: a community market trades through the venue-agnostic methods (quote_trade, paper_trade,
 * sell_position), the venue told from the market; the community methods stay as deprecated aliases. The same trade on
 * two identical pools, one through each method, must give the same fill and the same transfers.
 */
describe.each(backends())('venue aliases on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());

  /** A market's transfers with the market's and the accounts' ids replaced by their roles, oldest first. */
  async function transfersOf(m: CreatedCommunityMarket, trader: string): Promise<string[]> {
    const rows = await t.services.db.query<{ debit_account: string; credit_account: string; asset: string; amount_micro: bigint; kind: string }>(
      `SELECT debit_account, credit_account, asset, amount_micro, kind FROM transfers
       WHERE (debit_account = $1 OR credit_account = $1) AND kind <> 'pool_fund' ORDER BY id`,
      [`pool:${m.id}`],
    );
    const role = (account: string) =>
      account === `pool:${m.id}` ? 'pool' : account === `cash:${trader}` ? 'trader cash' : account.startsWith('position:') ? 'trader position' : account;
    return rows.map((r) => `${r.kind}: ${role(r.debit_account)} → ${role(r.credit_account)} ${BigInt(r.amount_micro)} ${r.asset === 'USD' ? 'USD' : 'shares'}`);
  }

  test('when the same community trade goes through quote_trade, paper_trade and sell_position or through the community methods, then the fills and transfers are the same', async () => {
    const [viaAlias, viaOne] = [
      await createCommunityMarket(t, 'Will the harbour ferry run on time all week?', 200),
      await createCommunityMarket(t, 'Will the harbour ferry run on time all month?', 200),
    ];
    const [a, b] = [await registerAgent(t, 'Alias'), await registerAgent(t, 'One')];

    const quotedAlias = await t.api.post('/api/user-markets/quote').send({ side: 'BUY', tokenId: viaAlias.yes, amount: 25 });
    const quotedOne = await t.api.post('/api/trade/quote').send({ side: 'BUY', tokenId: viaOne.yes, amount: 25 });
    expect(quotedAlias.status).toBe(200);
    expect(quotedOne.status).toBe(200);
    expect(quotedOne.body).toMatchObject({
      marketId: viaOne.id,
      outcome: 'YES',
      outcomeLabel: 'Yes',
      source: 'community',
      shares: quotedAlias.body.shares,
      amount: quotedAlias.body.amount,
      price: quotedAlias.body.avgPrice,
      bestPrice: quotedAlias.body.priceBefore,
      worstPrice: quotedAlias.body.priceAfter,
      fee: 0,
    });

    const boughtAlias = await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: viaAlias.yes, amount: 25 });
    const boughtOne = await t.api
      .post('/api/trade')
      .set(bearer(b.apiKey))
      .send({ marketId: viaOne.id, marketSlug: viaOne.slug, tokenId: viaOne.yes, outcome: 'YES', amount: 25 });
    expect(boughtAlias.status).toBe(200);
    expect(boughtOne.status).toBe(200);
    // The fill, as paper_trade answers it; the quote said the same before.
    const fill = { quantity: boughtAlias.body.quantity, price: boughtAlias.body.price, totalCost: 25, balance: boughtAlias.body.balance };
    expect(boughtOne.body).toMatchObject({ success: true, ...fill });
    expect(boughtOne.body.quantity).toBe(quotedOne.body.shares);

    const soldAlias = await t.api.post(`/api/user-markets/positions/${boughtAlias.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 10 });
    const soldOne = await t.api.post(`/api/positions/${boughtOne.body.positionId}/sell`).set(bearer(b.apiKey)).send({ quantity: 10 });
    expect(soldAlias.status).toBe(200);
    expect(soldOne.status).toBe(200);
    for (const k of ['quantitySold', 'price', 'proceeds', 'realizedPnl', 'isClosed', 'balance']) expect(soldOne.body[k]).toBe(soldAlias.body[k]);

    const [transfersAlias, transfersOne] = [await transfersOf(viaAlias, a.id), await transfersOf(viaOne, b.id)];
    expect(transfersOne).toEqual(transfersAlias);
    expect(transfersOne).toEqual([
      `buy: trader cash → pool 25000000 USD`,
      `buy: pool → trader position ${Math.round(fill.quantity * 1e6)} shares`,
      'sell: trader position → pool 10000000 shares',
      `sell: pool → trader cash ${Math.round(soldOne.body.proceeds * 1e6)} USD`,
    ]);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when a venue alias is called, then it answers with its own Deprecation and Sunset even in strict mode, and its OpenAPI operation is deprecated', async () => {
    const m = await createCommunityMarket(t, 'Will the harbour bridge open in May?');
    const a = await registerAgent(t, 'Strict');
    const strict = { Prefer: 'strict-vocabulary' };
    const alias = await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).set(strict).send({ tokenId: m.yes, amount: 5 });
    const one = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .set(strict)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5 });
    expect([alias.status, one.status]).toEqual([200, 200]);
    expect(alias.headers['preference-applied']).toBe('strict-vocabulary');
    expect(alias.body.averagePrice).toBeUndefined();
    expect({ deprecation: alias.headers.deprecation, sunset: alias.headers.sunset }).toEqual({
      deprecation: `@${Date.UTC(2026, 11, 6) / 1000}`,
      sunset: new Date(Date.UTC(2027, 5, 1)).toUTCString(),
    });
    expect(one.headers.deprecation).toBeUndefined();
    const doc = (await t.api.get('/openapi.json')).body;
    expect(doc.paths['/api/user-markets/trade'].post.deprecated).toBe(true);
    expect(doc.paths['/api/user-markets/quote'].post.deprecated).toBe(true);
    expect(doc.paths['/api/user-markets/positions/{id}/sell'].post.deprecated).toBe(true);
    expect(doc.paths['/api/trade'].post.deprecated).toBeUndefined();
  });

  test('when paper_trade names a community token with another market, slug or outcome NO, then 400 and nothing changes; sized by shares it buys those shares', async () => {
    const [m, other] = [await createCommunityMarket(t, 'Will the lighthouse reopen this spring?'), await createCommunityMarket(t, 'Will the pier reopen?')];
    const a = await registerAgent(t, 'Named');
    const trade = (over: Record<string, unknown>) =>
      t.api
        .post('/api/trade')
        .set(bearer(a.apiKey))
        .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5, ...over });
    for (const over of [{ marketId: other.id }, { marketSlug: other.slug }, { outcome: 'NO' }]) {
      const r = await trade(over);
      expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body.balance).toBe(1000);
    const quoted = await t.api.post('/api/trade/quote').send({ side: 'BUY', tokenId: m.yes, amount: 5 });
    const byShares = await trade({ amount: undefined, shares: quoted.body.shares });
    expect(byShares.status).toBe(200);
    expect(byShares.body.quantity).toBe(quoted.body.shares);
    // The cost of exactly those shares: at most the 5 dollars that bought them (floored shares), within a micro-dollar.
    expect(byShares.body.totalCost).toBeLessThanOrEqual(5);
    expect(byShares.body.totalCost).toBeGreaterThan(4.99999);
  });

  test('when a community buy states a forecast, then it is recorded with the buy through the intent, and a buy refused by its limit records none', async () => {
    const m = await createCommunityMarket(t, 'Will the ferry timetable change in June?');
    const a = await registerAgent(t, 'Forecaster');
    const refused = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: m.yes, amount: 10, maxAvgPrice: 0.01, probabilities: [0.7, 0.3] });
    expect([refused.status, refused.body.code]).toEqual([400, 'PRICE_LIMIT_EXCEEDED']);
    const none = await t.services.db.query('SELECT 1 FROM forecasts WHERE user_id = $1', [a.id]);
    expect(none).toHaveLength(0);
    const bought = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: m.yes, amount: 10, probabilities: [0.7, 0.3] });
    expect(bought.status).toBe(200);
    const rows = await t.services.db.query<{ market_id: string; source: string; probabilities_micro: Array<string | bigint> }>(
      'SELECT market_id, source, probabilities_micro FROM forecasts WHERE user_id = $1',
      [a.id],
    );
    expect(rows.map((r) => ({ market: r.market_id, source: r.source, p: r.probabilities_micro.map(String) }))).toEqual([
      { market: m.id, source: 'buy_community_shares', p: ['700000', '300000'] },
    ]);
    // Probabilities that do not match the market's outcomes refuse the buy, which then changes nothing.
    const wrong = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: m.yes, amount: 10, probabilities: [0.2, 0.3, 0.5] });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await t.services.db.query('SELECT 1 FROM trades WHERE user_id = $1', [a.id])).toHaveLength(1);
  });
});
