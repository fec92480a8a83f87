import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { createCommunityMarket } from '../support/community';
import { signedInPerson } from '../support/identity';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { ERROR_TABLE, type ErrorCode } from '../../src/errors/app-error';
import { onSurface } from '../../src/registry/method';

/**
 * Issue 32's reproduction, done as an agent does it on each surface: a resting buy reserves 950 of the 1,000
 * dollars, then buy_community_shares spends 200 more. A debit needs balance − reserved ≥ amount on every path, so
 * it is refused with INSUFFICIENT_BALANCE and nothing changes. The same for shares a resting sell holds, and for
 * the liquidity that creating a community market takes.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One call as the agent sees it: the result, or the refusal with its stable code and how the transport carried it. */
type Answer = { ok: true; value: Json } | { ok: false; code: string; wire: string };

const SURFACES = ['REST', 'JSON-RPC', 'MCP'] as const;
type Surface = (typeof SURFACES)[number];

/** How each surface carries a refusal with `code` (one table maps a code to its HTTP status and JSON-RPC code). */
const refusal = (surface: Surface, code: ErrorCode): Answer => ({
  ok: false,
  code,
  wire: surface === 'REST' ? `HTTP ${ERROR_TABLE[code].status}` : surface === 'JSON-RPC' ? `JSON-RPC ${ERROR_TABLE[code].rpc}` : 'MCP isError',
});

interface Agent {
  id: string;
  call(method: string, args?: Json): Promise<Answer>;
}

describe.each(backends())('the reservation reproduction of issue 32 on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clients: Client[] = [];
  let m: SeededMarket;
  /** A community market another account created (a person: creating needs a browser session). */
  let community: { id: string; slug: string; yes: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, listen: true, background: false });
    m = await seedMarket(t.services.db);
    // The ask is above the buy limits below and the bid under the sell limits: the orders rest.
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.625);
    community = await createCommunityMarket(t, 'Will the harbour ferry run on New Year’s Day?');
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    try {
      expect((await auditLedger(t.services.db)).violations).toEqual([]);
    } finally {
      await t.close();
    }
  });

  /** A REST call of a registry method: its binding's verb and path, path parameters from the arguments, the rest as query or body. */
  async function restCall(method: string, args: Json, headers: Record<string, string>): Promise<Answer> {
    const binding = t.services.registry.methods.find((x) => x.name === method)?.rest;
    if (!binding) throw new Error(`${method} has no REST binding`);
    const rest = { ...args };
    const path = binding.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = String(rest[name]);
      delete rest[name];
      return encodeURIComponent(value);
    });
    if (binding.method !== 'GET' && binding.method !== 'POST') throw new Error(`${method}: ${binding.method} is not used here`);
    const res = binding.method === 'GET' ? await t.api.get(path).set(headers).query(rest) : await t.api.post(path).set(headers).send(rest);
    return res.status < 400 ? { ok: true, value: res.body } : { ok: false, code: res.body.code, wire: `HTTP ${res.status}` };
  }

  async function rpc(method: string, args: Json, headers: Record<string, string>): Promise<Answer> {
    const body = await rpcCall(t, method, args, headers);
    return body.error ? { ok: false, code: body.error.data?.code, wire: `JSON-RPC ${body.error.code}` } : { ok: true, value: body.result };
  }

  /** The MCP SDK client over Streamable HTTP, as mcp.test.ts connects it. */
  async function mcpClient(apiKey?: string): Promise<Client> {
    const headers: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
    const client = new Client({ name: 'reproduction', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  async function tool(client: Client, name: string, args: Json): Promise<Answer> {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const content = r.structuredContent as Json;
    return r.isError ? { ok: false, code: content.code, wire: 'MCP isError' } : { ok: true, value: content };
  }

  let registered = 0;
  /** Registers an agent with register_account on the surface itself and returns its calls there, keyed. */
  async function agentOn(surface: Surface): Promise<Agent> {
    registered += 1;
    const account = { email: `repro${registered}-${Date.now()}@example.com`, password: 'password123', displayName: `Repro${registered}`, isAgent: true };
    if (surface === 'MCP') {
      const user = must(await tool(await mcpClient(), 'register_account', account)).user;
      const client = await mcpClient(user.apiKey);
      return { id: user.id, call: (method, args = {}) => tool(client, method, args) };
    }
    const send = surface === 'REST' ? restCall : rpc;
    const user = must(await send('register_account', account, {})).user;
    const headers = { Authorization: `Bearer ${user.apiKey}` };
    return { id: user.id, call: (method, args = {}) => send(method, args, headers) };
  }

  /** What the pool shows of itself: any trade changes one of these. */
  const pool = async (a: Agent) => {
    const c = must(await a.call('get_community_market', { slug: community.slug }));
    return { poolCash: c.poolCash, volume: c.volume, tradeCount: c.tradeCount, outcomeTokens: c.outcomeTokens };
  };
  const restingBuy = (size: number) => ({ tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size, timeInForce: 'GTC' });
  /** The ledger audit's findings about these accounts, orders, positions or markets (afterAll checks the whole ledger). */
  const auditOf = async (...ids: string[]) => (await auditLedger(t.services.db)).violations.filter((v) => ids.some((id) => v.includes(id)));

  test.each(SURFACES)(
    'when a resting buy holds 950 dollars, a 200 dollar community buy is refused with INSUFFICIENT_BALANCE and changes nothing (%s)',
    async (surface) => {
      const a = await agentOn(surface);
      const { order } = must(await a.call('place_order', restingBuy(950)));
      expect(order).toMatchObject({ state: 'open', reservedCash: 950, filledShares: 0 });
      expect(must(await a.call('get_balance'))).toEqual({ balance: 1000, reserved: 950, available: 50 });
      const before = await pool(a);

      expect(await a.call('buy_community_shares', { tokenId: community.yes, amount: 200 })).toEqual(refusal(surface, 'INSUFFICIENT_BALANCE'));
      // The same 200 dollars at a mirrored market's live price answer the same: one rule for every debit.
      expect(await a.call('paper_trade', { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 200 })).toEqual(
        refusal(surface, 'INSUFFICIENT_BALANCE'),
      );

      expect(must(await a.call('get_balance'))).toEqual({ balance: 1000, reserved: 950, available: 50 });
      expect(must(await a.call('get_portfolio'))).toMatchObject({ positions: [], balance: 1000 });
      expect(await pool(a)).toEqual(before);
      expect(must(await a.call('get_order', { id: order.id })).order).toMatchObject({ state: 'open', reservedCash: 950 });
      expect(await auditOf(a.id, order.id, community.id)).toEqual([]);
    },
  );

  test.each(SURFACES)(
    'when a resting buy holds 950 dollars, a community buy of one micro-dollar more than the 50 available is refused and one of exactly 50 goes through (%s)',
    async (surface) => {
      const a = await agentOn(surface);
      must(await a.call('place_order', restingBuy(950)));
      const before = await pool(a);
      expect(await a.call('buy_community_shares', { tokenId: community.yes, amount: 50.000001 })).toEqual(refusal(surface, 'INSUFFICIENT_BALANCE'));
      expect(await pool(a)).toEqual(before);

      const bought = must(await a.call('buy_community_shares', { tokenId: community.yes, amount: 50 }));
      expect(bought).toMatchObject({ success: true, totalCost: 50, balance: 950 });
      expect(must(await a.call('get_balance'))).toEqual({ balance: 950, reserved: 950, available: 0 });
      expect((await pool(a)).poolCash).toBeCloseTo(before.poolCash + 50, 6);
      expect(await auditOf(a.id, community.id)).toEqual([]);
    },
  );

  test.each(SURFACES)(
    'when a resting sell holds 120 of 160 shares, sell_position of more than the 40 unreserved is refused and changes nothing (%s)',
    async (surface) => {
      const a = await agentOn(surface);
      const buy = must(await a.call('paper_trade', { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 }));
      expect(buy).toMatchObject({ quantity: 160, price: 0.625 });
      const { order } = must(await a.call('place_order', { tokenId: m.yes, side: 'SELL', limitPrice: 0.9, size: 120, timeInForce: 'GTC' }));
      expect(order).toMatchObject({ state: 'open', reservedShares: 120 });

      // sell_position documents VALIDATION_ERROR for a quantity above the unreserved holding; omitting quantity means all 160.
      expect(await a.call('sell_position', { id: buy.positionId, quantity: 40.000001 })).toEqual(refusal(surface, 'VALIDATION_ERROR'));
      expect(await a.call('sell_position', { id: buy.positionId })).toEqual(refusal(surface, 'VALIDATION_ERROR'));
      expect(must(await a.call('get_portfolio')).positions).toEqual([expect.objectContaining({ id: buy.positionId, quantity: 160, isClosed: false })]);
      expect(must(await a.call('get_balance'))).toEqual({ balance: 900, reserved: 0, available: 900 });
      expect(must(await a.call('get_order', { id: order.id })).order).toMatchObject({ state: 'open', reservedShares: 120 });

      const sold = must(await a.call('sell_position', { id: buy.positionId, quantity: 40 }));
      expect(sold).toMatchObject({ quantitySold: 40, price: 0.6, proceeds: 24, isClosed: false });
      expect(await a.call('sell_position', { id: buy.positionId, quantity: 0.000001 })).toEqual(refusal(surface, 'VALIDATION_ERROR'));
      expect(await auditOf(a.id, order.id, buy.positionId)).toEqual([]);
    },
  );

  test('when a resting buy holds 950 dollars, creating a community market with 100 dollars of liquidity is refused with INSUFFICIENT_BALANCE and changes nothing (REST: creating needs a browser session)', async () => {
    const create = t.services.registry.methods.find((x) => x.name === 'create_community_market')!;
    expect(onSurface(create, 'jsonrpc') || onSurface(create, 'mcp')).toBe(false);
    const p = await signedInPerson(t);
    const asPerson = { Cookie: p.cookie, Origin: p.origin };
    must(await restCall('place_order', restingBuy(950), asPerson));
    const market = (liquidity: number) => ({
      question: 'Will the lighthouse be repainted before spring?',
      category: 'Local',
      outcomes: ['Yes', 'No'],
      endDate: new Date(Date.now() + 2 * 86400_000).toISOString(),
      liquidity,
    });

    expect(await restCall('create_community_market', market(100), asPerson)).toEqual(refusal('REST', 'INSUFFICIENT_BALANCE'));
    expect(must(await restCall('get_balance', {}, asPerson))).toEqual({ balance: 1000, reserved: 950, available: 50 });
    expect(must(await restCall('list_community_markets', { creator: p.id, status: 'all' }, {})).markets).toEqual([]);

    // Liquidity of exactly the available cash (and the minimum) funds the pool.
    const created = must(await restCall('create_community_market', market(50), asPerson));
    expect(created).toMatchObject({ liquidity: 50, poolCash: 50 });
    expect(must(await restCall('get_balance', {}, asPerson))).toEqual({ balance: 950, reserved: 950, available: 0 });
    expect(await auditOf(p.id, created.id)).toEqual([]);
  });
});

/** The result of a call that must succeed; a refusal fails the test with its code. */
function must(a: Answer): Json {
  if (!a.ok) throw new Error(`expected success, got ${a.code} (${a.wire})`);
  return a.value;
}
