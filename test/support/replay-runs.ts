import type { Backend } from './backends';
import { bearer, registerAgent, startTestApp, type TestApp, type TestAppOptions } from './app';
import type { ReplayView } from '../../src/domain/replay/replay-runs';
import type { MarketView } from '../../src/market-data/market-view';

/** A run as POST /api/replays answers it (its view and its own key): the fields the tests read. */
export type StartedRun = Pick<ReplayView, 'runId' | 'clock' | 'startAt' | 'endAt'> & { apiKey: string };

/**
 * An app that hosts replay runs on a real port, with no market sync of its own but one at start (background off: the
 * test moves the clocks), and the live agent who starts the runs.
 */
export async function startReplayHost(
  backend: Backend,
  agentName: string,
  opts: Pick<TestAppOptions, 'clock' | 'config'>,
): Promise<{ t: TestApp; live: { id: string; apiKey: string } }> {
  const t = await startTestApp(backend, { ...opts, listen: true, background: false });
  await t.services.marketSync.runOnce();
  return { t, live: await registerAgent(t, agentName) };
}

/** Starts a replay run with the owner's key (201, or the test fails). */
export async function startRun(t: TestApp, ownerKey: string, body: Record<string, unknown>): Promise<StartedRun> {
  const res = await t.api.post('/api/replays').set(bearer(ownerKey)).send(body);
  expect(res.status).toBe(201);
  return res.body as StartedRun;
}

/** The markets a key sees (a run's key: the run's venue), 50 at most. */
export async function listMarkets(t: TestApp, key: string, query: Record<string, unknown> = {}): Promise<MarketView[]> {
  const res = await t.api
    .get('/api/markets')
    .query({ limit: 50, ...query })
    .set(bearer(key));
  return res.body.markets as MarketView[];
}
