import fs from 'node:fs';
import path from 'node:path';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ALL_METHODS } from '../../src/methods';
import { onSurface, toolDescriptionOf, toolNameOf, type AnyMethod } from '../../src/registry/method';
import { AREAS } from '../../src/documents/service-info';

/**
 * Completeness, checked rather than hoped for: every registry method is on every surface it belongs to
 * (and on no RPC surface it is hidden from), read through each surface's public behaviour.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BASE = 'https://paper.example.com';
const SCHEMAS = path.join(__dirname, '..', '..', 'schemas');
const byName = ALL_METHODS.map((m) => [m.name, m] as [string, AnyMethod]);
const rest = byName.filter(([, m]) => m.rest);

/** The JSON-RPC messages of an MCP answer, which is JSON or an SSE stream depending on the server's choice. */
function mcpMessages(res: { headers: Record<string, string>; text: string; body: unknown }): Json[] {
  if (String(res.headers['content-type']).startsWith('text/event-stream')) {
    return res.text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)));
  }
  return [res.body as Json];
}

describe.each(backends())('registry surfaces on $name', (backend) => {
  let t: TestApp;
  let openapi: Json;
  let llms: string;
  let card: Json;
  const tools = new Set<string>();

  beforeAll(async () => {
    t = await startTestApp(backend, { config: { BASE_URL: BASE } });
    openapi = (await t.api.get('/openapi.json')).body;
    llms = (await t.api.get('/llms.txt')).text;
    card = (await t.api.get('/.well-known/agent-card.json')).body;
    let cursor: string | undefined;
    do {
      const res = await t.api
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .set('X-MCP-Toolsets', 'all')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) });
      const result = mcpMessages(res).find((msg) => msg.id === 1)?.result;
      for (const tool of result?.tools ?? []) tools.add(tool.name);
      cursor = result?.nextCursor;
    } while (cursor);
  });
  afterAll(async () => t.close());

  test('the registry is not empty and matches the running app', () => {
    expect(ALL_METHODS.length).toBeGreaterThan(0);
    expect(t.services.registry.methods.map((m) => m.name)).toEqual(ALL_METHODS.map((m) => m.name));
  });

  test.each(rest)('%s: its REST binding is an OpenAPI path with an operation of that name', (name, m) => {
    const op = openapi.paths[m.rest!.path.replace(/:(\w+)/g, '{$1}')]?.[m.rest!.method.toLowerCase()];
    expect(op?.operationId).toBe(name);
  });

  test.each(byName)('%s: llms.txt has an entry linking to its documentation', (name, m) => {
    expect(llms).toContain(`- [${name}](${BASE}/docs/${AREAS[m.area].slug}#${name}): ${m.summary}.`);
  });

  test.each(byName)('%s: schemas/ holds its input and output JSON Schema', (name) => {
    expect(fs.existsSync(path.join(SCHEMAS, `${name}.input.json`))).toBe(true);
    expect(fs.existsSync(path.join(SCHEMAS, `${name}.output.json`))).toBe(true);
  });

  test.each(byName)('%s: JSON-RPC at POST /api/a2a knows it exactly when it is on the jsonrpc surface', async (name, m) => {
    // No credentials and empty params: keyed methods stop at 401, the others at validation; nothing is changed.
    const res = await t.api.post('/api/a2a').send({ jsonrpc: '2.0', id: 1, method: name, params: {} });
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1 });
    if (onSurface(m, 'jsonrpc')) expect(res.body.error?.code).not.toBe(-32601);
    else expect(res.body.error?.code).toBe(-32601);
  });

  test.each(byName)('%s: MCP tools/list offers it exactly when it is on the mcp surface', (name, m) => {
    expect(tools.size).toBeGreaterThan(0);
    expect(tools.has(toolNameOf(m))).toBe(onSurface(m, 'mcp'));
  });

  test.each(byName)('%s: the agent card has a skill with its id exactly when it is on the jsonrpc surface', (name, m) => {
    const skill = (card.skills ?? []).find((s: Json) => s.id === name);
    if (onSurface(m, 'jsonrpc')) expect(skill).toMatchObject({ id: name, description: toolDescriptionOf(m) });
    else expect(skill).toBeUndefined();
  });
});
