import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ALL_METHODS, buildRegistry } from '../../src/methods';
import { buildOpenApi } from '../../src/documents/openapi';
import { testConfig } from '../../src/config';
import { onSurface, type AnyMethod } from '../../src/registry/method';
import { ERROR_CODES, ERROR_TABLE } from '../../src/errors/app-error';
import { inputSchemaOf, outputSchemaOf } from '../../src/documents/json-schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const restMethods = ALL_METHODS.filter((m) => m.rest);
const pathOf = (m: AnyMethod) => m.rest!.path.replace(/:(\w+)/g, '{$1}');
const pathParams = (m: AnyMethod) => (m.rest!.path.match(/:(\w+)/g) ?? []).map((p) => p.slice(1));

describe.each(backends())('OpenAPI document on $name', (backend) => {
  let t: TestApp;
  let doc: Json;
  let raw: string;
  const op = (m: AnyMethod): Json => doc.paths[pathOf(m)]?.[m.rest!.method.toLowerCase()];

  beforeAll(async () => {
    t = await startTestApp(backend);
    const res = await t.api.get('/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    raw = res.text;
  });
  afterAll(async () => t.close());

  test('when /openapi.json is checked by a third-party OpenAPI 3.1 validator, then it is valid 3.1.0, version 1.0.0, served at BASE_URL', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: t.config.BASE_URL! }]);
  });

  test('when /api/openapi.json is read, then it is byte-identical to /openapi.json', async () => {
    const mirror = await t.api.get('/api/openapi.json');
    expect(mirror.status).toBe(200);
    expect(mirror.headers['content-type']).toMatch(/^application\/json/);
    expect(mirror.text).toBe(raw);
  });

  test('every REST method is an operation named after it, tagged with its area, with its RPC and MCP names', () => {
    expect(restMethods.length).toBeGreaterThan(0);
    for (const m of restMethods) {
      const o = op(m);
      expect(o).toBeDefined();
      expect(o.operationId).toBe(m.name);
      expect(o.summary).toBe(m.summary);
      expect(o.description).toContain(m.description);
      expect(o.tags).toEqual([m.area]);
      expect(o['x-jsonrpc-method']).toBe(onSurface(m, 'jsonrpc') ? m.name : undefined);
      expect(o['x-mcp-tool']).toBe(onSurface(m, 'mcp') ? m.name : undefined);
      expect(doc.tags.map((tag: Json) => tag.name)).toContain(m.area);
    }
  });

  test('GET and DELETE parameters come from the input schema (required flags included); POST bodies are the input minus path parameters', () => {
    for (const m of restMethods) {
      const o = op(m);
      const input = inputSchemaOf(m) as Json;
      const required: string[] = input.required ?? [];
      const params: Json[] = o.parameters ?? [];
      for (const name of pathParams(m)) {
        expect(params).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      if (m.rest!.method === 'GET' || m.rest!.method === 'DELETE') {
        for (const name of Object.keys(input.properties ?? {}).filter((k) => !pathParams(m).includes(k))) {
          expect(params).toContainEqual(expect.objectContaining({ name, in: 'query', required: required.includes(name) }));
        }
        expect(o.requestBody).toBeUndefined();
      } else {
        const body = o.requestBody.content['application/json'].schema;
        expect(Object.keys(body.properties).sort()).toEqual(
          Object.keys(input.properties ?? {})
            .filter((k) => !pathParams(m).includes(k))
            .sort(),
        );
        expect(o.requestBody.required).toBe(required.some((k) => !pathParams(m).includes(k)));
      }
    }
  });

  test('every operation documents its success with the output schema, and 400/401/429/500 plus each declared error code as the Error schema', () => {
    for (const m of restMethods) {
      const responses = op(m).responses;
      const success = responses[String(m.rest!.status ?? 200)];
      expect(success.content['application/json'].schema).toEqual(outputSchemaOf(m));
      const statuses = new Set(['400', '401', '429', '500', ...(m.errors ?? []).map((c) => String(ERROR_TABLE[c].status))]);
      for (const status of statuses) {
        expect(responses[status]?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
      for (const code of m.errors ?? []) expect(responses[String(ERROR_TABLE[code].status)].description).toContain(code);
      expect(responses['429'].headers['Retry-After']).toBeDefined();
    }
    const error = doc.components.schemas.Error;
    expect(error.required).toEqual(['error', 'code']);
    expect(error.properties.code.enum).toEqual(ERROR_CODES);
    expect(Object.keys(error.properties)).toEqual(['error', 'code', 'hint', 'docs', 'details', 'retryAfterSeconds', 'requestId']);
  });

  test('security follows each method: public → none, key → bearer or OAuth (scope agent), session → the session cookie only', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.oauth2.flows.clientCredentials).toMatchObject({ tokenUrl: `${t.config.BASE_URL!}/oauth/token`, scopes: { agent: expect.any(String) } });
    expect(schemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'svc.session-token' });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { oauth2: ['agent'] }]);
    for (const m of restMethods) {
      const security: Json[] = op(m).security;
      if (m.auth === 'public') expect(security).toEqual([]);
      if (m.auth === 'session') expect(security).toEqual([{ sessionCookie: [] }]);
      if (m.auth === 'key' || m.auth === 'optional') {
        expect(security).toContainEqual({ bearerAuth: [] });
        expect(security).toContainEqual({ oauth2: ['agent'] });
        expect(security.some((r) => Object.keys(r).length === 0)).toBe(m.auth === 'optional');
      }
    }
  });

  test('every example of every method matches its own input and output schemas, and is in the document', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const m of ALL_METHODS) {
      for (const e of m.examples ?? []) {
        expect(m.input.safeParse(e.input).success).toBe(true);
        expect(m.output.safeParse(e.output).success).toBe(true);
        expect(ajv.validate(inputSchemaOf(m), e.input)).toBe(true);
        expect(ajv.validate(outputSchemaOf(m), e.output)).toBe(true);
      }
      if (m.rest && m.examples?.length) {
        const success = op(m).responses[String(m.rest.status ?? 200)].content['application/json'];
        expect(success.examples.example1.value).toEqual(m.examples[0]!.output);
      }
    }
  });

  test('the document says plainly that the money is virtual and where market data comes from', () => {
    expect(doc.info.description).toMatch(/All money is virtual/);
    expect(doc.info.description).toMatch(/not (any|its) .*official feed/);
    for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(20);
  });

  test('when market data is mirrored (MARKET_FEED=polymarket), then the document says it lags and is not the official feed', () => {
    const mirrored = buildOpenApi(buildRegistry(), testConfig({ MARKET_FEED: 'polymarket', MARKET_SYNC_INTERVAL_S: 45 }), 'http://localhost:3000');
    expect(mirrored.info.description).toMatch(/mirrored from Polymarket every 45 seconds/);
    expect(mirrored.info.description).toMatch(/not its official feed/);
  });
});
