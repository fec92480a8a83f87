import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ALL_METHODS } from '../../src/methods';
import { onSurface, toolNameOf } from '../../src/registry/method';
import { TOOLSETS, TOOLSET_NAMES } from '../../src/registry/toolsets';

const ACCEPT = 'application/json, text/event-stream';
const onMcp = ALL_METHODS.filter((m) => onSurface(m, 'mcp'));
const namesOf = (pick: (m: (typeof onMcp)[number]) => boolean) => onMcp.filter(pick).map(toolNameOf);

// Issue 51 item 1: toolsets, chosen by address.
describe('toolsets in the registry', () => {
  test('every method is in a known toolset, every toolset holds a tool, and the default set is what a first conversation needs', () => {
    for (const m of ALL_METHODS) expect({ method: m.name, known: TOOLSET_NAMES.includes(m.toolset) }).toEqual({ method: m.name, known: true });
    for (const name of TOOLSET_NAMES) expect({ name, tools: namesOf((m) => m.toolset === name).length > 0 }).toEqual({ name, tools: true });
    expect(Object.keys(TOOLSETS)).toEqual(TOOLSET_NAMES);
    // Find markets, read odds and book, quote, trade with a forecast, orders, portfolio, own benchmark record.
    expect(namesOf((m) => m.defaultTool === true)).toEqual(
      expect.arrayContaining([
        'search_prediction_markets',
        'get_market_odds',
        'get_order_book',
        'quote_trade',
        'paper_trade',
        'place_order',
        'cancel_order',
        'list_orders',
        'get_portfolio',
        'get_benchmark_record',
        'register_account',
      ]),
    );
  });
});

describe.each(backends())('MCP toolsets by address on $name', (backend) => {
  let t: TestApp;
  let agent: { apiKey: string };
  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true });
    agent = await registerAgent(t, 'Toolsets');
  });
  afterAll(async () => t.close());

  /** A raw 2025-era POST; the answer's status and JSON body. */
  async function post(address: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${t.baseUrl}${address}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, bytes: text, body: JSON.parse(text) };
  }
  const list = (address: string, headers: Record<string, string> = {}) => post(address, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
  const names = async (address: string, headers: Record<string, string> = {}) =>
    ((await list(address, headers)).body.result.tools as Array<{ name: string }>).map((x) => x.name);
  const toolsBytes = async (address: string) => JSON.stringify({ tools: (await list(address)).body.result.tools }).length;

  test('when /mcp is listed, then it is the default set: at most 25 tools and 30 KB; all is every tool within 100 KB', async () => {
    const defaults = await names('/mcp');
    expect(defaults).toEqual(namesOf((m) => m.defaultTool === true));
    expect(defaults.length).toBeLessThanOrEqual(25);
    const defaultBytes = await toolsBytes('/mcp');
    expect(defaultBytes).toBeLessThanOrEqual(30 * 1024);
    expect(await names('/mcp/x/all')).toEqual(onMcp.map(toolNameOf));
    const allBytes = await toolsBytes('/mcp/x/all');
    expect(allBytes).toBeLessThanOrEqual(100 * 1024);
    // The default set is a small part of the whole.
    expect(defaultBytes).toBeLessThan(allBytes / 2);
  });

  test('when toolsets are named by path, query or header, then the list is theirs, in registry order', async () => {
    const replayAndOrders = namesOf((m) => m.toolset === 'replay' || m.toolset === 'orders');
    expect(await names('/mcp/x/replay,orders')).toEqual(replayAndOrders);
    expect(await names('/mcp?toolsets=orders,replay')).toEqual(replayAndOrders);
    expect(await names('/mcp', { 'X-MCP-Toolsets': 'replay, orders' })).toEqual(replayAndOrders);
    // The path wins over the query, the query over the header.
    expect(await names('/mcp/x/webhooks?toolsets=replay', { 'X-MCP-Toolsets': 'orders' })).toEqual(namesOf((m) => m.toolset === 'webhooks'));
    expect(await names('/mcp?toolsets=default,webhooks')).toEqual(namesOf((m) => m.defaultTool === true || m.toolset === 'webhooks'));
    for (const name of TOOLSET_NAMES) expect(await names(`/mcp/x/${name}`)).toEqual(namesOf((m) => m.toolset === name));
  });

  test('when a read-only selection is listed, then no tool that changes state is in it, and calling one is an unknown tool', async () => {
    const readOnly = namesOf((m) => m.annotations.readOnlyHint === true);
    expect(await names('/mcp/x/all/readonly')).toEqual(readOnly);
    expect(await names('/mcp/x/all?readonly=true')).toEqual(readOnly);
    expect(await names('/mcp/readonly')).toEqual(namesOf((m) => m.defaultTool === true && m.annotations.readOnlyHint === true));
    expect(await names('/mcp/x/orders', { 'X-MCP-Readonly': 'true' })).toEqual(namesOf((m) => m.toolset === 'orders' && m.annotations.readOnlyHint === true));
    expect(await names('/mcp/readonly')).not.toContain('paper_trade');
    const trade = await post(
      '/mcp/readonly',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'paper_trade', arguments: { marketId: 'm', amount: 1 } } },
      { Authorization: `Bearer ${agent.apiKey}` },
    );
    expect(trade.body.error).toMatchObject({ code: -32602, data: { code: 'ENDPOINT_NOT_FOUND' } });
    // A read-only tool is still called there.
    const balance = await post(
      '/mcp/readonly',
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_balance', arguments: {} } },
      { Authorization: `Bearer ${agent.apiKey}` },
    );
    expect(balance.body.result.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when an unknown toolset is named, then HTTP 400 with a JSON error that lists the known toolsets, on every address form', async () => {
    for (const [address, headers] of [
      ['/mcp/x/nope', {}],
      ['/mcp?toolsets=markets,nope', {}],
      ['/mcp', { 'X-MCP-Toolsets': 'nope' }],
    ] as Array<[string, Record<string, string>]>) {
      const res = await list(address, headers);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { data: { code: 'VALIDATION_ERROR', httpStatus: 400 } } });
      expect(res.body.error.message).toContain('nope');
      for (const known of ['default', 'all', ...TOOLSET_NAMES]) expect(res.body.error.data.hint).toContain(known);
    }
    expect((await list('/mcp?readonly=maybe')).status).toBe(400);
  });

  test('when a tool outside the listed set is called on /mcp, then it still runs (a client set up before toolsets keeps working)', async () => {
    const res = await post('/mcp', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'list_replay_suite', arguments: {} } });
    expect(res.body.result.isError).toBeFalsy();
  });

  test('when the v2 and 1.x SDK clients connect to the default set and to a chosen toolset, then each lists that set and calls its tools', async () => {
    const headers = { Authorization: `Bearer ${agent.apiKey}` };
    const clients = [
      async (url: URL) => {
        const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
        return client;
      },
      async (url: URL) => {
        const client = new V1Client({ name: 'v1', version: '1.0.0' });
        await client.connect(new V1Transport(url, { requestInit: { headers } }));
        return client;
      },
    ];
    for (const open of clients) {
      const byDefault = await open(new URL(`${t.baseUrl}/mcp`));
      try {
        expect((await byDefault.listTools()).tools.map((x) => x.name)).toEqual(namesOf((m) => m.defaultTool === true));
        const balance = (await byDefault.callTool({ name: 'get_balance', arguments: {} })) as CallToolResult;
        expect(balance.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });
      } finally {
        await byDefault.close();
      }
      const chosen = await open(new URL(`${t.baseUrl}/mcp/x/replay`));
      try {
        expect((await chosen.listTools()).tools.map((x) => x.name)).toEqual(namesOf((m) => m.toolset === 'replay'));
        const suite = (await chosen.callTool({ name: 'list_replay_suite', arguments: {} })) as CallToolResult;
        expect(suite.isError).toBeFalsy();
      } finally {
        await chosen.close();
      }
    }
  });

  test('when the agent card is read, then each skill is tagged with its toolset, and the default set’s with toolset:default', async () => {
    const card = (await t.api.get('/.well-known/agent-card.json')).body as { skills: Array<{ id: string; tags: string[] }> };
    for (const m of ALL_METHODS.filter((x) => onSurface(x, 'jsonrpc'))) {
      const skill = card.skills.find((s) => s.id === m.name)!;
      expect(skill.tags).toContain(`toolset:${m.toolset}`);
      expect(skill.tags.includes('toolset:default')).toBe(m.defaultTool === true);
    }
  });
});
