import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ALL_METHODS } from '../../src/methods';
import { inputSchemaOf, outputSchemaOf } from '../../src/documents/json-schema';
import { withSharedDefs, withoutRestatements } from '../../src/documents/schema-compaction';
import { DATE_TIME_NOTE } from '../../src/documents/content-pages';
import { inlineRefs } from '../support/json-schema-refs';
import { AREAS } from '../../src/documents/service-info';

const BASE = 'https://paper.example.com';
const areasInUse = [...new Set(ALL_METHODS.map((m) => m.area))];
const localPath = (href: string) => href.slice(BASE.length) || '/';

describe.each(backends())('content pages on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { BASE_URL: BASE } });
  });
  afterAll(async () => t.close());

  test('when / is asked for markdown, then it answers text/markdown identical to llms.txt', async () => {
    const md = await t.api.get('/').set('Accept', 'text/markdown');
    expect(md.status).toBe(200);
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.headers.vary).toMatch(/Accept/);
    const llms = await t.api.get('/llms.txt');
    expect(llms.headers['content-type']).toMatch(/^text\/plain/);
    expect(md.text).toBe(llms.text);
    expect(md.text.startsWith('# ')).toBe(true);
    expect(md.text).toMatch(/\n> .*All money is virtual/);
  });

  test('when / is opened in a browser, then it is HTML linking every document, /mcp, /api/a2a and the agent card, and each link answers', async () => {
    const html = await t.api.get('/').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    const links = [...html.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    for (const path of ['/openapi.json', '/llms.txt', '/llms-full.txt', '/mcp', '/api/a2a', '/.well-known/agent-card.json', '/.well-known/ai-plugin.json']) {
      expect(links).toContain(`${BASE}${path}`);
    }
    for (const href of new Set(links.filter((l) => l.startsWith(BASE) && !l.endsWith('/mcp')).map((l) => l.split('#')[0]!))) {
      const res = await t.api.get(localPath(href));
      expect([href, res.status]).toEqual([href, 200]);
    }
  });

  test('when /docs/<area> is read, then it has every method of the area, as HTML or (Accept or .md) as markdown', async () => {
    for (const area of areasInUse) {
      const slug = AREAS[area].slug;
      const html = await t.api.get(`/docs/${slug}`);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      const md = await t.api.get(`/docs/${slug}`).set('Accept', 'text/markdown');
      expect(md.headers['content-type']).toMatch(/^text\/markdown/);
      const dotMd = await t.api.get(`/docs/${slug}.md`);
      expect(dotMd.headers['content-type']).toMatch(/^text\/markdown/);
      expect(dotMd.text).toBe(md.text);
      for (const m of ALL_METHODS.filter((x) => x.area === area)) {
        expect(html.text).toContain(`id="${m.name}"`);
        expect(md.text).toContain(`\n## ${m.name}\n`);
      }
    }
  });

  test('when an unknown docs page is asked for, then 404 NOT_FOUND as JSON', async () => {
    const res = await t.api.get('/docs/nope');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  test('when llms-full.txt is read, then every method is there in full: REST path, RPC name, MCP tool, auth, limit, schemas, examples, errors', async () => {
    const res = await t.api.get('/llms-full.txt').set('Accept', 'text/markdown');
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    const text = res.text;
    expect(text).toContain(DATE_TIME_NOTE);
    // 471.5 KB, 455.2 KB once descriptions were written for a model, 421.0 KB once the date-time pattern (400 bytes a
    // date) was left out beside its format and the rule stated once (DATE_TIME_NOTE); 423.1 KB with get_market_odds' five
    // trading figures (schema and example); 421.3 KB once input field descriptions no longer restated their schemas' bounds
    // and defaults (llms-full.txt keeps each method's full description; its brief is for tools/list and the agent card).
    // The bound ratchets down but for new fields, which each state what they add. 423.9 KB with issue 49's honest boards:
    // provisional on the three season answers, the suite board's runCount, the reputation's entry-price names, the
    // community-market rules in get_leaderboard's and get_agent_reputation's descriptions, and the export's id,
    // audience and rationale (2.4 KB); +0.7 KB with quote_trade's walk of the book (bestPrice, worstPrice, slippage, fee,
    // feeRateBps, levels) and the INSUFFICIENT_DEPTH error on paper_trade, sell_position and quote_trade (issue 50 item 3);
    // +6 KB with whoami (issue 51 item 7: its limits' schema and example) and the toolset tags; +4.6 KB with get_venue_commitments
    // (issue 49: sealed outcomes' commitments and reveals, its schema and example): 436.4 KB in all; +1.2 KB with the
    // stated probability's one name beside its deprecated alias and the reputation's bins in the one bin shape beside
    // their deprecated names (issue 51 item 3), until their sunset: 437.65 KB; +9.3 KB with scoring v1
    // (issue 52 items 2–4): the record's life and ranking parts and scoringVersion, the board rows' rank interval,
    // provisional mark, Holm p-value, shrinkage and detectable edge, the export's scoringVersion; +6.8 KB with list_replays
    // (issue 53 item 6: its output repeats the run's schema, as start_replay's and get_replay's do); +3 KB with cursor and
    // nextCursor on the six lists that had none and the toolset listing (issue 51 items 1 and 4); +8.4 KB with the export's
    // parts (issue 49 item 4: the trades, equity, markets and prices rows' schemas, so every board can be recomputed); +2.3 KB with
    // poolFunding on the portfolio and holders and shares on community tokens (issue 53 items 4 and 10): 467.5 KB; +1 KB
    // with fields on the three market lists (issue 51 item 2: the field names in their input schemas): 468.6 KB.
    // After the merges of 2026-12-06 (deprecated venue aliases with their replacements named, the suite's versions and
    // episodes' categories, the boards' reference forecasters): 474.9 KB.
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(475 * 1024);
    expect(text).not.toContain('"pattern": "^(?:(?:\\\\d\\\\d[2468]');
    for (const m of ALL_METHODS) {
      const start = text.indexOf(`\n### ${m.name}\n`);
      expect(start).toBeGreaterThan(0);
      const next = text.indexOf('\n### ', start + 1);
      const section = text.slice(start, next < 0 ? undefined : next);
      if (m.rest) expect(section).toContain(`\`${m.rest.method} ${m.rest.path.replace(/:(\w+)/g, '{$1}')}\``);
      expect(section).toMatch(/JSON-RPC: /);
      expect(section).toMatch(/MCP/);
      expect(section).toMatch(/Auth: /);
      expect(section).toMatch(/Rate limit: \d+ /);
      expect(section).toContain('Errors: VALIDATION_ERROR (400)');
      for (const code of m.errors ?? []) expect(section).toContain(code);
      // Both schemas in full, descriptions and all, with no keyword restating another (a date-time's pattern: the page
      // says the rule once) and repeated parts stated once (references resolved, each is the method's schema so respelled).
      for (const schema of [inputSchemaOf(m), outputSchemaOf(m)]) {
        const printed = withSharedDefs(withoutRestatements(schema));
        expect(inlineRefs(printed)).toEqual(inlineRefs(withoutRestatements(schema)));
        expect(section).toContain(JSON.stringify(printed, null, 2));
      }
      for (const e of m.examples ?? []) expect(section).toContain(JSON.stringify({ input: e.input, output: e.output }, null, 2));
    }
  });

  test('when the legacy plugin manifest is read, then it points at this OpenAPI document', async () => {
    const res = await t.api.get('/.well-known/ai-plugin.json');
    expect(res.status).toBe(200);
    expect(res.body.api).toEqual({ type: 'openapi', url: `${BASE}/openapi.json` });
    const logo = await t.api.get(localPath(res.body.logo_url));
    expect(logo.status).toBe(200);
  });

  test('when an /api error carries a docs link, then the link answers', async () => {
    const res = await t.api.get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.body.docs.startsWith(BASE)).toBe(true);
    const docs = await t.api.get(localPath(res.body.docs.split('#')[0]));
    expect(docs.status).toBe(200);
  });

  test('when a document path gets a wrong method, then 405 with an Error body', async () => {
    const res = await t.api.post('/api/openapi.json').send({});
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
  });
});
