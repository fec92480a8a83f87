import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client as McpClient, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import type { Client as A2aClient } from '@a2a-js/sdk/client';
import type { StreamResponse } from '@a2a-js/sdk';
import { Webhook } from 'standardwebhooks';
import { backends } from './support/backends';
import { registerAgent, startTestApp, type TestApp } from './support/app';

/**
 * The walkthrough "A resting order, end to end" of docs/orders.md, run as written: an agent rests two GTC limit orders over MCP,
 * follows them on its SSE stream, as A2A tasks and through its webhook; the simulated venue's price crosses one of them
 * (the market sync of the simulated feed, driven here with a test clock); the agent cancels the other and reads its
 * equity curve. Only the first backend (the embedded database): the walkthrough is what a newcomer runs.
 */
class TestClock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The agent's webhook receiver: records each delivery and answers 204. */
async function receiver(): Promise<{ url: string; got: Delivery[]; close: () => Promise<void> }> {
  const got: Delivery[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/paper`,
    got,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** Reads `GET /api/events` as a browser's EventSource would: id, event and data of each message. */
async function openEvents(url: string, key: string) {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' }, signal: ctrl.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const seen: Array<{ id: string; event: string; data: { seq: number; type: string; data: Record<string, unknown> } }> = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        const data = field('data');
        if (data) seen.push({ id: field('id')!, event: field('event')!, data: JSON.parse(data) });
      }
    }
  })().catch(() => {});
  return { seen, close: () => (ctrl.abort(), reading) };
}

async function eventually(what: string, pred: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(backends().slice(0, 1))('the docs/orders.md walkthrough: a resting order, end to end, on $name', (backend) => {
  let t: TestApp;
  const clock = new TestClock(Date.UTC(2026, 10, 25, 9, 0, 0));
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let mcp: McpClient;
  let a2a: A2aClient;
  let sdk: typeof import('@a2a-js/sdk');

  beforeAll(async () => {
    // The receiver listens on loopback, which only OUTBOUND_ALLOW_PRIVATE lets the service send to.
    t = await startTestApp(backend, { listen: true, clock, background: false, config: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
    t.services.webhookWorker.start();
    await t.services.marketSync.runOnce({ force: true });
    hooks = await receiver();
    sdk = await import('@a2a-js/sdk');
  });
  afterAll(async () => {
    await mcp?.close();
    await hooks.close();
    await t.close();
  });

  test('an agent rests two GTC orders over MCP, sees one fill on its SSE stream, its A2A task and its webhook, cancels the other, and reads its equity curve', async () => {
    // 1. Register (the API key is shown once) and register a webhook (its signing secret is shown once).
    const agent = await registerAgent(t, 'Walker');
    const auth = { Authorization: `Bearer ${agent.apiKey}` };
    const hook = await t.api
      .post('/api/webhooks')
      .set(auth)
      .send({ url: hooks.url, types: ['order.filled', 'order.cancelled'] });
    expect(hook.status).toBe(201);
    const verifier = new Webhook(hook.body.secret);

    // 2. Follow the account's events.
    const stream = await openEvents(`${t.baseUrl}/api/events`, agent.apiKey);

    // 3. Connect an MCP client (v2 SDK, protocol 2026-07-28) and find a market.
    mcp = new McpClient({ name: 'walker', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: auth } }));
    expect(mcp.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      return r.structuredContent as Record<string, never>;
    };
    const found = await call('search_prediction_markets', { q: 'will', limit: 1 });
    const market = (found.markets as Array<{ id: string; outcomeTokens: Array<{ tokenId: string; outcome: string }> }>)[0]!;
    const odds = (await call('get_market_odds', { marketId: market.id })).odds as Record<'yes' | 'no', { ask: number | null; mid: number }>;
    const quotes = market.outcomeTokens.map((tk) => ({ tokenId: tk.tokenId, ask: odds[tk.outcome.toLowerCase() as 'yes' | 'no'].ask }));

    // 4. Rest a buy of each outcome a cent under its ask: whichever way the price moves, one of them is crossed.
    const orders: Array<{ id: string; tokenId: string }> = [];
    for (const q of quotes) {
      const ask = q.ask!;
      const { order: placed } = await call('place_order', {
        tokenId: q.tokenId,
        side: 'BUY',
        limitPrice: Math.round((ask - 0.01) * 1000) / 1000,
        size: 25,
        timeInForce: 'GTC',
        idempotencyKey: randomUUID(),
      });
      const o = placed as { id: string; state: string };
      expect(o.state).toBe('open');
      orders.push({ id: o.id, tokenId: q.tokenId });
    }

    // 5. Follow both orders as A2A tasks (task id = order id).
    const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = await import('@a2a-js/sdk/client');
    const withKey: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...auth } });
    a2a = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })] }),
    ).createFromUrl(t.baseUrl);
    for (const o of orders) expect((await a2a.getTask({ tenant: '', id: o.id })).status?.state).toBe(sdk.TaskState.TASK_STATE_WORKING);
    const follow = (id: string) => {
      const seen: StreamResponse[] = [];
      const done = (async () => {
        for await (const ev of a2a.resubscribeTask({ tenant: '', id })) seen.push(ev);
        return seen;
      })();
      return { seen, done };
    };
    const followed = orders.map((o) => follow(o.id));
    // Each subscription first sends the task as it is: from then on it follows every change.
    await eventually('the A2A subscriptions', () => followed.every((f) => f.seen.length > 0));

    // 6. The simulated venue moves: each market sync mirrors its prices until one resting order is crossed.
    let filled: string | undefined;
    for (let hour = 0; hour < 24 * 60 && !filled; hour += 1) {
      clock.t += 3_600_000;
      await t.services.marketSync.runOnce({ force: true });
      for (const o of orders) if (((await call('get_order', { id: o.id })).order as { state: string }).state === 'filled') filled = o.id;
    }
    expect(filled).toBeDefined();
    const other = orders.find((o) => o.id !== filled)!;

    // 7. Cancel the other one over MCP.
    expect(((await call('cancel_order', { id: other.id })).order as { state: string }).state).toBe('cancelled');

    // The SSE stream saw both orders accepted, one filled with its trade, the other cancelled, in seq order.
    await eventually('the stream', () => stream.seen.some((e) => e.event === 'order.cancelled'));
    const ofOrders = stream.seen.filter((e) => e.event.startsWith('order.')).map((e) => [e.event, e.data.data.id]);
    expect(ofOrders).toEqual([
      ['order.accepted', orders[0]!.id],
      ['order.accepted', orders[1]!.id],
      ['order.filled', filled],
      ['order.cancelled', other.id],
    ]);
    expect(stream.seen.some((e) => e.event === 'trade')).toBe(true);
    const seqs = stream.seen.map((e) => BigInt(e.id));
    expect(seqs).toEqual([...seqs].sort((a, b) => (a < b ? -1 : 1)));

    // The A2A tasks ended: the filled order's task completed, the other's canceled.
    const [one, two] = await Promise.all(followed.map((f) => f.done));
    const lastState = (seen: StreamResponse[]) =>
      (seen.filter((e) => e.payload?.$case === 'statusUpdate').pop()!.payload!.value as { status: { state: number } }).status.state;
    const byId = new Map([
      [orders[0]!.id, lastState(one!)],
      [orders[1]!.id, lastState(two!)],
    ]);
    expect(byId.get(filled!)).toBe(sdk.TaskState.TASK_STATE_COMPLETED);
    expect(byId.get(other.id)).toBe(sdk.TaskState.TASK_STATE_CANCELED);

    // The webhook received the fill and the cancel, each signed the Standard Webhooks way.
    await eventually('the webhook deliveries', () => hooks.got.length >= 2);
    // Signed at the service's time, which the test clock has moved hours ahead: the verifier checks the timestamp against it.
    const wallClock = Date.now;
    Date.now = () => clock.t;
    let delivered: Array<{ type: string; data: { id: string } }>;
    try {
      delivered = hooks.got.map((d) => verifier.verify(d.body, d.headers as Record<string, string>) as { type: string; data: { id: string } });
    } finally {
      Date.now = wallClock;
    }
    expect(delivered.map((d) => [d.type, d.data.id])).toEqual([
      ['order.filled', filled],
      ['order.cancelled', other.id],
    ]);

    // 8. The equity curve: cash plus the filled position at the mirrored price.
    const history = await call('get_portfolio_history', { period: '1d' });
    const points = history.points as Array<{ equity: number; cash: number; positionsValue: number; live: boolean }>;
    const now = points[points.length - 1]!;
    expect(now.live).toBe(true);
    expect(now.cash).toBeCloseTo(1000 - 25, 6);
    expect(now.positionsValue).toBeGreaterThan(0);
    expect(now.equity).toBeCloseTo(now.cash + now.positionsValue, 6);
    await stream.close();
  }, 120_000);
});
