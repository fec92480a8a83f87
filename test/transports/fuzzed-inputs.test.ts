import fc from 'fast-check';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { signedInPerson } from '../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { onSurface, type AnyMethod } from '../../src/registry/method';
import { inputSchemaOf } from '../../src/documents/json-schema';

/**
 * Bad input, generated: for every registry method, inputs derived from its own JSON Schema and example
 * (wrong types, huge and deep values, unicode, prototype keys, missing and extra fields, non-objects) go
 * over REST, JSON-RPC and MCP. No answer is a 5xx, every answer under /api is JSON (REST's also match the
 * OpenAPI document, through the checked agent), and a refused call changes no row of any account's state.
 * FUZZ_RUNS raises the number of inputs per method and surface (default 8).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

type Json = Record<string, unknown>;
type Surface = 'rest' | 'jsonrpc' | 'mcp';

// Every table that holds what an account did; sessions only by count (a used session's expiry slides).
const STATE_TABLES = [
  'users',
  'transfers',
  'positions',
  'trades',
  'idempotency_keys',
  'notifications',
  'challenge_claims',
  'community_markets',
  'access_tokens',
  'trader_activity',
  'trader_results',
  'user_badges',
  'user_calibration',
];
const FINGERPRINT = [
  ...STATE_TABLES.map((t) => `SELECT '${t}' AS t, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${t} x`),
  `SELECT 'sessions', count(*)::text FROM sessions`,
].join(' UNION ALL ');

// Methods whose success ends the credentials the fuzzer signs with: fresh ones are made after them.
const ENDS_CREDENTIALS = new Set(['logout', 'logout_all', 'rotate_api_key', 'delete_account', 'change_password']);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];

const deep = (depth: number): unknown => (depth === 0 ? 'bottom' : { a: [deep(depth - 1)] });

/** Values that break assumptions: other types, edges of numbers, money with too many decimals, huge and deep. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\u202e', '😀'.repeat(50), '<script>alert(1)</script>', "'; DROP TABLE users; --", '../../etc/passwd', '%00'),
  fc.constantFrom(0, -0, -1, 1e-7, 0.1234567, 1e308, -1e308, 2 ** 53 + 1, 1000000.0000001, 4294967296),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.anything({ maxDepth: 1 }), { maxKeys: 4 }),
  fc.constant('x'.repeat(20_000)),
  fc.constant(Array.from({ length: 2000 }, (_, i) => i)),
  fc.constant(deep(60)),
);

/** An own, enumerable key (JSON.stringify writes it), even for `__proto__`. */
function withKey(obj: Json, key: string, value: unknown): Json {
  const out: Json = { ...obj };
  Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
  return out;
}

/** One input for `method`: a valid-looking base from its example, then one mutation driven by its schema. */
function inputsFor(method: AnyMethod, base: Json): fc.Arbitrary<unknown> {
  const schema = inputSchemaOf(method) as { properties?: Record<string, unknown>; required?: string[] };
  const props = Object.keys(schema.properties ?? {});
  const fields = props.length ? fc.constantFrom(...props) : fc.constant('field');
  return fc.oneof(
    // A documented field gets a hostile value.
    fc.tuple(fields, hostile).map(([k, v]) => withKey(base, k, v)),
    // A required field goes missing.
    fc.constantFrom(...(schema.required?.length ? schema.required : ['none'])).map((k) => {
      const out = { ...base };
      delete out[k];
      return out;
    }),
    // An extra field, often a prototype key.
    fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 12 })), hostile).map(([k, v]) => withKey(base, k, v)),
    // Several fields at once.
    fc.dictionary(fields, hostile, { maxKeys: 3 }).map((over) => ({ ...base, ...over })),
    // Not an object at all.
    fc.constantFrom<unknown>([], [base], 'text', 42, null, true),
  );
}

describe.each(backends().filter((b) => b.name === 'pglite'))('generated bad input on every method and surface on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let market: SeededMarket;
  let key: string;
  let person: { cookie: string; origin: string };

  const freshCredentials = async () => {
    key = (await registerAgent(t, 'Fuzz')).apiKey;
    person = await signedInPerson(t);
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
    market = await seedMarket(t.services.db);
    prices.set(market.yes, 0.4, 0.42);
    prices.set(market.no, 0.57, 0.59);
    await freshCredentials();
  });
  afterAll(async () => {
    await t?.close();
  });

  // Earlier accepted trades' figures are folded into the boards' columns first: that fold is theirs, not the refused call's.
  const fingerprint = async () => {
    await t.services.trackRecord.folder.flush();
    return JSON.stringify(await t.services.db.query(FINGERPRINT));
  };

  /** The method's example input with the ids of the seeded market, so most mutations sit next to a valid call. */
  const baseOf = (method: AnyMethod): Json => {
    const example = (method.examples?.[0]?.input ?? {}) as Json;
    const ids: Json = { marketId: market.id, marketSlug: market.slug, tokenId: market.yes, idOrSlug: market.slug, slug: market.slug };
    return Object.fromEntries(Object.entries(example).map(([k, v]) => [k, k in ids ? ids[k] : v]));
  };

  const credentials = (method: AnyMethod, surface: Surface): Record<string, string> =>
    method.auth === 'session' && surface === 'rest'
      ? { Cookie: person.cookie, Origin: person.origin }
      : method.auth === 'public'
        ? {}
        : { Authorization: `Bearer ${key}` };

  /** Sends `input` to `method` on `surface`; returns the HTTP status, the app-level status and the raw body. */
  async function send(method: AnyMethod, surface: Surface, input: unknown): Promise<{ http: number; status: number; text: string }> {
    const headers = { ...credentials(method, surface), 'Idempotency-Key': `fuzz-${Math.random().toString(36).slice(2)}` };
    if (surface === 'rest') {
      const rest = method.rest!;
      const obj = input && typeof input === 'object' && !Array.isArray(input) ? (input as Json) : {};
      // A path segment is cut to 2,000 characters (still far past any id's limit): a URL past Node's 16 kB header
      // limit is refused by the HTTP parser (431) before the service sees it, as the GET query is cut below.
      const path = rest.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(obj[name] ?? 'x').slice(0, 2000)));
      let req;
      if (rest.method === 'GET') {
        const query = new URLSearchParams();
        for (const [k, v] of Object.entries(obj)) query.append(k, typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
        req = t.api.get(`${path}?${query.toString()}`.slice(0, 8000));
      } else {
        req = (rest.method === 'POST' ? t.api.post(path) : t.api.delete(path)).set('content-type', 'application/json').send(JSON.stringify(input));
      }
      const res = await req.set(headers);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      JSON.parse(res.text);
      return { http: res.status, status: res.status, text: res.text };
    }
    if (surface === 'jsonrpc') {
      const res = await t.api
        .post('/api/a2a')
        .set(headers)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: method.name, params: input }));
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(res.text) as { result?: unknown; error?: { code: number; data?: { httpStatus?: number } } };
      const status = body.error ? (body.error.data?.httpStatus ?? 400) : 200;
      return { http: res.status, status, text: res.text };
    }
    const res = await t.api
      .post('/mcp')
      .set(headers)
      .set('Accept', 'application/json, text/event-stream')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: method.name, arguments: input } }));
    const messages = String(res.headers['content-type']).startsWith('text/event-stream')
      ? res.text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as Json)
      : [JSON.parse(res.text) as Json];
    const answer = messages.find((m) => m.id === 1) as
      { result?: { isError?: boolean; structuredContent?: { httpStatus?: number } }; error?: unknown } | undefined;
    expect(answer).toBeDefined();
    const status = answer!.error ? 400 : answer!.result?.isError ? (answer!.result.structuredContent?.httpStatus ?? 400) : 200;
    return { http: res.status, status, text: res.text };
  }

  const surfaces: Surface[] = ['rest', 'jsonrpc', 'mcp'];
  test.each(surfaces)('when every method gets generated bad input over %s, then no answer is a 5xx and a refused call changes nothing', async (surface) => {
    const methods = t.services.registry.methods.filter((m) => (surface === 'rest' ? m.rest : onSurface(m, surface)));
    expect(methods.length).toBeGreaterThan(5);
    for (const method of methods) {
      const base = baseOf(method);
      await fc.assert(
        fc.asyncProperty(inputsFor(method, base), async (input) => {
          const before = await fingerprint();
          const { http, status, text } = await send(method, surface, input);
          if (http >= 500 || status >= 500) throw new Error(`${method.name} over ${surface} answered ${http}/${status}: ${text.slice(0, 300)}`);
          if (status >= 400) {
            const after = await fingerprint();
            if (after !== before) throw new Error(`${method.name} over ${surface} refused (${status}) yet changed state: ${text.slice(0, 300)}`);
          } else if (ENDS_CREDENTIALS.has(method.name)) {
            await freshCredentials();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
  });

  describe('malformed envelopes', () => {
    const ENDPOINTS = [
      { name: 'REST', path: '/api/trade', accept: 'application/json' },
      { name: 'JSON-RPC', path: '/api/a2a', accept: 'application/json' },
      { name: 'MCP', path: '/mcp', accept: 'application/json, text/event-stream' },
    ];
    const BODIES: Array<{ what: string; contentType: string; body: string; status: number[] }> = [
      { what: 'invalid JSON', contentType: 'application/json', body: '{"jsonrpc": "2.0", "method": ', status: [400] },
      { what: 'JSON sent as text/plain', contentType: 'text/plain', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', status: [400, 415] },
      { what: 'a form body', contentType: 'application/x-www-form-urlencoded', body: 'a=1&b=2', status: [400, 415] },
      { what: 'a body over 100 kB', contentType: 'application/json', body: JSON.stringify({ pad: 'x'.repeat(150_000) }), status: [413] },
      { what: 'a JSON string', contentType: 'application/json', body: '"hello"', status: [400] },
      { what: 'deeply nested JSON', contentType: 'application/json', body: '['.repeat(5000) + ']'.repeat(5000), status: [400] },
    ];
    test.each(ENDPOINTS.flatMap((e) => BODIES.map((b) => ({ ...e, ...b }))))(
      'when $name at $path gets $what, then it is refused with JSON and nothing changes',
      async ({ path, accept, contentType, body, status }) => {
        const before = await fingerprint();
        const res = await t.api
          .post(path)
          .set({ Authorization: `Bearer ${key}`, Accept: accept, 'content-type': contentType })
          .send(body);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        const answer = JSON.parse(res.text) as unknown;
        // JSON-RPC may answer HTTP 200 with error objects (one per element of a batch); never a result.
        const rpcErrors = path === '/api/a2a' && res.status === 200 && [answer].flat().every((a) => (a as { error?: unknown }).error !== undefined);
        if (!rpcErrors) expect(status).toContain(res.status);
        expect(await fingerprint()).toBe(before);
      },
    );

    const call = (i: number) => ({ jsonrpc: '2.0', id: i, method: 'get_balance', params: {} });
    test.each([
      { size: 0, http: 400, answers: 0 },
      { size: 1, http: 200, answers: 1 },
      { size: 50, http: 200, answers: 50 },
      { size: 51, http: 400, answers: 0 },
    ])('when a JSON-RPC batch holds $size calls, then HTTP $http with $answers answers', async ({ size, http, answers }) => {
      const res = await t.api
        .post('/api/a2a')
        .set('Authorization', `Bearer ${key}`)
        .send(Array.from({ length: size }, (_, i) => call(i + 1)));
      expect(res.status).toBe(http);
      if (answers) {
        expect(res.body).toHaveLength(answers);
        for (const a of res.body as Array<{ result?: { balance: number } }>) expect(typeof a.result?.balance).toBe('number');
      } else {
        expect(res.body.error.code).toBe(-32600);
      }
    });
  });
});
