import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { TOOL_NAME, toolNameOf } from '../../src/registry/method';
import { Registry } from '../../src/registry/registry';
import { ALL_METHODS } from '../../src/methods';
import { buildMcpTools } from '../../src/transports/mcp-tools';
import { withRepeatsOutlined } from '../../src/documents/schema-compaction';

const ACCEPT = 'application/json, text/event-stream';

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.push(k);
      keysOf(v, into);
    }
  }
  return into;
}

// Issue 51 item 6: what a host meets before its model sees a single tool.
describe('tool names and schemas a host can pass on', () => {
  const { tools } = buildMcpTools(new Registry(ALL_METHODS)).list;

  test('every tool name is one the function-calling APIs accept, and agent.getCard is the tool agent_getCard', () => {
    expect(tools.length).toBeGreaterThan(60);
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools.map((t) => t.name)).toContain('agent_getCard');
    expect(tools.map((t) => t.name)).not.toContain('agent.getCard');
    expect(toolNameOf({ name: 'agent.getCard' })).toBe('agent_getCard');
  });

  test('no tool schema holds a $ref or $defs (MCP SDK 1.22.0 resolves none, and lists no tool at all)', () => {
    for (const tool of tools) {
      const keys = keysOf([tool.inputSchema, tool.outputSchema]);
      expect({ tool: tool.name, refs: keys.filter((k) => k === '$ref' || k === '$defs' || k === 'definitions') }).toEqual({ tool: tool.name, refs: [] });
    }
  });

  test('a repeated subschema is spelled once and by its type after, so the schema accepts more, never less', () => {
    const estimate = { type: 'object', properties: { value: { anyOf: [{ type: 'number' }, { type: 'null' }] }, n: { type: 'integer' } } };
    const small = { type: 'array', items: { type: 'string' } };
    const schema = {
      type: 'object',
      properties: { brier: estimate, logScore: estimate, nested: { type: 'object', properties: { alpha: estimate } }, x: small, y: small },
    };
    expect(withRepeatsOutlined(schema)).toEqual({
      type: 'object',
      properties: { brier: estimate, logScore: { type: 'object' }, nested: { type: 'object', properties: { alpha: { type: 'object' } } }, x: small, y: small },
    });
  });

  test('the registry refuses a method whose tool name would be invalid or taken', () => {
    const base = ALL_METHODS.find((m) => m.name === 'get_balance')!;
    expect(() => new Registry([...ALL_METHODS, { ...base, name: 'get.balance', rest: undefined }])).toThrow(/duplicate tool name get_balance/);
    expect(() => new Registry([{ ...base, name: 'x'.repeat(65), rest: undefined }])).toThrow(/is not 1 to 64/);
    expect(TOOL_NAME.test('a'.repeat(64))).toBe(true);
  });
});

describe.each(backends())('error docs links and the service’s own calls on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // No market sync: the reference forecasters only register (their day's calls are not what this is about).
    t = await startTestApp(backend, { listen: true, background: false, config: { RATE_LIMIT_REGISTER_PER_MIN: 5, TRUST_PROXY: 1 } });
  });
  afterAll(async () => t.close());

  const mcpCall = (name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${t.baseUrl}/mcp?toolsets=all`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    }).then((r) => r.json() as Promise<{ result: { isError?: boolean; structuredContent: Record<string, unknown> } }>);

  let n = 0;
  /** An agent registered from its own address: 127.0.0.1's budget is the last test's. */
  const agentFrom = async (): Promise<{ apiKey: string }> => {
    n += 1;
    const res = await t.api
      .post('/api/auth/register')
      .set('X-Forwarded-For', `198.18.0.${n}`)
      .send({ email: `host${n}-${Date.now()}@example.com`, password: 'password123', displayName: `Host${n}`, isAgent: true });
    expect(res.status).toBe(201);
    return res.body.user;
  };

  // First: the other tests register agents from this address too.
  test("when the reference forecasters register at start, then a newcomer's sign-ups from 127.0.0.1 still get the address's whole budget", async () => {
    const ran = await t.services.referenceForecasters.runDay(new Date());
    expect(ran.acted).toBe(true);
    const register = (i: number) =>
      t.api
        .post('/api/auth/register')
        .set('X-Forwarded-For', '127.0.0.1')
        .send({ email: `own-${i}-${Date.now()}@example.com`, password: 'password123', displayName: `Newcomer${i}`, isAgent: true });
    // The three reference accounts exist; none of their registrations counted against 127.0.0.1's five.
    for (let i = 1; i <= 5; i++) expect({ i, status: (await register(i)).status }).toEqual({ i, status: 201 });
    // The newcomer's own sixth is still refused: the limit holds for callers.
    expect((await register(6)).status).toBe(429);
  });

  test('when the 1.x SDK client connects, then it lists every tool and calls agent_getCard and a keyed tool', async () => {
    // @modelcontextprotocol/sdk 1.32 is what is installed; 1.22.0 (which resolves no $ref) is not, so this client
    // stands in for it, and the test above checks the one thing 1.22.0 could not read.
    const agent = await agentFrom();
    const client = new V1Client({ name: 'v1-host', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(`${t.baseUrl}/mcp?toolsets=all`), { requestInit: { headers: { Authorization: `Bearer ${agent.apiKey}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(['agent_getCard', 'get_benchmark_record', 'get_balance']));
      const card = await client.callTool({ name: 'agent_getCard', arguments: {} });
      expect(card.isError).toBeFalsy();
      expect((card.structuredContent as { name: string }).name).toBeTruthy();
      const record = await client.callTool({ name: 'get_benchmark_record', arguments: {} });
      expect(record.isError).toBeFalsy();
      expect(await client.callTool({ name: 'get_balance', arguments: {} })).toMatchObject({ structuredContent: { balance: 1000 } });
    } finally {
      await client.close();
    }
  });

  test("when a method fails on REST, MCP and JSON-RPC, then each error's docs link is that method's section", async () => {
    const agent = await agentFrom();
    const section = `${t.baseUrl}/docs/markets#get_market_odds`;
    const rest = await t.api.get('/api/markets/no-such-market');
    expect(rest.status).toBe(404);
    expect(rest.body.docs).toBe(section);
    const mcp = await mcpCall('get_market_odds', { idOrSlug: 'no-such-market' });
    expect(mcp.result.isError).toBe(true);
    expect(mcp.result.structuredContent.docs).toBe(section);
    const rpc = await t.api.post('/api/a2a').send({ jsonrpc: '2.0', id: 1, method: 'get_market_odds', params: { idOrSlug: 'no-such-market' } });
    expect(rpc.body.error.data.docs).toBe(section);
    // A keyed method's refusal too (validation), on a trading method's own section.
    const trade = await t.api.post('/api/trade').set('Authorization', `Bearer ${agent.apiKey}`).send({ amount: -1 });
    expect(trade.status).toBe(400);
    expect(trade.body.docs).toBe(`${t.baseUrl}/docs/trading#paper_trade`);
    // An /api/ path that is no method still points at the index.
    expect((await t.api.get('/api/no-such-path')).body.docs).toBe(`${t.baseUrl}/llms.txt`);
  });
});
