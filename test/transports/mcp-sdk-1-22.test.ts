import { Client } from 'mcp-sdk-1-22/client/index.js';
import { StreamableHTTPClientTransport } from 'mcp-sdk-1-22/client/streamableHttp.js';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { seedRealisticMarkets } from '../support/realistic-markets';
import { ALL_METHODS } from '../../src/methods';
import { onSurface, toolNameOf } from '../../src/registry/method';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const onMcp = ALL_METHODS.filter((m) => onSurface(m, 'mcp'));
const namesOf = (pick: (m: (typeof onMcp)[number]) => boolean) => onMcp.filter(pick).map(toolNameOf);

/**
 * Issue 51: MCP SDK 1.22.0 itself (installed as mcp-sdk-1-22; STACK.md), the client that listed no tool at all while
 * seven output schemas used `$defs`. It checks every result's structuredContent against the tool's output schema, so a
 * call that succeeds here is one whose answer its schema admits (a `fields` selection too).
 */
describe.each(backends())('MCP SDK 1.22.0 drives the default set and a chosen toolset on $name', (backend) => {
  let t: TestApp;
  let agent: { apiKey: string };
  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true, background: false });
    agent = await registerAgent(t, 'Sdk122');
    await seedRealisticMarkets(t.services.db, 12, 'sdk');
  }, 180_000);
  afterAll(async () => t.close());

  async function open(address: string): Promise<Client> {
    const client = new Client({ name: 'sdk-1.22', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${address}`), { requestInit: { headers: { Authorization: `Bearer ${agent.apiKey}` } } }),
    );
    return client;
  }

  test('when 1.22.0 connects to /mcp, then it lists the default set and calls its tools, a field selection and an error included', async () => {
    const client = await open('/mcp');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(namesOf((m) => m.defaultTool === true));
      const balance = (await client.callTool({ name: 'get_balance', arguments: {} })) as Json;
      expect(balance.isError).toBeFalsy();
      expect(balance.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });
      const search = (await client.callTool({
        name: 'search_prediction_markets',
        arguments: { q: 'federal reserve', fields: ['question', 'yesPrice'] },
      })) as Json;
      expect(search.isError).toBeFalsy();
      expect(search.structuredContent.markets).toHaveLength(8);
      for (const m of search.structuredContent.markets as Json[]) expect(Object.keys(m).sort()).toEqual(['id', 'question', 'yesPrice']);
      const refused = (await client.callTool({ name: 'get_market_odds', arguments: { marketId: 'no-such-market' } })) as Json;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.code).toBe('NOT_FOUND');
    } finally {
      await client.close();
    }
  });

  test('when 1.22.0 connects to a chosen toolset and to all, then it lists theirs and calls them', async () => {
    const chosen = await open('/mcp/x/markets,community');
    try {
      const { tools } = await chosen.listTools();
      expect(tools.map((x) => x.name)).toEqual(namesOf((m) => m.toolset === 'markets' || m.toolset === 'community'));
      const listed = (await chosen.callTool({ name: 'list_markets', arguments: { limit: 5, fields: ['question', 'change24h'] } })) as Json;
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent.markets).toHaveLength(5);
      const community = (await chosen.callTool({ name: 'list_community_markets', arguments: {} })) as Json;
      expect(community.isError).toBeFalsy();
    } finally {
      await chosen.close();
    }
    const all = await open('/mcp/x/all');
    try {
      expect((await all.listTools()).tools.map((x) => x.name)).toEqual(onMcp.map(toolNameOf));
      const suite = (await all.callTool({ name: 'list_replay_suite', arguments: {} })) as Json;
      expect(suite.isError).toBeFalsy();
    } finally {
      await all.close();
    }
  });
});
