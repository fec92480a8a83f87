import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { addMirrorMarkets, type MirrorMarket } from '../support/markets';
import { SCAN_LIMIT } from '../../src/market-data/market-search';
import { SEARCH_TERMS_MAX_AGE_MS } from '../../src/market-data/market-service';

let now = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => new Date(now) };

/**
 * More markets than search's walk reads (SCAN_LIMIT), with words of every frequency: "alpha" in nearly
 * all, "beta" in one in ten, "gamma" in a handful (mostly among the least traded), and a family of
 * lexemes sharing the prefix "the" ("the", "then", "there", "theory") in most. Volumes are distinct.
 */
function corpus(): MirrorMarket[] {
  const n = SCAN_LIMIT + 500;
  return Array.from({ length: n }, (_, i) => {
    const words = [i % 20 === 0 ? 'omega' : 'alpha', ['the', 'then', 'there', 'theory'][i % 4]!, `n${i % 50}`];
    if (i % 10 === 3) words.push('beta');
    if (i % 500 === 7 || i > n - 6) words.push('gamma');
    if (i % 7 === 0) words.push('delta');
    return { id: `m-${i}`, question: `Will ${words.join(' ')} happen?`, volume: (i * 7919) % n };
  });
}

/** Each road: the walk ('alpha bet'), no walk and the rarest term alone ('gamma the'), the walk then the rarest term, the walk then every term ('delta n13'). */
const QUERIES = [
  'alpha',
  'alp',
  'beta',
  'gamma',
  'gamma the',
  'gamma th',
  'beta the',
  'alpha bet',
  'alpha gam',
  'omega the',
  'omega delta',
  'delta beta',
  'delta gam',
  'theory n3',
  'n7 gamma',
  'n3 bet',
  'beta n13',
  'there gamma',
  'delta n13',
];

describe.each(backends())('search term counts on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false });
    await addMirrorMarkets(t.services.db, corpus(), now);
  });
  afterAll(async () => t.close());

  /** The true answer, by brute force: every match, highest volume first, at most 8. */
  async function bruteForce(tsquery: string): Promise<string[]> {
    const rows = await t.services.db.query<{ id: string }>(
      `SELECT id FROM markets WHERE status = 'active' AND search_tsv @@ to_tsquery('simple', $1) ORDER BY volume DESC NULLS LAST, id LIMIT 8`,
      [tsquery],
    );
    return rows.map((r) => r.id);
  }

  async function searchIds(q: string): Promise<string[]> {
    const res = await t.api.get('/api/search').query({ q });
    expect(res.status).toBe(200);
    return res.body.markets.map((m: { id: string }) => m.id);
  }

  const asTsquery = (q: string) => {
    const ws = q.split(' ');
    return ws.map((w, i) => (i === ws.length - 1 ? `${w}:*` : w)).join(' & ');
  };

  test('without counts, and with them (every road of the plan), search returns exactly the brute-force top 8', async () => {
    await t.services.db.query('DELETE FROM search_terms_state');
    for (const q of QUERIES) expect([q, await searchIds(q)]).toEqual([q, await bruteForce(asTsquery(q))]);
    expect(await t.services.markets.refreshSearchTerms(clock.now())).toBe(true);
    const [state] = await t.services.db.query<{ active_markets: number }>('SELECT active_markets FROM search_terms_state');
    expect(state!.active_markets).toBe(SCAN_LIMIT + 500);
    for (const q of QUERIES) {
      const expected = await bruteForce(asTsquery(q));
      expect([q, expected.length > 0]).toEqual([q, true]);
      expect([q, await searchIds(q)]).toEqual([q, expected]);
    }
  });

  test('the counts are the number of active markets holding each lexeme', async () => {
    await t.services.db.query('SELECT refresh_search_terms($1)', [clock.now().toISOString()]);
    const rows = await t.services.db.query<{ lexeme: string; docs: number }>(
      `SELECT lexeme, docs FROM search_terms WHERE lexeme IN ('alpha', 'beta', 'gamma', 'then', 'will') ORDER BY lexeme`,
    );
    const n = SCAN_LIMIT + 500;
    const count = (f: (i: number) => boolean) => Array.from({ length: n }, (_, i) => i).filter(f).length;
    expect(rows).toEqual([
      { lexeme: 'alpha', docs: count((i) => i % 20 !== 0) },
      { lexeme: 'beta', docs: count((i) => i % 10 === 3) },
      { lexeme: 'gamma', docs: count((i) => i % 500 === 7 || i > n - 6) },
      { lexeme: 'then', docs: count((i) => i % 4 === 1) },
      { lexeme: 'will', docs: n },
    ]);
  });

  test('after a sync the leader recounts them, at most once per SEARCH_TERMS_MAX_AGE_MS', async () => {
    await t.services.db.query('DELETE FROM search_terms_state');
    const first = await t.services.marketSync.runOnce({ force: true });
    expect(first.status).toBe('ran');
    const [state] = await t.services.db.query<{ refreshed_at: Date }>('SELECT refreshed_at FROM search_terms_state');
    expect(new Date(state!.refreshed_at).getTime()).toBe(now);
    now += SEARCH_TERMS_MAX_AGE_MS - 1000;
    expect(await t.services.markets.refreshSearchTerms(clock.now())).toBe(false);
    now += 2000;
    expect(await t.services.markets.refreshSearchTerms(clock.now())).toBe(true);
  });
});
