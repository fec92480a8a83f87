import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { mcpCall, rpcCall } from '../support/rpc';
import { createCommunityMarket } from '../support/community';
import { seedRealisticMarkets } from '../support/realistic-markets';
import { ALL_METHODS } from '../../src/methods';
import { listItemOf, selectableNames } from '../../src/registry/fields';
import { outputSchemaOf } from '../../src/documents/json-schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The five fields a model scanning markets for a trade needs (beside id, always answered). */
const SCAN = ['question', 'yesPrice', 'volume', 'endDate', 'status'];

/**
 * What a scan of 80 markets (list_markets' maximum page) with SCAN costs, as a fraction of the whole answer's bytes (issue 51 item 2), over markets
 * shaped like Polymarket's (test/support/realistic-markets.ts). Measured 0.33 (with sparklines off); list_markets'
 * description states "about a third of the bytes".
 */
const SCAN_FRACTION = 0.35;

describe('fields in the registry', () => {
  test('every method that selects fields takes exactly its items’ field names, and its schema requires only id of them', () => {
    const selecting = ALL_METHODS.filter((m) => m.selectsFields);
    expect(selecting.map((m) => m.name).sort()).toEqual(['list_community_markets', 'list_markets', 'search_prediction_markets']);
    for (const m of selecting) {
      const item = listItemOf(m, m.selectsFields!)!;
      const names = selectableNames(item);
      expect(names).toContain('id');
      expect(names).toEqual(expect.arrayContaining(['question', 'status']));
      const items = (outputSchemaOf(m).properties as Json)[m.selectsFields!].items as Json;
      expect({ m: m.name, required: items.required }).toEqual({ m: m.name, required: ['id'] });
    }
  });
});

describe.each(backends())('fields on market lists on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
    await seedRealisticMarkets(t.services.db, 80, 'fld');
    await createCommunityMarket(t, 'Will the fields test community market resolve YES?');
  }, 180_000);
  afterAll(async () => t.close());

  test('when 80 markets are listed with five fields, then each holds those and id, and the answer costs a stated fraction of the whole', async () => {
    const whole = await t.api.get('/api/markets').query({ limit: 80 });
    const cut = await t.api.get('/api/markets').query({ limit: 80, fields: SCAN.join(',') });
    expect(whole.status).toBe(200);
    expect(cut.status).toBe(200);
    expect(whole.body.markets).toHaveLength(80);
    expect(cut.body.markets.map((m: Json) => m.id)).toEqual(whole.body.markets.map((m: Json) => m.id));
    for (const [i, m] of (cut.body.markets as Json[]).entries()) {
      expect(Object.keys(m).sort()).toEqual(['id', ...SCAN].sort());
      // The same values as the whole answer's.
      for (const f of SCAN) expect(m[f]).toEqual(whole.body.markets[i][f]);
    }
    expect(cut.body.nextCursor).toBe(whole.body.nextCursor);
    const fraction = cut.text.length / whole.text.length;
    expect(fraction).toBeLessThanOrEqual(SCAN_FRACTION);
    // The whole answer is every field of the item (the SPEC's Market, and the 24 h move).
    expect(Object.keys(whole.body.markets[0]).sort()).toEqual(
      selectableNames(
        listItemOf(
          ALL_METHODS.find((m) => m.name === 'list_markets')!,
          'markets',
        )!,
      )
        .filter((n) => n !== 'sparkline')
        .sort(),
    );
  });

  test('when a field list names an unknown field, then it is VALIDATION_ERROR listing the known ones, on every surface', async () => {
    const rest = await t.api.get('/api/search').query({ q: 'federal', fields: 'question,odds' });
    expect(rest.status).toBe(400);
    expect(rest.body.code).toBe('VALIDATION_ERROR');
    expect(rest.body.error).toMatch(/"yesPrice"/);
    expect(rest.body.error).toMatch(/"outcomeTokens"/);
    const rpc = await rpcCall(t, 'list_community_markets', { fields: ['bogus'] });
    expect(rpc.error.data.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(rpc.error)).toMatch(/creatorTradesNote/);
    const mcp = await mcpCall(t, 'list_markets', { fields: ['question', 'odds'] }, { 'X-MCP-Toolsets': 'markets' });
    expect(mcp.result.isError).toBe(true);
    expect(mcp.result.structuredContent.code).toBe('VALIDATION_ERROR');
    expect(mcp.result.structuredContent.error).toMatch(/"change24h"/);
  });

  test('when search and community lists name fields, then only those and id come back, on MCP as on REST; without fields the SPEC answer is whole', async () => {
    const search = await mcpCall(t, 'search_prediction_markets', { q: 'federal reserve', fields: ['yesPrice'] });
    const markets = search.result.structuredContent.markets as Json[];
    expect(markets).toHaveLength(8);
    for (const m of markets) expect(Object.keys(m).sort()).toEqual(['id', 'yesPrice']);
    const spec = await t.api.get('/api/search').query({ q: 'federal reserve' });
    expect(Object.keys(spec.body.markets[0])).toEqual(
      expect.arrayContaining(['id', 'slug', 'question', 'category', 'imageUrl', 'outcomeTokens', 'volume', 'endDate', 'status', 'winner']),
    );
    const community = await t.api.get('/api/user-markets').query({ fields: 'question,outcomeTokens' });
    expect(community.status).toBe(200);
    expect(community.body.markets.length).toBeGreaterThan(0);
    for (const m of community.body.markets as Json[]) expect(Object.keys(m).sort()).toEqual(['id', 'outcomeTokens', 'question']);
    const whole = await t.api.get('/api/user-markets');
    expect(Object.keys(whole.body.markets[0])).toEqual(expect.arrayContaining(['description', 'outcomes', 'creatorId', 'liquidity']));
  });
});
