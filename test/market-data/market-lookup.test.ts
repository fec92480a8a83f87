import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { seedMarket, resolveMarket } from '../support/markets';
import { findTradableToken } from '../../src/market-data/market-lookup';

describe.each(backends())('findTradableToken on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
  });
  afterAll(async () => t.close());

  test('when the token belongs to the market, then inside a transaction it answers the market, its status and the side', async () => {
    const m = await seedMarket(t.services.db);
    const found = await t.services.db.transaction((tx) => Promise.all([findTradableToken(tx, m.id, m.yes), findTradableToken(tx, m.slug, m.no)]));
    expect(found).toEqual([
      { marketId: m.id, slug: m.slug, status: 'active', tokenId: m.yes, outcome: 'YES' },
      { marketId: m.id, slug: m.slug, status: 'active', tokenId: m.no, outcome: 'NO' },
    ]);
  });

  test('when the token is of another market or unknown, then null', async () => {
    const a = await seedMarket(t.services.db);
    const b = await seedMarket(t.services.db);
    expect(await findTradableToken(t.services.db, a.id, b.yes)).toBeNull();
    expect(await findTradableToken(t.services.db, 'nope', a.yes)).toBeNull();
    expect(await findTradableToken(t.services.db, a.id, 'nope')).toBeNull();
  });

  test('when the market has resolved, then the token is still found, with status resolved', async () => {
    const m = await seedMarket(t.services.db);
    await resolveMarket(t.services.db, m.id, 'NO');
    expect(await findTradableToken(t.services.db, m.id, m.yes)).toMatchObject({ status: 'resolved', outcome: 'YES' });
  });
});
