import { randomUUID } from 'node:crypto';
import { oneBackend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { signedInPerson } from '../support/identity';
import { mcpCall } from '../support/rpc';
import { ControlledPrices, resolveMarket } from '../support/markets';
import { longQuestion, seedRealisticMarkets } from '../support/realistic-markets';
import { appendEvent } from '../../src/domain/events/account-events';
import { ALL_METHODS } from '../../src/methods';
import { onSurface } from '../../src/registry/method';
import { isListMethod, maxPageOf, PAGE_BYTES_BOUND } from '../../src/registry/pages';
import { currentSuite } from '../../src/domain/replay/replay-suite';
import { MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';

/**
 * Issue 51 item 2: every list method states its maximum page, and its answer at that page, over realistic data at full
 * length (long questions, descriptions and outcome labels, full rationales and comments), stays within 25,000 tokens
 * (100,000 bytes). Each is called as a model calls it: an MCP tools/call, measured as the text the model reads (REST for
 * the session-only ones). A list method added to the registry without a walk here fails the first test.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LIST_METHODS = ALL_METHODS.filter(isListMethod);

const maxPage = (name: string) => maxPageOf(ALL_METHODS.find((m) => m.name === name)!)!;

/** Text as long as a field allows, readable and varied, so no compression of the measure flatters it. */
const prose = (n: number, seed: number) => {
  const words = ['resolution', 'according', 'official', 'source', 'announced', 'before', 'deadline', 'market', 'outcome', 'reported', 'federal', 'election'];
  let out = '';
  for (let i = 0; out.length < n; i += 1) out += `${words[(seed * 7 + i * 5) % words.length]} `;
  return out.slice(0, n).trimEnd().padEnd(n, '.');
};

/** What a model reads of one answer: the MCP tool result's text (or, off MCP, the REST body), and the rows it holds. */
/** A seeding call's answer, or its error body as the failure. */
function ok(res: { status: number; body: unknown }, status = 200): void {
  if (res.status !== status) throw new Error(`seeding call answered ${res.status}: ${JSON.stringify(res.body)}`);
}

interface Measure {
  bytes: number;
  rows: number;
}

// One backend (PostgreSQL where set): an answer's size does not depend on the database, and the fill costs a minute and a half.
describe.each(oneBackend())('list methods at their maximum page on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let trader: { id: string; apiKey: string };
  let person: { id: string; cookie: string };
  let agents: Array<{ id: string; apiKey: string }>;
  let webhookId: string;
  let marketIds: string[];
  const sizes = new Map<string, Array<[string, number, number]>>();

  /** A tools/call of the method through the `all` toolset, measured as the model reads it: the content text. */
  async function viaMcp(name: string, args: Json, key: string | null, rows: (answer: Json) => number): Promise<Measure> {
    const headers: Record<string, string> = { 'X-MCP-Toolsets': 'all', ...(key ? { Authorization: `Bearer ${key}` } : {}) };
    const answer = await mcpCall(t, name, args, headers);
    const result = answer.result as Json;
    expect(result?.isError).toBeFalsy();
    const text = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
    // The same answer as structuredContent: a host that hands the model that instead reads as many bytes.
    const structured = Buffer.byteLength(JSON.stringify(result.structuredContent));
    return { bytes: Math.max(Buffer.byteLength(text), structured), rows: rows(result.structuredContent as Json) };
  }

  async function viaRest(path: string, query: Json, headers: Record<string, string>, rows: (body: Json) => number): Promise<Measure> {
    const res = await t.api.get(path).query(query).set(headers);
    ok(res, 200);
    return { bytes: Buffer.byteLength(res.text), rows: rows(res.body as Json) };
  }

  /** Each list method's calls at its maximum page: one per variant whose answer may be the largest. */
  const walks: Record<string, () => Promise<Array<[string, Measure]>>> = {
    list_events: async () => [['all types', await viaMcp('list_events', { limit: maxPage('list_events') }, trader.apiKey, (a) => a.events.length)]],
    search_prediction_markets: async () => [
      ['q=federal', await viaMcp('search_prediction_markets', { q: 'federal', limit: maxPage('search_prediction_markets') }, null, (a) => a.markets.length)],
    ],
    list_markets: async () => [['sparkline', await viaMcp('list_markets', { limit: maxPage('list_markets'), sparkline: true }, null, (a) => a.markets.length)]],
    list_news: async () => [['all markets', await viaMcp('list_news', { limit: maxPage('list_news') }, null, (a) => a.news.length)]],
    list_trades: async () => [['own', await viaMcp('list_trades', { limit: maxPage('list_trades') }, trader.apiKey, (a) => a.trades.length)]],
    list_orders: async () => [['all', await viaMcp('list_orders', { limit: maxPage('list_orders') }, trader.apiKey, (a) => a.orders.length)]],
    list_forecasts: async () => [['own', await viaMcp('list_forecasts', { limit: maxPage('list_forecasts') }, trader.apiKey, (a) => a.forecasts.length)]],
    get_benchmark_leaderboard: async () => [
      [
        'alpha, everyone',
        await viaMcp(
          'get_benchmark_leaderboard',
          { season: 'all', metric: 'alpha', audience: 'everyone', limit: maxPage('get_benchmark_leaderboard') },
          agents[0]!.apiKey,
          (a) => a.entries.length,
        ),
      ],
    ],
    export_benchmark_forecasts: async () => {
      const out: Array<[string, Measure]> = [];
      for (const part of ['forecasts', 'trades', 'equity', 'markets', 'prices'])
        for (const format of ['json', 'jsonl', 'csv']) {
          const measure = await viaMcp(
            'export_benchmark_forecasts',
            { season: 'all', part, format, limit: maxPage('export_benchmark_forecasts') },
            null,
            (a) =>
              format === 'json'
                ? (a[part] as unknown[]).length
                : String(a.text)
                    .split('\n')
                    .filter((l) => l !== '').length - (format === 'csv' ? 1 : 0),
          );
          out.push([`${part} ${format}`, measure]);
        }
      return out;
    },
    get_replay_suite_board: async () => [
      ['current suite', await viaMcp('get_replay_suite_board', { limit: maxPage('get_replay_suite_board') }, agents[0]!.apiKey, (a) => a.entries.length)],
    ],
    get_leaderboard: async () => [
      [
        'trades, everyone',
        await viaMcp(
          'get_leaderboard',
          { period: 'alltime', metric: 'trades', audience: 'everyone', limit: maxPage('get_leaderboard') },
          agents[0]!.apiKey,
          (a) => a.leaderboard.length,
        ),
      ],
    ],
    get_notifications: async () => [
      [
        'REST (session only)',
        await viaRest('/api/notifications', { limit: maxPage('get_notifications') }, { Cookie: person.cookie }, (b) => b.notifications.length),
      ],
    ],
    list_community_markets: async () => [
      [
        'full length',
        await viaMcp('list_community_markets', { category: 'Politics', limit: maxPage('list_community_markets') }, null, (a) => a.markets.length),
      ],
      [
        'as most are written',
        await viaMcp('list_community_markets', { category: 'Economy', limit: maxPage('list_community_markets') }, null, (a) => a.markets.length),
      ],
      [
        'fields question,status',
        await viaMcp(
          'list_community_markets',
          { category: 'Politics', limit: maxPage('list_community_markets'), fields: ['question', 'status'] },
          null,
          (a) => a.markets.length,
        ),
      ],
    ],
    list_comments: async () => [
      ['one market', await viaMcp('list_comments', { marketId: marketIds[0], limit: maxPage('list_comments') }, null, (a) => a.comments.length)],
    ],
    list_webhook_deliveries: async () => [
      [
        'one webhook',
        await viaMcp('list_webhook_deliveries', { id: webhookId, limit: maxPage('list_webhook_deliveries') }, trader.apiKey, (a) => a.deliveries.length),
      ],
    ],
  };

  beforeAll(async () => {
    t = await startTestApp(backend, {
      prices,
      background: false,
      config: { SIM_INFORMATION: 'on', SIM_SPEED: 60, OUTBOUND_ALLOW_PRIVATE: 'true' },
    });
    const db = t.services.db;
    await t.services.marketSync.runOnce();
    // Markets as long as Polymarket's, each with a day of hourly prices (a sparkline of 24 points).
    marketIds = await seedRealisticMarkets(db, 300);
    await db.query(
      `INSERT INTO price_snapshots (token_id, t, price_micro)
       SELECT k.token_id, now() - h * interval '1 hour', 400000 + h * 1237 FROM market_tokens k CROSS JOIN generate_series(1, 25) h
       WHERE k.market_id = ANY($1::text[])`,
      [marketIds],
    );
    const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
    for (const id of marketIds) {
      const tokens = await db.query<{ token_id: string }>('SELECT token_id FROM market_tokens WHERE market_id = $1', [id]);
      for (const k of tokens) prices.set(k.token_id, 0.409123, 0.415321);
    }
    trader = await registerAgent(t, 'Pager');
    const hook = await t.api
      .post('/api/webhooks')
      .set(bearer(trader.apiKey))
      .send({ url: 'http://127.0.0.1:9/hooks/paper-trading-account-events', description: prose(200, 1) });
    ok(hook, 201);
    webhookId = hook.body.webhook.id;

    // The trader: trades with a stated probability, forecasts with full rationales, resting orders; then events enough.
    const tokenOf = async (id: string, outcome: string) =>
      (await db.query<{ token_id: string }>('SELECT token_id FROM market_tokens WHERE market_id = $1 AND outcome = $2', [id, outcome]))[0]!.token_id;
    const traded = marketIds.slice(0, 120);
    for (const [i, id] of traded.entries()) {
      const slug = (await db.query<{ slug: string }>('SELECT slug FROM markets WHERE id = $1', [id]))[0]!.slug;
      const res = await t.api
        .post('/api/trade')
        .set(bearer(trader.apiKey))
        .send({
          marketId: id,
          marketSlug: slug,
          tokenId: await tokenOf(id, 'YES'),
          outcome: 'YES',
          amount: 3.123457,
          probability: Number((0.512345 + i / 1e6).toFixed(6)),
        });
      ok(res, 200);
      const f = await t.api
        .post('/api/forecasts')
        .set(bearer(trader.apiKey))
        .send({ marketId: id, probability: 0.612345, rationale: prose(280, i) });
      ok(f, 200);
    }
    for (let b = 0; b < 6; b += 1) {
      const orders = [];
      for (let i = 0; i < 20; i += 1) {
        const id = marketIds[150 + b * 20 + i]!;
        orders.push({
          tokenId: await tokenOf(id, 'YES'),
          side: 'BUY',
          limitPrice: 0.123457,
          amount: 1.234567,
          timeInForce: 'GTC',
          clientOrderId: `page-bound-${b}-${i}-${'x'.repeat(30)}`,
        });
      }
      const res = await t.api.post('/api/orders/batch').set(bearer(trader.apiKey)).send({ orders });
      ok(res, 200);
    }
    const events = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM account_events WHERE user_id = $1', [trader.id]);
    for (let i = events[0]!.n; i < maxPage('list_events') + 10; i += 1) {
      await db.transaction((tx) =>
        appendEvent(tx, trader.id, 'notification', { id: randomUUID(), type: 'resolution', title: prose(80, i), message: prose(240, i) }, new Date()),
      );
    }
    // Each event is a delivery to the webhook; one attempt each (the address refuses), as a failing receiver leaves them.
    await t.services.webhookWorker.runOnce();
    // Comments of full length on one market, by several authors.
    for (let i = 0; i < maxPage('list_comments') + 5; i += 1) {
      const res = await t.api
        .post('/api/comments')
        .set(bearer(trader.apiKey))
        .send({ marketId: marketIds[0], body: prose(1000, i) });
      ok(res, 201);
    }
    // The traded markets resolve: their forecasts and trades are the season's export.
    for (const id of traded) await resolveMarket(db, id, 'YES');
    await t.services.settlement.runOnce(t.services.clock.now());

    // Ranked accounts for the boards, with names of the longest length.
    agents = [];
    // The board a caller reads by default: the suite current at the app's clock.
    const suite = currentSuite(t.services.clock.now().getTime()).name;
    for (let i = 0; i < 105; i += 1) agents.push(await registerAgent(t, `Ranked Trader ${String(i).padStart(3, '0')}`));
    for (const [i, a] of agents.entries()) {
      await db.query(
        `INSERT INTO trader_activity (user_id, is_agent, display_name, xp, a_trades, a_volume) VALUES ($1, true, $2, 123456, $3, 1234567.891234)
         ON CONFLICT (user_id) DO UPDATE SET a_trades = EXCLUDED.a_trades`,
        [a.id, `Ranked Trader ${String(i).padStart(5, '0')}`, 1000 + i],
      );
      const estimate = (v: number) => ({ value: v, n: MIN_RESOLVED_MARKETS + i, low: v - 0.0123456, high: v + 0.0123456 });
      await db.query(
        `INSERT INTO benchmark_records (user_id, season, audience, resolved_markets, alpha, record, computed_at)
         VALUES ($1, 'all', 'agents', $2, $3, $4::jsonb, now()) ON CONFLICT DO NOTHING`,
        [a.id, MIN_RESOLVED_MARKETS + i, 0.0123456 + i / 1e5, JSON.stringify({ forecasts: { alpha: estimate(0.0123456 + i / 1e5) } })],
      );
      for (let s = 0; s < 12; s += 1) {
        await db.query(`INSERT INTO suite_results (run_id, owner_id, suite, scenario, alpha, ended_at) VALUES ($1, $2, $3, $4, $5, now())`, [
          randomUUID().replace(/-/g, '').slice(0, 12),
          a.id,
          suite,
          `${suite}/${String(s).padStart(2, '0')}`,
          0.0123456 + (i * s) / 1e5,
        ]);
      }
    }
    t.services.trackRecord.leaderboard.invalidate();
    t.services.benchmark.invalidate();

    // A person's notifications at full length.
    person = await signedInPerson(t);
    for (let i = 0; i < maxPage('get_notifications') + 5; i += 1) {
      await db.query(
        `INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES (gen_random_uuid(), $1, 'resolution', $2, $3, $4, now() - $5 * interval '1 second')`,
        [person.id, prose(80, i), prose(240, i), `ref-${i}-${marketIds[i]}`, i],
      );
    }
    // A maker funds 19 markets at the least liquidity from their 1,000 dollars (a sign-up per market cost a second each).
    const MARKETS_A_MAKER = 19;
    let maker = await signedInPerson(t);
    // Community markets as long as the SPEC allows: 200-character questions, 1000-character descriptions, 10 outcomes of 50.
    for (let i = 0; i < maxPage('list_community_markets') + 2; i += 1) {
      if (i > 0 && i % MARKETS_A_MAKER === 0) maker = await signedInPerson(t);
      const res = await t.api
        .post('/api/user-markets')
        .set('Cookie', maker.cookie)
        .set('Origin', maker.origin)
        .send({
          question: `${prose(190, i)} #${String(i).padStart(6, '0')}?`.slice(0, 200),
          description: prose(1000, i),
          category: 'Politics',
          outcomes: Array.from({ length: 10 }, (_, o) => `${prose(47, i + o)} ${o}`.slice(0, 50)),
          endDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          imageUrl: `https://images.example.com/community/${'market-image-'.repeat(8)}${i}.png`,
          liquidity: 50,
        });
      ok(res, 200);
    }
    // And as most are written (Economy): a Polymarket-length question, a paragraph of criteria, Yes and No.
    maker = await signedInPerson(t);
    for (let i = 0; i < maxPage('list_community_markets') + 2; i += 1) {
      if (i > 0 && i % MARKETS_A_MAKER === 0) maker = await signedInPerson(t);
      const res = await t.api
        .post('/api/user-markets')
        .set('Cookie', maker.cookie)
        .set('Origin', maker.origin)
        .send({
          question: longQuestion(i),
          description: prose(400, i),
          category: 'Economy',
          outcomes: ['Yes', 'No'],
          liquidity: 50,
          endDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        });
      ok(res, 200);
    }
  }, 600_000);
  afterAll(async () => {
    const lines = [...sizes.entries()].flatMap(([name, rows]) =>
      rows.map(([variant, bytes, n]) => `${name.padEnd(28)} ${variant.padEnd(22)} ${String(n).padStart(5)} rows ${String(bytes).padStart(7)} B`),
    );
    process.stdout.write(`largest answer of each list method at its maximum page (bound ${PAGE_BYTES_BOUND} B):\n${lines.join('\n')}\n`);
    await t.close();
  });

  test('when list_community_markets is paged at its maximum page over markets at full length, then each page ends within the bound and the next goes on from the first market left out', async () => {
    const limit = maxPage('list_community_markets');
    const all = await t.services.db.query<{ id: string }>(`SELECT id FROM community_markets WHERE category = 'Politics' ORDER BY created_at DESC, id DESC`);
    expect(all.length).toBeGreaterThan(limit);
    const seen: string[] = [];
    const pages: Array<[number, number]> = [];
    let cursor: string | null | undefined;
    do {
      const answer = await mcpCall(t, 'list_community_markets', { category: 'Politics', limit, ...(cursor ? { cursor } : {}) }, { 'X-MCP-Toolsets': 'all' });
      const result = answer.result as Json;
      expect(result?.isError).toBeFalsy();
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      const page = result.structuredContent as { markets: Array<{ id: string; description: string }>; nextCursor: string | null };
      pages.push([page.markets.length, Buffer.byteLength(text)]);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(PAGE_BYTES_BOUND);
      // Ended by the bound, not short of data: one more market of this length would not have fitted.
      if (page.nextCursor && page.markets.length < limit)
        expect(Buffer.byteLength(text) + Buffer.byteLength(JSON.stringify(page.markets[0])) + 1).toBeGreaterThan(PAGE_BYTES_BOUND);
      seen.push(...page.markets.map((m) => m.id));
      cursor = page.nextCursor;
    } while (cursor);
    process.stdout.write(`list_community_markets at limit ${limit}, pages (markets, bytes): ${JSON.stringify(pages)}\n`);
    // Every market once, in the list's order: none lost at a page's early end, none repeated on the next.
    expect(seen).toEqual(all.map((r) => r.id));
    expect(pages.length).toBeGreaterThan(Math.ceil(all.length / limit));
    expect(pages[0]![0]).toBeLessThan(limit);
  });

  test('when the registry is read, then every list method states its maximum page and is walked here', () => {
    expect(LIST_METHODS.length).toBeGreaterThan(10);
    for (const m of LIST_METHODS) expect([m.name, maxPageOf(m)]).toEqual([m.name, expect.any(Number)]);
    expect(Object.keys(walks).sort()).toEqual(LIST_METHODS.map((m) => m.name).sort());
  });

  test.each(LIST_METHODS.map((m) => m.name))('when %s is called at its maximum page, then its answer is a full page within the bound', async (name) => {
    const method = ALL_METHODS.find((m) => m.name === name)!;
    const walk = walks[name];
    if (!walk) throw new Error(`${name} is a list method with no walk in this test`);
    const measured = await walk();
    sizes.set(
      name,
      measured.map(([variant, m]) => [variant, m.bytes, m.rows]),
    );
    // Measured at the maximum page: the largest answer is a full one (the parts of an export some data leaves short; a page
    // of full-length community markets ends early, which the test below walks, but not one that names its fields).
    expect(Math.max(...measured.map(([, m]) => m.rows))).toBe(maxPageOf(method));
    for (const [variant, m] of measured) expect([name, variant, m.bytes <= PAGE_BYTES_BOUND, m.bytes]).toEqual([name, variant, true, m.bytes]);
    // Off MCP only what the SPEC keeps off it (session methods).
    expect(onSurface(method, 'mcp')).toBe(name !== 'get_notifications');
  });
});
