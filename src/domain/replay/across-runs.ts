import { estimate, pooledMean, seedOf, type Estimate } from '../benchmark/estimate';

/**
 * An agent's alpha across several replay runs (the seeds of a suite): the mean over every resolved market it forecast in
 * any run, with a 95 % interval from the benchmark's clustered bootstrap (estimate.ts) whose clusters are the runs, since a
 * run's markets share its venue. Each run's record gives its alpha and n (markets scored); a run with none is left out.
 * `label` seeds the resampling, so the same runs give the same interval.
 */
export function alphaAcrossRuns(runs: readonly { alpha: Estimate }[], label: string): Estimate {
  const clusters = runs.filter((r) => r.alpha.value !== null && r.alpha.n > 0).map((r) => ({ sum: r.alpha.value! * r.alpha.n, count: r.alpha.n }));
  return estimate(
    clusters,
    pooledMean,
    clusters.reduce((s, c) => s + c.count, 0),
    seedOf(`replay|across|${label}`),
  );
}
