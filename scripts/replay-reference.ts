import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { registerScriptAgent, startOwnService } from './own-service';
import { playReplayAgent, REPLAY_AGENTS, type ReplayAgent, type ReplayAgentPlay } from '../src/replay/reference-agents';
import { alphaAcrossRuns } from '../src/domain/replay/across-runs';
import { scenariosOf, suiteNamed, SUITES } from '../src/domain/replay/replay-suite';
import { playBackSuite, PLAYBACK_AGENTS, type PlaybackAgent } from '../src/replay/venue-playback';
import type { Estimate } from '../src/domain/benchmark/estimate';
import type { SimulatedScenario } from '../src/domain/replay/replay-runs';

/**
 * npm run replay:reference [-- --seeds 1-20 --days 2 --agents market,keyword_reader,news_reader,coin_flip] — plays the built-in reference
 * agents (src/replay/reference-agents.ts) over stepped replay runs of the given seeds, in a service of its own on the
 * embedded database, and prints each run's alpha, then each agent's alpha across the runs so far with its 95 % interval
 * (alphaAcrossRuns: the benchmark's clustered bootstrap, clustered by run). The last line is one JSON object.
 *
 * npm run replay:reference -- --suite suite-v1 --playback [--agents market,keyword_reader,news_reader,coin_flip,against_news] — plays the
 * agents back straight from the venue over every scenario of the suite (src/replay/venue-playback.ts: the forecasts the
 * runs would record, scored by the benchmark's code) in seconds, and prints each agent's alpha across the suite (pooled,
 * with the interval clustered by scenario; and the suite board's mean of the scenarios' alphas with its t-interval).
 * --suite without --playback plays real stepped runs of the suite's episodes by name (a current version only: a retired
 * one refuses new runs), all of them or --episodes 0-4,9; the last line's slowestRunSeconds is the longest run's wall time
 * (start to end_replay). For example the 30-day target (issue 52 item 5):
 *   npm run replay:reference -- --suite suite-v3 --episodes 0 --agents news_reader
 */
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** "1-5,9" → [1, 2, 3, 4, 5, 9]. */
function seedList(text: string): number[] {
  return text.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    if (!Number.isInteger(a) || (b !== undefined && !Number.isInteger(b))) throw new Error(`bad seeds: ${text}`);
    return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i);
  });
}

const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));

/**
 * The venue's master secret: SIM_SECRET from the environment (the same secret, the same figures), else a fresh one per
 * invocation (the figures are then those of one sealed draw of the venue, as a service's would be).
 */
const masterHex = process.env.SIM_SECRET ?? randomBytes(32).toString('hex');

const interval = (e: Estimate) => `${fmt(e.value)} [${fmt(e.low)}, ${fmt(e.high)}] n ${e.n}`;

function playback(suiteName: string): void {
  const suite = suiteNamed(suiteName);
  if (!suite) throw new Error(`unknown suite ${suiteName}: one of ${SUITES.map((x) => x.name).join(', ')}`);
  const agents = arg('agents', 'market,keyword_reader,news_reader,coin_flip,against_news').split(',') as PlaybackAgent[];
  for (const a of agents) if (!PLAYBACK_AGENTS.includes(a)) throw new Error(`unknown agent ${a}: one of ${PLAYBACK_AGENTS.join(', ')}`);
  const started = Date.now();
  const out: Record<string, { alpha: Estimate; meanAlpha: Estimate; forecasts: number }> = {};
  const suitePlayed = playBackSuite(Buffer.from(masterHex, 'hex'), agents, scenariosOf(suite), suite.name);
  for (const agent of agents) {
    const played = suitePlayed[agent];
    const forecasts = played.runs.reduce((s, r) => s + r.forecasts.length, 0);
    out[agent] = { alpha: played.alpha, meanAlpha: played.meanAlpha, forecasts };
    console.log(
      `${agent}: alpha ${interval(played.alpha)} (markets, clustered by scenario); mean of ${suite.name}'s scenarios ${interval(played.meanAlpha)} (t); ${forecasts} forecasts on the markets scored`,
    );
  }
  console.log(
    JSON.stringify({
      suite: suite.name,
      scenarios: suite.episodes.length,
      days: suite.days,
      playback: true,
      wallSeconds: (Date.now() - started) / 1000,
      agents: out,
    }),
  );
}

async function main(): Promise<void> {
  const suiteName = arg('suite', '');
  if (suiteName && process.argv.includes('--playback')) return playback(suiteName);
  if (process.argv.includes('--playback')) throw new Error('--playback needs --suite (for example --suite suite-v1)');
  const suite = suiteName ? suiteNamed(suiteName) : undefined;
  if (suiteName && !suite) throw new Error(`unknown suite ${suiteName}`);
  // A suite's episodes by name (--episodes picks some by index: "0-4,9"), else scenarios of one's own seeds.
  const episodes = suite ? arg('episodes', '') : '';
  const scenarios: SimulatedScenario[] = suite
    ? scenariosOf(suite).filter((s) => !episodes || seedList(episodes).includes(s.index))
    : seedList(arg('seeds', '1-20')).map((seed) => ({ seed, days: Number(arg('days', '2')) }));
  const seeds = scenarios.map((s) => s.seed);
  const days = suite ? suite.days : Number(arg('days', '2'));
  const agents = arg('agents', 'market,keyword_reader,news_reader').split(',') as ReplayAgent[];
  for (const a of agents) if (!REPLAY_AGENTS.includes(a)) throw new Error(`unknown agent ${a}: one of ${REPLAY_AGENTS.join(', ')}`);
  // A service of its own, with limits no in-process agent meets: the agents here are the only callers.
  const { service, services, deps } = await startOwnService(masterHex, { validateOutput: false });
  await services.marketSync.runOnce();
  const apiKey = await registerScriptAgent(deps, {
    email: 'replay-reference@reference.invalid',
    displayName: 'Replay references',
    description: 'Starts the replay runs of the built-in reference agents.',
  });
  const plays = new Map<ReplayAgent, ReplayAgentPlay[]>(agents.map((a) => [a, []]));
  const summary = () => Object.fromEntries(agents.map((a) => [a, { runs: plays.get(a)!.length, alpha: alphaAcrossRuns(plays.get(a)!, `${a}|${days}`) }]));
  const started = Date.now();
  const runSeconds: number[] = [];
  for (const scenario of scenarios) {
    for (const agent of agents) {
      const t0 = Date.now();
      const play = await playReplayAgent(deps, apiKey, agent, scenario);
      plays.get(agent)!.push(play);
      runSeconds.push((Date.now() - t0) / 1000);
      const a = play.alpha;
      console.log(
        `${scenario.name ?? `seed ${scenario.seed}`}${scenario.category ? ` (${scenario.category})` : ''} ${agent}: alpha ${fmt(a.value)} [${fmt(a.low)}, ${fmt(a.high)}] n ${a.n}, ${play.calls} calls, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
    for (const [agent, s] of Object.entries(summary())) {
      console.log(`  after ${s.runs} seeds, ${agent}: alpha ${fmt(s.alpha.value)} [${fmt(s.alpha.low)}, ${fmt(s.alpha.high)}] n ${s.alpha.n}`);
    }
  }
  console.log(
    JSON.stringify({
      ...(suite ? { suite: suite.name, episodes: scenarios.map((s) => s.name) } : {}),
      seeds,
      days,
      wallSeconds: Math.round((Date.now() - started) / 1000),
      // Each run's wall time, start to end_replay: a 30-day episode's target is ≤ 600 s (issue 52 item 5).
      slowestRunSeconds: Math.max(0, ...runSeconds),
      agents: summary(),
    }),
  );
  await service.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
