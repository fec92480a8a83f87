import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { createCommunityMarket, type CreatedCommunityMarket } from '../../support/community';
import { withMigrationsUndone } from '../../support/migrations';
import { COMMUNITY_MIN_TRADERS, THIN_MARKET_SQL } from '../../../src/domain/track-record/record-rule';
import { ThickMarkets1700000000081 } from '../../../src/db/migrations/1700000000081-thick-markets';

type PlanNode = { 'Relation Name'?: string; 'Actual Loops'?: number; Plans?: PlanNode[] };

/** Every node of an EXPLAIN (FORMAT JSON) plan that reads `relation`. */
const nodesOn = (node: PlanNode, relation: string): PlanNode[] => [
  ...(node['Relation Name'] === relation ? [node] : []),
  ...(node.Plans ?? []).flatMap((p) => nodesOn(p, relation)),
];

/**
 * The thin-market check (record-rule.ts) under a busy community market: once the market has had COMMUNITY_MIN_TRADERS
 * buyers besides its creator, its pool says so (`thick_at`, the moment the trade that made it so was done), and the
 * check, sent with every trade's lock of the pool, no longer reads the market's trades, whose number only grows.
 */
describe.each(backends())('a community market thick enough for the record on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());

  const buyer = async () => (await registerAgent(t)) as { id: string; apiKey: string };
  const buy = async (who: { apiKey: string }, m: CreatedCommunityMarket) => {
    const res = await t.api.post('/api/user-markets/trade').set('Authorization', `Bearer ${who.apiKey}`).send({ tokenId: m.yes, amount: 1 });
    expect(res.status).toBe(200);
  };
  const thickAt = async (m: CreatedCommunityMarket) =>
    (await t.services.db.query<{ thick_at: Date | null }>('SELECT thick_at FROM community_pools WHERE market_id = $1', [m.id]))[0]!.thick_at;
  /** When `who` first bought in the market (the trade journal's moment). */
  const firstBuy = async (m: CreatedCommunityMarket, who: { id: string }) =>
    (
      await t.services.db.query<{ at: Date }>(`SELECT min(created_at) AS at FROM trades WHERE market_id = $1 AND user_id = $2 AND side = 'BUY'`, [m.id, who.id])
    )[0]!.at;
  const thin = async (m: CreatedCommunityMarket, userId: string) => (await t.services.db.query<{ thin: boolean }>(THIN_MARKET_SQL, [m.id, userId]))[0]!.thin;
  /** How many times the check, as the database runs it, read the trade journal. */
  const tradeReads = async (m: CreatedCommunityMarket, userId: string) => {
    const [row] = await t.services.db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${THIN_MARKET_SQL}`, [m.id, userId]);
    const raw = row!['QUERY PLAN'];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
    const reads = nodesOn(plan[0]!.Plan, 'trades');
    expect(reads.length).toBeGreaterThan(0); // the statement does name the journal
    return reads.reduce((n, r) => n + (r['Actual Loops'] ?? 0), 0);
  };

  test(`when the ${COMMUNITY_MIN_TRADERS}th buyer besides the creator buys, then the pool is stamped with that trade's moment and the check stops reading the market's trades, for anyone, at any number of trades`, async () => {
    const m = await createCommunityMarket(t, 'Will the ferry to the islands run on the first of May?');
    const stranger = await buyer();
    const buyers = [];
    for (let i = 1; i < COMMUNITY_MIN_TRADERS; i++) {
      const b = await buyer();
      await buy(b, m);
      await buy(b, m); // a second buy by the same account is no new trader
      buyers.push(b);
      expect(await thickAt(m)).toBeNull();
    }
    // Thin still: one short, for a new trader it would be the last one; the check reads the trades to say so.
    expect(await thin(m, buyers[0]!.id)).toBe(true);
    expect(await tradeReads(m, stranger.id)).toBeGreaterThan(0);

    const last = await buyer();
    await buy(last, m);
    const at = await firstBuy(m, last);
    expect((await thickAt(m))?.getTime()).toBe(at.getTime());

    // The moment stays the first one, whoever trades after.
    await buy(buyers[0]!, m);
    await buy(stranger, m);
    expect((await thickAt(m))?.getTime()).toBe(at.getTime());
    for (const who of [stranger, last, buyers[0]!]) {
      expect(await thin(m, who.id)).toBe(false);
      expect(await tradeReads(m, who.id)).toBe(0);
    }
  });

  test('when a market has fewer buyers besides its creator, then its pool is never stamped, and the migration fills the moment from the trade journal for a market that had them', async () => {
    const few = await createCommunityMarket(t, 'Will the lighthouse reopen to visitors by June?');
    for (let i = 1; i < COMMUNITY_MIN_TRADERS; i++) await buy(await buyer(), few);
    const many = await createCommunityMarket(t, 'Will the harbour swim take place in July?');
    const buyers = [];
    for (let i = 1; i <= COMMUNITY_MIN_TRADERS + 1; i++) {
      const b = await buyer();
      await buy(b, many);
      await buy(b, many);
      buyers.push(b);
    }
    const fifth = await firstBuy(many, buyers[COMMUNITY_MIN_TRADERS - 1]!);
    expect(await thickAt(few)).toBeNull();
    expect((await thickAt(many))?.getTime()).toBe(fifth.getTime());

    await withMigrationsUndone(t.services.db.dataSource, ThickMarkets1700000000081, async () => {
      const columns = await t.services.db.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'community_pools' AND column_name = 'thick_at'`);
      expect(columns).toEqual([]);
    });
    // Filled again from the journal: the first buy of the fifth buyer besides the creator, not kept from before.
    expect(await thickAt(few)).toBeNull();
    expect((await thickAt(many))?.getTime()).toBe(fifth.getTime());
  });
});
