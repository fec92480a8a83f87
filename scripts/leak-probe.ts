import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { registerScriptAgent, startOwnService } from './own-service';
import { scenariosOf, suiteNamed, SUITES } from '../src/domain/replay/replay-suite';
import { masterSecretOf } from '../src/market-data/simulated/venue-secret-store';
import { pipelineCall, pipelineStream, probeEpisode, type EpisodeResult } from './leak-probe/probe';
import { runReachableReads } from './leak-probe/readers';
import { Random } from './leak-probe/random';

/**
 * npm run probe:leaks [-- --suite suite-v1 --episodes all --reads 1000 --steps 8 --trades 20 --seed 52005] — the replay
 * leak probe (issue 52 item 5) over a suite's episodes, in a service of its own on the embedded database: for each
 * episode a stepped run, `reads` random reads across every read method a run key reaches (derived from the registry),
 * interleaved with steps of its clock and trades, every answer scanned against the clock and the venue's path
 * (scripts/leak-probe/scan.ts). --episodes all (default) takes every scenario the suite lists; a number takes a sample
 * drawn with the seed. Prints a line per episode and its leaks, then one JSON line; exits 1 on any leak or a read method
 * never answered. The seed is printed: the same seed replays the same calls.
 */
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function main(): Promise<void> {
  const suite = suiteNamed(arg('suite', SUITES[SUITES.length - 1]!.name));
  if (!suite) throw new Error(`unknown suite: one of ${SUITES.map((s) => s.name).join(', ')}`);
  const seed = Number(arg('seed', String(52_005)));
  const reads = Number(arg('reads', '1000'));
  const steps = Number(arg('steps', '8'));
  const trades = Number(arg('trades', '20'));
  const episodes = arg('episodes', 'all');
  const all = scenariosOf(suite);
  const sample = episodes === 'all' ? all : new Random(seed).sample(all, Number(episodes));
  // The venue's secret decides its paths: the seed replays a run's calls only with the same one, so a fresh one is printed.
  const simSecret = process.env.SIM_SECRET ?? randomBytes(32).toString('hex');
  const { service, services, deps } = await startOwnService(simSecret, { validateOutput: true });
  const apiKey = await registerScriptAgent(deps, {
    email: 'leak-probe@probe.invalid',
    displayName: 'Leak probe',
    description: 'Probes replay runs for anything after their clock.',
  });
  const methods = services.registry.methods;
  console.log(
    `leak probe: ${suite.name}, ${sample.length} episodes, seed ${seed}, ${reads} reads, ${steps} steps, ${trades} trades each, over ${runReachableReads(methods).length} read methods` +
      (process.env.SIM_SECRET ? '' : ` (a fresh venue secret: SIM_SECRET=${simSecret} replays it)`),
  );
  const started = Date.now();
  const results: EpisodeResult[] = [];
  for (const [i, scenario] of sample.entries()) {
    const r = await probeEpisode({
      call: pipelineCall(deps),
      stream: pipelineStream(deps),
      methods,
      streams: services.registry.streams,
      liveKey: apiKey,
      master: masterSecretOf(services.config),
      scenario,
      seed: seed + i,
      reads,
      steps,
      trades,
      suites: SUITES.map((s) => s.name),
    });
    results.push(r);
    const refused = Object.values(r.byMethod).reduce((s, m) => s + m.refused, 0);
    console.log(
      `${r.episode} seed ${r.seed}: ${r.reads} reads (${refused} refused), ${r.steps} steps ${r.clockFrom} → ${r.clockTo}, ${r.trades} trades; ` +
        `${r.stamps} times, ${r.prices} prices checked (${r.pricesStreamed} pushed by stream_prices as the clock moved); ${r.leaks.length} leaks, ${r.ahead.length} prices ahead of their news; unprobed [${r.unprobed.join(', ')}]; ${(r.wallMs / 1000).toFixed(1)} s`,
    );
    for (const l of r.leaks.slice(0, 20)) console.log(`  LEAK ${l.method} ${l.field} = ${JSON.stringify(l.value)}: ${l.why}`);
    for (const l of r.ahead.slice(0, 3)) console.log(`  AHEAD ${l.method} ${l.field} = ${JSON.stringify(l.value)}: ${l.why}`);
  }
  const leaks = results.reduce((s, r) => s + r.leaks.length, 0);
  const unprobed = [...new Set(results.flatMap((r) => r.unprobed))];
  console.log(
    JSON.stringify({
      suite: suite.name,
      seed,
      episodes: results.length,
      reads: results.reduce((s, r) => s + r.reads, 0),
      steps: results.reduce((s, r) => s + r.steps, 0),
      trades: results.reduce((s, r) => s + r.trades, 0),
      stamps: results.reduce((s, r) => s + r.stamps, 0),
      prices: results.reduce((s, r) => s + r.prices, 0),
      pricesStreamed: results.reduce((s, r) => s + r.pricesStreamed, 0),
      leaks,
      pricesAheadOfNews: results.reduce((s, r) => s + r.ahead.length, 0),
      unprobed,
      wallSeconds: Math.round((Date.now() - started) / 1000),
      meanEpisodeSeconds: Math.round(results.reduce((s, r) => s + r.wallMs, 0) / Math.max(1, results.length) / 100) / 10,
    }),
  );
  await service.stop();
  if (leaks > 0 || unprobed.length > 0) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
