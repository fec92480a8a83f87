import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { setClock } from '../support/traders';
import { TEST_MASTER, TEST_SIM_SECRET } from '../support/sealed-venue';
import { mcpCall, rpcCall } from '../support/rpc';
import { runCli, seasonOutcomes, verifyVenue, type OutcomeClaim } from '../../scripts/verify-venue';
import type { SimulatedFeed } from '../../src/market-data/simulated/simulated-feed';
import { scenarioFeed } from '../../src/market-data/simulated/scenario-feed';
import { scenarioNamed } from '../../src/domain/replay/replay-suite';
import { REPLAY_START_MS } from '../../src/domain/replay/replay-runs';
import { candidateRange } from '../../src/market-data/simulated/catalog';
import { scopeSecret } from '../../src/market-data/simulated/venue-seal';

type Sealed = { scope: string; commitment: string; state: 'sealed' | 'revealed'; secret: string | null; revealAt: string | null };
type Commitments = { scopes: Sealed[] };

// A season's catalog is some 330 markets, each a price path of up to 4,000 steps.
jest.setTimeout(120_000);

describe.each(backends())('sealed outcomes, checked from a reveal, on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.parse('2026-11-20T00:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false, config: { SIM_INFORMATION: 'on' } });
  });
  afterAll(async () => t.close());

  const commitments = async (): Promise<Commitments> => {
    const res = await t.api.get('/api/venue/commitments');
    expect(res.status).toBe(200);
    return res.body as Commitments;
  };

  test('when a season is under way, then its commitment is published, its secret is not, and /ready and the answers show neither seed nor secret', async () => {
    const body = await commitments();
    const nov = body.scopes.find((s) => s.scope === 'season|2026-11')!;
    expect(nov).toMatchObject({ state: 'sealed', secret: null, revealAt: '2026-12-01T00:00:00.000Z' });
    expect(nov.commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(body.scopes[0]!.scope).toBe('season|2024-01');
    // Before suite-v1's retirement (2026-12-06, announced as its revealAt) every version is sealed.
    expect(body.scopes.filter((s) => s.scope.startsWith('suite|'))).toEqual([
      expect.objectContaining({ scope: 'suite|suite-v1', state: 'sealed', secret: null, revealAt: '2026-12-06T00:00:00.000Z' }),
      expect.objectContaining({ scope: 'suite|suite-v2', state: 'sealed', secret: null, revealAt: '2026-12-07T00:00:00.000Z' }),
      expect.objectContaining({ scope: 'suite|suite-v3', state: 'sealed', secret: null, revealAt: null }),
    ]);
    expect(body.scopes.filter((s) => s.state === 'revealed').every((s) => s.scope < 'season|2026-11')).toBe(true);
    const ready = await t.api.get('/ready');
    const text = JSON.stringify(ready.body);
    expect(text).toContain('simulated venue');
    expect(text).not.toMatch(/seed/i);
    expect(text).not.toContain(String(t.config.SIM_SEED));
    for (const answer of [text, JSON.stringify(body)]) expect(answer).not.toContain(TEST_SIM_SECRET);
    // The same answer over JSON-RPC and MCP (the registry's method, on every surface).
    expect((await rpcCall(t, 'get_venue_commitments', {})).result).toEqual(body);
    expect(JSON.stringify(await mcpCall(t, 'get_venue_commitments', {}))).toContain(nov.commitment);
  });

  test('when the season ends, then its secret is revealed, recomputes every outcome the service published, and one altered outcome fails the check', async () => {
    const season = async (name: string) => (await commitments()).scopes.find((s) => s.scope === `season|${name}`)!;
    const sealed = await season('2026-11');
    setClock(clock, '2026-12-01T00:00:00Z');
    const revealed = await season('2026-11');
    expect(revealed).toMatchObject({ state: 'revealed', commitment: sealed.commitment });
    expect(revealed.secret).toMatch(/^[0-9a-f]{64}$/);
    // December is still sealed.
    expect(await season('2026-12')).toMatchObject({ state: 'sealed', secret: null });

    // What the service published: the winner of every market that resolved in November, as get_market shows it.
    const feed = t.services.feed as SimulatedFeed;
    const base = { secret: revealed.secret!, seed: t.config.SIM_SEED, speed: 1, information: true };
    const recomputed = seasonOutcomes({ ...base, season: '2026-11' });
    expect(recomputed.length).toBeGreaterThan(250);
    const published: OutcomeClaim[] = [];
    for (const { marketId } of recomputed.filter((_, i) => i % 8 === 0)) {
      const res = await t.api.get(`/api/markets/${marketId}`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('resolved');
      published.push({ marketId, winner: res.body.winner });
    }
    const check = (outcomes: OutcomeClaim[]) => verifyVenue({ ...base, commitment: sealed.commitment, scope: { season: '2026-11' }, outcomes });
    expect(check(published)).toEqual({ commitmentOk: true, checked: published.length, mismatches: [], outOfScope: [], ok: true });
    // Every market of the season, against the service's own venue.
    const all = recomputed.map((o) => ({ marketId: o.marketId, winner: feed.winnerOf(feed.spec(Number(o.marketId.slice(4)))) }));
    expect(check(all).ok).toBe(true);
    expect(new Set(all.map((o) => o.winner))).toEqual(new Set(['YES', 'NO', 'VOID']));

    // One outcome altered: the check names it.
    const altered = published.map((o, i) => (i === 3 ? { ...o, winner: o.winner === 'YES' ? ('NO' as const) : ('YES' as const) } : o));
    const failed = check(altered);
    expect(failed.ok).toBe(false);
    expect(failed.mismatches).toEqual([{ marketId: altered[3]!.marketId, claimed: altered[3]!.winner, recomputed: published[3]!.winner }]);
    // Another secret, or a commitment that is not the published one, fails too.
    expect(verifyVenue({ ...base, secret: 'ab'.repeat(32), commitment: sealed.commitment, scope: { season: '2026-11' }, outcomes: published }).ok).toBe(false);
    expect(check(published.concat({ marketId: 'sim-1', winner: 'YES' })).outOfScope).toEqual(['sim-1']);

    // The command line: exit 0 on the published outcomes, 1 on the altered ones, 2 on a bad call.
    const files: Record<string, string> = { 'ok.json': JSON.stringify(published), 'bad.json': JSON.stringify(altered) };
    const argv = [
      '--secret',
      revealed.secret!,
      '--commitment',
      sealed.commitment,
      '--seed',
      String(t.config.SIM_SEED),
      '--information',
      'on',
      '--season',
      '2026-11',
    ];
    expect(runCli([...argv, '--outcomes', 'ok.json'], (f) => files[f]!).code).toBe(0);
    const bad = runCli([...argv, '--outcomes', 'bad.json'], (f) => files[f]!);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.output).mismatches).toHaveLength(1);
    const listed = runCli(argv);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.output).outcomes).toEqual(recomputed);
    expect(runCli(['--secret', revealed.secret!]).code).toBe(2);
  });

  test('when a suite version retires, then its secret is revealed on the commitments’ path and recomputes a scenario’s outcomes', async () => {
    const suite = (await commitments()).scopes.find((s) => s.scope === 'suite|suite-v1')!;
    expect(suite).toMatchObject({ state: 'sealed', secret: null });
    const scenario = scenarioNamed('suite-v1/03')!;
    const feed = scenarioFeed(TEST_MASTER, scenario, { now: () => new Date(REPLAY_START_MS) });
    const outcomes: OutcomeClaim[] = [];
    const end = REPLAY_START_MS + 30 * 86_400_000;
    for (let k = candidateRange(feed.params, REPLAY_START_MS).from; k <= candidateRange(feed.params, end).to; k++) {
      const spec = feed.spec(k);
      if (spec.resolveAtMs > REPLAY_START_MS && spec.resolveAtMs <= end) outcomes.push({ marketId: spec.id, winner: feed.winnerOf(spec) });
    }
    expect(outcomes.length).toBeGreaterThan(50);
    // suite-v1 retires: get_venue_commitments reveals its secret, the one its commitment was published for.
    setClock(clock, '2026-12-06T00:00:00Z');
    const revealed = (await commitments()).scopes.find((s) => s.scope === 'suite|suite-v1')!;
    expect(revealed).toMatchObject({ state: 'revealed', commitment: suite.commitment, revealAt: '2026-12-06T00:00:00.000Z' });
    expect((await commitments()).scopes.find((s) => s.scope === 'suite|suite-v2')).toMatchObject({ state: 'sealed', secret: null });
    const secret = revealed.secret!;
    expect(secret).toBe(scopeSecret(TEST_MASTER, 'suite|suite-v1').toString('hex'));
    const check = verifyVenue({
      secret,
      commitment: suite.commitment,
      seed: scenario.seed,
      speed: 1,
      information: true,
      scope: { suite: 'suite-v1' },
      outcomes,
    });
    expect(check).toMatchObject({ ok: true, checked: outcomes.length });
    // The live seasons' secrets do not open it.
    const season = scopeSecret(TEST_MASTER, 'season|2025-01').toString('hex');
    expect(
      verifyVenue({
        secret: season,
        commitment: suite.commitment,
        seed: scenario.seed,
        speed: 1,
        information: true,
        scope: { suite: 'suite-v1' },
        outcomes,
      }).ok,
    ).toBe(false);
  });
});
