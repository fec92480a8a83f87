import type { StreamResponse, Task } from '@a2a-js/sdk';
import { backends } from '../support/backends';
import { bearer, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { a2aClient, dataPart, loadA2aSdk, messageRequest, type A2aSdk } from '../support/a2a-client';
import { listMarkets, startReplayHost, startRun, type StartedRun } from '../support/replay-runs';
import type { MarketView } from '../../src/market-data/market-view';

let sdk: A2aSdk;
beforeAll(async () => {
  sdk = await loadA2aSdk();
});

// Each run builds a migrated database of its own and syncs its venue at its start.
jest.setTimeout(180_000);

/** A2A tasks and webhooks with a replay run's key (issue 52 item 5): tasks are the run's orders; nothing goes out. */
describe.each(backends())('A2A tasks and webhooks in a replay run on $name', (backend) => {
  let t: TestApp;
  let live: { id: string; apiKey: string };
  let run: StartedRun;
  let m: MarketView;

  beforeAll(async () => {
    ({ t, live } = await startReplayHost(backend, 'Task runner', { clock: new ManualClock(), config: { OUTBOUND_ALLOW_PRIVATE: 'true' } }));
    run = await startRun(t, live.apiKey, { seed: 7, days: 2 });
    m = (await listMarkets(t, run.apiKey)).find((x) => x.endDate !== null && x.endDate > run.endAt)!;
  });
  afterAll(async () => t.close());

  /** A bid far below the market: it rests, so it is a task. */
  const restingBid = () => dataPart({ skill: 'place_order', input: { tokenId: yesOf(m), side: 'BUY', limitPrice: 0.01, amount: 5 } });
  const yesOf = (x: MarketView) => x.outcomeTokens.find((o) => o.outcome === 'YES')!.tokenId;
  const runOrders = async () => (await t.api.get('/api/orders').set(bearer(run.apiKey))).body.orders as Array<{ id: string; state: string }>;

  test('when a run key places a resting order over A2A, then the task is the run’s order: GetTask and ListTasks read it, SubscribeToTask follows it to its cancel, and the live account has no such task', async () => {
    const a2a = await a2aClient(t.baseUrl, run.apiKey);
    const task = (await a2a.sendMessage(messageRequest([restingBid()], 'ctx-run'))) as Task;
    expect(task.status?.state).toBe(sdk.TaskState.TASK_STATE_WORKING);
    expect(task.contextId).toBe('ctx-run');
    expect((await runOrders()).find((o) => o.id === task.id)).toMatchObject({ state: 'open' });

    expect(await a2a.getTask({ tenant: '', id: task.id })).toMatchObject({ id: task.id, contextId: 'ctx-run' });
    const listed = await a2a.listTasks({
      tenant: '',
      contextId: 'ctx-run',
      status: sdk.TaskState.TASK_STATE_WORKING,
      pageToken: '',
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.map((x) => x.id)).toEqual([task.id]);
    expect(listed.totalSize).toBe(1);

    const seen: StreamResponse[] = [];
    for await (const ev of a2a.resubscribeTask({ tenant: '', id: task.id })) {
      seen.push(ev);
      if (seen.length === 1) expect((await t.api.post(`/api/orders/${task.id}/cancel`).set(bearer(run.apiKey))).status).toBe(200);
    }
    expect(seen.map((e) => e.payload?.$case)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    expect((seen[2]!.payload!.value as { status: { state: number } }).status.state).toBe(sdk.TaskState.TASK_STATE_CANCELED);

    // The run's order is no task of the live account (nor of anyone live).
    const err = await (await a2aClient(t.baseUrl, live.apiKey)).getTask({ tenant: '', id: task.id }).catch((e: Error) => e);
    expect((err as Error).name).toBe('TaskNotFoundError');
  });

  test('when a run key streams SendStreamingMessage, then it follows the run’s order; a run key’s push notification config is refused with FORBIDDEN and places nothing', async () => {
    const a2a = await a2aClient(t.baseUrl, run.apiKey);
    const seen: StreamResponse[] = [];
    for await (const ev of a2a.sendMessageStream(messageRequest([restingBid()]))) {
      seen.push(ev);
      if (seen.length === 1) {
        const id = (ev.payload!.value as Task).id;
        expect((await t.api.post(`/api/orders/${id}/cancel`).set(bearer(run.apiKey))).status).toBe(200);
      }
    }
    expect(seen.map((e) => e.payload?.$case)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);

    const before = (await runOrders()).length;
    const refused = await a2a.sendMessage(messageRequest([restingBid()], '', { url: 'http://127.0.0.1:9/hook', token: 'x' })).catch((e: Error) => e);
    expect((refused as { data?: { code?: string } }).data?.code).toBe('FORBIDDEN');
    expect((refused as Error).message).toMatch(/A replay run sends no push notifications/);
    expect((await runOrders()).length).toBe(before);

    const open = (await a2a.sendMessage(messageRequest([restingBid()]))) as Task;
    const config = await a2a
      .createTaskPushNotificationConfig({ tenant: '', id: 'hook', taskId: open.id, url: 'http://127.0.0.1:9/hook', token: 'x', authentication: undefined })
      .catch((e: Error) => e);
    expect((config as { data?: { code?: string } }).data?.code).toBe('FORBIDDEN');
    expect((await a2a.listTaskPushNotificationConfig({ tenant: '', taskId: open.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });

  test('when a run key registers a webhook, then it is refused with FORBIDDEN, pointing to the run’s event stream', async () => {
    const res = await t.api.post('/api/webhooks').set(bearer(run.apiKey)).send({ url: 'https://agent.example.com/hooks' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
    expect(res.body.error).toMatch(/replay run’s key cannot register a webhook/);
    expect(res.body.hint).toMatch(/stream_events/);
    expect((await t.api.get('/api/webhooks').set(bearer(run.apiKey))).body.webhooks).toEqual([]);
  });
});
