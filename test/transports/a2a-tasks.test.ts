import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import type { Message, Part, StreamResponse, Task } from '@a2a-js/sdk';
import { backends, describeOnPostgres } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { a2aClient, dataPart, loadA2aSdk, messageRequest, withKey, type A2aSdk } from '../support/a2a-client';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { ERROR_TABLE } from '../../src/errors/app-error';
import { TaskPushWorker } from '../../src/a2a-tasks/push-worker';
import { TaskPushStore } from '../../src/domain/task-push/task-push-store';
import type { Database } from '../../src/db/database';
import { EventFeed } from '../../src/domain/events/event-feed';

let sdk: A2aSdk;
beforeAll(async () => {
  sdk = await loadA2aSdk();
});

/** A local receiver of push notifications (allowed: the app runs with OUTBOUND_ALLOW_PRIVATE=true). */
class Receiver {
  readonly got: Array<{ headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> = [];
  private waiters: Array<() => void> = [];
  private server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      this.got.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200).end();
      for (const w of this.waiters.splice(0)) w();
    });
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
  async next(count: number, ms = 10_000): Promise<void> {
    const until = Date.now() + ms;
    while (this.got.length < count) {
      if (Date.now() > until) throw new Error(`only ${this.got.length} of ${count} pushes arrived`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }
}

/**
 * A push worker of its own on `t`'s feed and listening session, whose store counts the statements it runs (every
 * query and transaction through the Database handle).
 */
async function countingWorker(t: TestApp): Promise<{ worker: TaskPushWorker; feed: EventFeed; statements: { query: number; transaction: number } }> {
  const statements = { query: 0, transaction: 0 };
  const real = t.services.db;
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === 'query' || prop === 'transaction') {
        return (...args: unknown[]) => {
          statements[prop] += 1;
          return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Database;
  // A feed of its own, listening as the service's does, whose catch-up (every CATCH_UP_MS, a reload of every target)
  // never falls inside the windows whose statements are counted.
  const feed = new EventFeed(t.services.log, 3_600_000);
  await feed.start((channel, onPayload, onResumed) => real.listen(channel, onPayload, onResumed));
  const worker = new TaskPushWorker({
    store: new TaskPushStore(db),
    orders: t.services.orders,
    feed,
    listen: (channel, onPayload, onResumed) => real.listen(channel, onPayload, onResumed),
    config: t.config,
    log: t.services.log,
  });
  await worker.start();
  return { worker, feed, statements };
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(backends())('A2A tasks (orders) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  let agent: { id: string; apiKey: string };
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp(backend, { listen: true, prices, config: { OUTBOUND_ALLOW_PRIVATE: 'true', EVENT_STREAMS_PER_ACCOUNT: 2 } });
    agent = await registerAgent(t, 'TaskAgent');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await quote(0.6, 0.62);
  });

  const quote = (bid: number, ask: number) => moveQuote(t.services.db, prices, m.yes, bid, ask);
  /** The price falls through the limit and the resting order fills, as after a market sync. */
  async function fill(id: string) {
    await quote(0.45, 0.48);
    expect(await t.services.orders.fillResting(id, new Date())).toBe(true); // appends order.filled
  }
  async function cancelOverRest(id: string) {
    const res = await t.api.post(`/api/orders/${id}/cancel`).set('Authorization', `Bearer ${agent.apiKey}`);
    expect(res.status).toBe(200); // the cancel appends order.cancelled
  }
  const placeOrder = (limitPrice = 0.5, size = 10) => dataPart({ skill: 'place_order', input: { tokenId: m.yes, side: 'BUY', limitPrice, size } });

  const v1 = (key = agent.apiKey) => a2aClient(t.baseUrl, key);
  const v03 = (key = agent.apiKey) => new LegacyJsonRpcTransport({ endpoint: `${t.baseUrl}/api/a2a`, fetchImpl: withKey(key) });
  const orderOf = (task: Task) => (task.artifacts[0]!.parts[0]!.content!.value as { order: { id: string; state: string } }).order;

  describe('with the @a2a-js/sdk 1.3 client (A2A v1.0)', () => {
    test('when place_order rests, then SendMessage answers a working task whose id is the order id, and GetTask / ListTasks read it', async () => {
      const client = await v1();
      expect(client.protocolVersion).toBe('1.0');
      const task = (await client.sendMessage(messageRequest([placeOrder()], 'ctx-orders'))) as Task;
      expect(task.status?.state).toBe(sdk.TaskState.TASK_STATE_WORKING);
      expect(task.contextId).toBe('ctx-orders');
      const order = orderOf(task);
      expect(order).toMatchObject({ id: task.id, state: 'open' });
      const rest = await t.api.get(`/api/orders/${task.id}`).set('Authorization', `Bearer ${agent.apiKey}`);
      expect(rest.body.order.state).toBe('open');

      const again = await client.getTask({ tenant: '', id: task.id });
      expect(again).toMatchObject({ id: task.id, contextId: 'ctx-orders', status: { state: sdk.TaskState.TASK_STATE_WORKING } });
      const listed = await client.listTasks({
        tenant: '',
        contextId: 'ctx-orders',
        status: sdk.TaskState.TASK_STATE_WORKING,
        pageToken: '',
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      });
      expect(listed.tasks.map((x) => x.id)).toContain(task.id);
      expect(listed.totalSize).toBeGreaterThanOrEqual(1);
    });

    test('when ListTasks filters by working and canceled, then a partially filled order is working and an expired one canceled', async () => {
      const a = await registerAgent(t, 'Lister');
      const client = await v1(a.apiKey);
      // The published book holds 40 + 50 shares at or under 0.5: the buy takes them and rests the rest.
      await quote(0.44, 0.45);
      prices.book(
        m.yes,
        [[0.44, 100]],
        [
          [0.45, 40],
          [0.48, 50],
          [0.55, 1000],
        ],
      );
      const partial = (await client.sendMessage(messageRequest([placeOrder(0.5, 100)]))) as Task;
      expect(partial.status?.state).toBe(sdk.TaskState.TASK_STATE_WORKING);
      expect(orderOf(partial).state).toBe('partially_filled');
      const expiresAt = new Date(Date.now() + 60_000).toISOString();
      const gtd = (await client.sendMessage(
        messageRequest([dataPart({ skill: 'place_order', input: { tokenId: m.yes, side: 'BUY', limitPrice: 0.3, size: 10, timeInForce: 'GTD', expiresAt } })]),
      )) as Task;
      expect(orderOf(gtd).state).toBe('open');
      await t.services.orders.expireDue(new Date(Date.now() + 120_000));
      expect((await client.getTask({ tenant: '', id: gtd.id })).status?.state).toBe(sdk.TaskState.TASK_STATE_CANCELED);

      const list = (status: number) =>
        client.listTasks({ tenant: '', contextId: '', status, pageToken: '', statusTimestampAfter: undefined, includeArtifacts: false });
      const working = await list(sdk.TaskState.TASK_STATE_WORKING);
      expect(working.tasks.map((x) => x.id)).toEqual([partial.id]);
      expect(working.totalSize).toBe(1);
      const canceled = await list(sdk.TaskState.TASK_STATE_CANCELED);
      expect(canceled.tasks.map((x) => x.id)).toEqual([gtd.id]);
      expect(canceled.totalSize).toBe(1);
      expect((await list(sdk.TaskState.TASK_STATE_COMPLETED)).tasks).toEqual([]);
      // No status, or one the SDK could not name (listTasks({}) sends UNRECOGNIZED), filters nothing: both orders listed.
      for (const status of [sdk.TaskState.TASK_STATE_UNSPECIFIED, sdk.TaskState.UNRECOGNIZED]) {
        const all = await list(status);
        expect(all.tasks.map((x) => x.id).sort()).toEqual([partial.id, gtd.id].sort());
        expect(all.totalSize).toBe(2);
      }
      expect((await list(sdk.TaskState.TASK_STATE_SUBMITTED)).tasks).toEqual([]);
    });

    test('when place_order fills at once, then the answer is a message with the order (no task), as every other skill', async () => {
      const client = await v1();
      const result = (await client.sendMessage(messageRequest([placeOrder(0.7)]))) as Message;
      expect(result.messageId).toBeTruthy();
      expect((result.parts[0]!.content!.value as { order: { state: string } }).order.state).toBe('filled');
    });

    test('when SendStreamingMessage places a resting order that then fills, then the stream shows working, the filled order and completed, and ends', async () => {
      const client = await v1();
      const seen: StreamResponse[] = [];
      for await (const ev of client.sendMessageStream(messageRequest([placeOrder()]))) {
        seen.push(ev);
        if (seen.length === 1) {
          expect(ev.payload?.$case).toBe('task');
          await fill((ev.payload!.value as Task).id);
        }
      }
      const cases = seen.map((e) => e.payload?.$case);
      expect(cases).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
      const status = seen[2]!.payload!.value as { status: { state: number } };
      expect(status.status.state).toBe(sdk.TaskState.TASK_STATE_COMPLETED);
      const artifact = seen[1]!.payload!.value as { artifact: { parts: Part[] } };
      expect((artifact.artifact.parts[0]!.content!.value as { order: { state: string } }).order.state).toBe('filled');
    });

    test('when SubscribeToTask follows a resting order cancelled over REST, then it sees canceled and ends; a subscription to an ended task is refused', async () => {
      const client = await v1();
      const task = (await client.sendMessage(messageRequest([placeOrder()]))) as Task;
      const seen: StreamResponse[] = [];
      for await (const ev of client.resubscribeTask({ tenant: '', id: task.id })) {
        seen.push(ev);
        if (seen.length === 1) await cancelOverRest(task.id);
      }
      expect(seen.map((e) => e.payload?.$case)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
      expect((seen[2]!.payload!.value as { status: { state: number } }).status.state).toBe(sdk.TaskState.TASK_STATE_CANCELED);
      const err = await (async () => {
        for await (const _ of client.resubscribeTask({ tenant: '', id: task.id })) return null;
        return null;
      })().catch((e: Error) => e);
      expect(err?.name).toBe('UnsupportedOperationError');
    });

    test('when CancelTask cancels a working task, then the order is cancelled, its reservation released, and a second cancel is TaskNotCancelable', async () => {
      const client = await v1();
      const task = (await client.sendMessage(messageRequest([placeOrder(0.5, 25)]))) as Task;
      expect((await t.api.get('/api/user/balance').set('Authorization', `Bearer ${agent.apiKey}`)).body.reserved).toBeGreaterThanOrEqual(25);
      const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(sdk.TaskState.TASK_STATE_CANCELED);
      expect(orderOf(cancelled).state).toBe('cancelled');
      const err = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined }).catch((e: Error) => e);
      expect((err as Error).name).toBe('TaskNotCancelableError');
      const missing = await client.getTask({ tenant: '', id: randomUUID() }).catch((e: Error) => e);
      expect((missing as Error).name).toBe('TaskNotFoundError');
    });

    test("when another account asks for an agent's task, then it does not exist for them", async () => {
      const other = await registerAgent(t, 'Other');
      const task = (await (await v1()).sendMessage(messageRequest([placeOrder()]))) as Task;
      const err = await (await v1(other.apiKey)).getTask({ tenant: '', id: task.id }).catch((e: Error) => e);
      expect((err as Error).name).toBe('TaskNotFoundError');
      const cancel = await (await v1(other.apiKey)).cancelTask({ tenant: '', id: task.id, metadata: undefined }).catch((e: Error) => e);
      expect((cancel as Error).name).toBe('TaskNotFoundError');
    });

    test('when a push config is created, then get/list show it, a fill is POSTed to the URL with its token and credentials, and delete removes it', async () => {
      const client = await v1();
      const task = (await client.sendMessage(messageRequest([placeOrder()]))) as Task;
      const created = await client.createTaskPushNotificationConfig({
        tenant: '',
        id: 'hook-1',
        taskId: task.id,
        url: receiver.url,
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'secret-1' },
      });
      expect(created).toMatchObject({ id: 'hook-1', taskId: task.id, url: receiver.url, token: 'tok-1' });
      expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })).toMatchObject({ url: receiver.url });
      expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual([
        'hook-1',
      ]);

      const before = receiver.got.length;
      await fill(task.id);
      await receiver.next(before + 1);
      const push = receiver.got[before]!;
      expect(push.headers['x-a2a-notification-token']).toBe('tok-1');
      expect(push.headers.authorization).toBe('Bearer secret-1');
      expect(push.body).toMatchObject({ task: { id: task.id, status: { state: 'TASK_STATE_COMPLETED' } } });

      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    });

    test('when SendMessage carries a push config, then the resting task pushes its cancellation there', async () => {
      const client = await v1();
      const task = (await client.sendMessage(messageRequest([placeOrder()]), undefined)) as Task;
      expect(task.id).toBeTruthy();
      const withPush = (await client.sendMessage(messageRequest([placeOrder()], '', { url: receiver.url, token: 'at-send' }))) as Task;
      const before = receiver.got.length;
      await cancelOverRest(withPush.id);
      await receiver.next(before + 1);
      expect(receiver.got[before]!.headers['x-a2a-notification-token']).toBe('at-send');
      expect(receiver.got[before]!.body).toMatchObject({ task: { id: withPush.id, status: { state: 'TASK_STATE_CANCELED' } } });
    });

    test('when a push URL is not http(s), then the config is refused with VALIDATION_ERROR and nothing is stored', async () => {
      const client = await v1();
      const task = (await client.sendMessage(messageRequest([placeOrder()]))) as Task;
      const err = await client
        .createTaskPushNotificationConfig({ tenant: '', id: 'bad', taskId: task.id, url: 'ftp://example.com/x', token: '', authentication: undefined })
        .catch((e: { data?: { code?: string } }) => e);
      expect((err as { data?: { code?: string } }).data?.code).toBe('VALIDATION_ERROR');
      expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    });

    test('when the extended card is asked for with a key, then it names the account and its limits; without one, UNAUTHORIZED', async () => {
      const card = await (await v1()).getAgentCard();
      const caller = card.capabilities!.extensions.find((e) => e.uri.endsWith('#caller/v1'))!;
      expect(caller.params).toMatchObject({ userId: agent.id, rateLimitsPerMinute: { trade: t.config.RATE_LIMIT_TRADE_PER_MIN } });
      expect((caller.params as { keyedSkills: Array<{ id: string }> }).keyedSkills.map((s) => s.id)).toContain('place_order');
      const anonymous = await (await v1('')).getAgentCard().catch((e: { data?: { code?: string } }) => e);
      expect((anonymous as { data?: { code?: string } }).data?.code).toBe('UNAUTHORIZED');
    });
  });

  describe('with the @a2a-js/sdk 1.3 v0.3 transport', () => {
    test('when place_order rests, then message/send answers a working task that tasks/get reads and tasks/cancel cancels', async () => {
      const legacy = v03();
      expect(legacy.protocolVersion).toBe('0.3');
      const task = (await legacy.sendMessage(messageRequest([placeOrder()], 'ctx-03'))) as Task;
      expect(task.status?.state).toBe(sdk.TaskState.TASK_STATE_WORKING);
      expect(task.contextId).toBe('ctx-03');
      expect((await legacy.getTask({ tenant: '', id: task.id })).status?.state).toBe(sdk.TaskState.TASK_STATE_WORKING);
      const cancelled = await legacy.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(sdk.TaskState.TASK_STATE_CANCELED);
    });

    test('when message/stream places a resting order that fills, then the stream ends completed', async () => {
      const seen: StreamResponse[] = [];
      for await (const ev of v03().sendMessageStream(messageRequest([placeOrder()]))) {
        seen.push(ev);
        if (seen.length === 1) await fill((ev.payload!.value as Task).id);
      }
      expect(seen[0]!.payload?.$case).toBe('task');
      const last = seen[seen.length - 1]!.payload!;
      expect(last.$case).toBe('statusUpdate');
      expect((last.value as { status: { state: number } }).status.state).toBe(sdk.TaskState.TASK_STATE_COMPLETED);
    });

    test('when tasks/resubscribe follows a task cancelled over REST, then it ends canceled', async () => {
      const legacy = v03();
      const task = (await legacy.sendMessage(messageRequest([placeOrder()]))) as Task;
      const seen: StreamResponse[] = [];
      for await (const ev of legacy.resubscribeTask({ tenant: '', id: task.id })) {
        seen.push(ev);
        if (seen.length === 1) await cancelOverRest(task.id);
      }
      const last = seen[seen.length - 1]!.payload!;
      expect((last.value as { status: { state: number } }).status.state).toBe(sdk.TaskState.TASK_STATE_CANCELED);
    });

    test('when a push config is set over v0.3, then the push body is the v0.3 task (kind task, state completed) and get/list/delete work', async () => {
      const legacy = v03();
      const task = (await legacy.sendMessage(messageRequest([placeOrder()]))) as Task;
      await legacy.createTaskPushNotificationConfig({
        tenant: '',
        id: 'old-hook',
        taskId: task.id,
        url: receiver.url,
        token: 'tok-03',
        authentication: undefined,
      });
      expect(await legacy.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'old-hook' })).toMatchObject({ url: receiver.url });
      expect((await legacy.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toHaveLength(1);
      const before = receiver.got.length;
      await fill(task.id);
      await receiver.next(before + 1);
      expect(receiver.got[before]!.headers['x-a2a-notification-token']).toBe('tok-03');
      expect(receiver.got[before]!.body).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
      await legacy.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'old-hook' });
      expect((await legacy.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    });

    test('when agent/getAuthenticatedExtendedCard is called with a key, then the v0.3 card comes back', async () => {
      const card = await v03().getExtendedAgentCard({ tenant: '' });
      expect(card.capabilities?.extensions.some((e) => e.uri.endsWith('#caller/v1'))).toBe(true);
    });
  });

  test('when an account is deleted, then its push configs and push cursor go with it', async () => {
    const doomed = await registerAgent(t, 'Doomed');
    const client = await v1(doomed.apiKey);
    const task = (await client.sendMessage(messageRequest([placeOrder()]))) as Task;
    await client.createTaskPushNotificationConfig({ tenant: '', id: 'gone', taskId: task.id, url: receiver.url, token: 'x', authentication: undefined });
    const count = async () =>
      (
        await t.services.db.query<{ n: number }>(
          'SELECT (SELECT count(*) FROM a2a_push_configs WHERE user_id = $1) + (SELECT count(*) FROM a2a_push_cursors WHERE user_id = $1) AS n',
          [doomed.id],
        )
      )[0]!.n;
    expect(Number(await count())).toBe(2);
    const res = await t.api.post('/api/user/delete').set('Authorization', `Bearer ${doomed.apiKey}`).send({ password: 'password123' });
    expect(res.status).toBe(200);
    expect(Number(await count())).toBe(0);
  });

  describe('the A2A-Version header', () => {
    const call = (version?: string) => {
      const r = t.api.post('/api/a2a').set('Authorization', `Bearer ${agent.apiKey}`);
      if (version !== undefined) r.set('A2A-Version', version);
      return r.send({ jsonrpc: '2.0', id: 7, method: 'ListTasks', params: {} });
    };

    test.each(['1.0', '0.3', undefined])('when it is %s, then the call is served', async (version) => {
      const res = await call(version);
      expect(res.status).toBe(200);
      expect(res.body.result.tasks).toBeDefined();
    });

    test('when it names a version not served, then VersionNotSupportedError (-32009) naming the served ones', async () => {
      const res = await call('2.0');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32009);
      expect(res.body.error.message).toMatch(/1\.0, 0\.3/);
    });
  });

  test('when task methods are called without a key, then 401 with WWW-Authenticate and UNAUTHORIZED', async () => {
    const res = await t.api.post('/api/a2a').send({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(res.body.error).toMatchObject({ code: ERROR_TABLE.UNAUTHORIZED.rpc, data: { code: 'UNAUTHORIZED' } });
  });

  test('when an account holds EVENT_STREAMS_PER_ACCOUNT A2A streams open, then another is refused with RATE_LIMITED (no order placed) until one closes', async () => {
    const a = await registerAgent(t, 'Streamer');
    const client = await v1(a.apiKey);
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push((await client.sendMessage(messageRequest([placeOrder()]))) as Task);
    const subscribe = async (id: string, signal?: AbortSignal) =>
      fetch(`${t.baseUrl}/api/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${a.apiKey}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }),
        signal,
      });
    const held = [new AbortController(), new AbortController()];
    for (const [i, c] of held.entries()) {
      const res = await subscribe(tasks[i]!.id, c.signal);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const first = await res.body!.getReader().read(); // the task: the stream is open
      expect(new TextDecoder().decode(first.value)).toContain(tasks[i]!.id);
    }

    const refused = await subscribe(tasks[2]!.id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { error: { code: number; message: string; data: { code: string } } };
    expect(body.error).toMatchObject({ code: ERROR_TABLE.RATE_LIMITED.rpc, data: { code: 'RATE_LIMITED' } });
    expect(body.error.message).toMatch(/^2 A2A streams are already open for this account/);
    // A refused SendStreamingMessage places nothing.
    const count = async () => (await t.api.get('/api/orders').set('Authorization', `Bearer ${a.apiKey}`)).body.orders.length as number;
    const before = await count();
    const err = await (async () => {
      for await (const _ of client.sendMessageStream(messageRequest([placeOrder()]))) return null;
      return null;
    })().catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(await count()).toBe(before);
    // Another account is not held back.
    const other = await registerAgent(t, 'OtherStreamer');
    const mine = (await (await v1(other.apiKey)).sendMessage(messageRequest([placeOrder()]))) as Task;
    const otherRes = await fetch(`${t.baseUrl}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${other.apiKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: mine.id } }),
    });
    expect(otherRes.status).toBe(200);
    await otherRes.body!.cancel();

    // A closed stream frees its slot.
    held[0]!.abort();
    const reopened = new AbortController();
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const res = await subscribe(tasks[2]!.id, reopened.signal);
      status = res.status;
      if (status !== 200) await res.body?.cancel();
    }
    expect(status).toBe(200);
    reopened.abort();
    held[1]!.abort();
  });

  test('when an account without push configs has events, then the push worker runs no statement for them; one with a config is claimed', async () => {
    const { worker, feed, statements } = await countingWorker(t);
    try {
      const quiet = await registerAgent(t, 'NoPush');
      statements.query = statements.transaction = 0;
      // Events of an account without targets: the placement and the cancellation append order events.
      const placed = await t.api
        .post('/api/orders')
        .set('Authorization', `Bearer ${quiet.apiKey}`)
        .send({ tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10 });
      expect(placed.status).toBe(200);
      await t.api.post(`/api/orders/${placed.body.order.id}/cancel`).set('Authorization', `Bearer ${quiet.apiKey}`).expect(200);
      expect((await t.services.events.after(quiet.id, 0n, 100)).some((e) => e.type === 'order.cancelled')).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(statements).toEqual({ query: 0, transaction: 0 });

      // An account that registers a target is announced, joins the set, and its events are claimed.
      const pushy = await registerAgent(t, 'Push');
      const client = await v1(pushy.apiKey);
      const task = (await client.sendMessage(messageRequest([placeOrder()], '', { url: receiver.url, token: 'counted' }))) as Task;
      await until('the announcement to be read', () => statements.query >= 1);
      const claims = statements.transaction;
      const before = receiver.got.length;
      await t.api.post(`/api/orders/${task.id}/cancel`).set('Authorization', `Bearer ${pushy.apiKey}`).expect(200);
      await until('a claim', () => statements.transaction > claims);
      await receiver.next(before + 1);
    } finally {
      await worker.stop();
      await feed.stop();
    }
  });

  test('when a streaming method is put in a batch, then that call is refused and the others answer', async () => {
    const res = await t.api
      .post('/api/a2a')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .send([
        { jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: randomUUID() } },
        { jsonrpc: '2.0', id: 2, method: 'ListTasks', params: {} },
      ]);
    expect(res.status).toBe(200);
    expect(res.body[0].error.code).toBe(-32600);
    expect(res.body[1].result.tasks).toBeDefined();
  });
});

describeOnPostgres('A2A tasks across processes on $name', (backend) => {
  let one: TestApp;
  let two: TestApp;
  const prices = new ControlledPrices();
  const receiver = new Receiver();
  let agent: { id: string; apiKey: string };

  beforeAll(async () => {
    await receiver.start();
    const config = { OUTBOUND_ALLOW_PRIVATE: 'true' };
    one = await startTestApp(backend, { listen: true, prices, background: false, config });
    two = await startTestApp(
      { name: 'postgres', open: async () => ({ db: one.services.db, drop: async () => {} }) },
      { listen: true, prices, background: false, config },
    );
    agent = await registerAgent(one, 'TwoProcs');
  });
  afterAll(async () => {
    await two.close();
    await one.close();
    await receiver.close();
  });

  test('when a task is placed on one process and filled there, then another process streams it to the end, reads it, and the fill is pushed once', async () => {
    const m = await seedMarket(one.services.db);
    prices.set(m.yes, 0.6, 0.62);
    const book = (bid: number, ask: number) =>
      one.services.db.query(
        `UPDATE market_tokens SET bid_micro = $2::bigint, ask_micro = $3::bigint, price_micro = $2::bigint, price_at = now() WHERE token_id = $1`,
        [m.yes, Math.round(bid * 1e6), Math.round(ask * 1e6)],
      );
    await book(0.6, 0.62);
    const onOne = await a2aClient(one.baseUrl, agent.apiKey);
    const task = (await onOne.sendMessage(
      messageRequest([dataPart({ skill: 'place_order', input: { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10 } })], 'ctx-two'),
    )) as Task;
    await onOne.createTaskPushNotificationConfig({ tenant: '', id: 'once', taskId: task.id, url: receiver.url, token: 'tok', authentication: undefined });

    const onTwo = await a2aClient(two.baseUrl, agent.apiKey);
    expect(await onTwo.getTask({ tenant: '', id: task.id })).toMatchObject({ contextId: 'ctx-two', status: { state: sdk.TaskState.TASK_STATE_WORKING } });
    const seen: StreamResponse[] = [];
    for await (const ev of onTwo.resubscribeTask({ tenant: '', id: task.id })) {
      seen.push(ev);
      if (seen.length === 1) {
        await book(0.45, 0.48);
        // The fill appends its order.filled event itself (OrderService), which the other process's stream and the push follow.
        expect(await one.services.orders.fillResting(task.id, new Date())).toBe(true);
      }
    }
    expect((seen[seen.length - 1]!.payload!.value as { status: { state: number } }).status.state).toBe(sdk.TaskState.TASK_STATE_COMPLETED);
    await receiver.next(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.got.filter((g) => (g.body.task as { id: string }).id === task.id)).toHaveLength(1);
  });

  test("when a push config is created on one process, then another process's worker, which skipped the account's events until then, claims them", async () => {
    const { worker, statements } = await countingWorker(two);
    try {
      const m = await seedMarket(one.services.db);
      prices.set(m.yes, 0.6, 0.62);
      await one.services.db.query(
        `UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000, price_at = now() WHERE token_id = $1`,
        [m.yes],
      );
      const other = await registerAgent(one, 'Announced');
      const c = await a2aClient(one.baseUrl, other.apiKey);
      const place = () =>
        c.sendMessage(messageRequest([dataPart({ skill: 'place_order', input: { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10 } })]));
      statements.query = statements.transaction = 0;
      const task = (await place()) as Task; // its events reach process two's feed: no target yet, nothing run
      await new Promise((r) => setTimeout(r, 300));
      expect(statements).toEqual({ query: 0, transaction: 0 });

      await c.createTaskPushNotificationConfig({ tenant: '', id: 'announced', taskId: task.id, url: receiver.url, token: 'tok-a', authentication: undefined });
      // Process two heard the announcement over PostgreSQL (its own LISTEN session) and re-read the account.
      await until('the announcement to reach process two', () => statements.query >= 1);
      const claims = statements.transaction;
      const before = receiver.got.length;
      await one.api.post(`/api/orders/${task.id}/cancel`).set('Authorization', `Bearer ${other.apiKey}`).expect(200);
      await until("process two's worker to claim the cancellation", () => statements.transaction > claims);
      await receiver.next(before + 1);
      expect(receiver.got[before]!.headers['x-a2a-notification-token']).toBe('tok-a');
    } finally {
      await worker.stop();
    }
  });
});
