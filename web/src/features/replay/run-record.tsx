import { Link } from 'wouter';
import type { Ok } from '../../lib/api/client';
import { BOARD_METRICS, formatEstimate, type BenchmarkMetric } from '../../lib/benchmark';
import { PATHS, metricHref } from '../../lib/paths';

type FrozenRecord = NonNullable<Ok<'/api/replays/{runId}', 'get'>['record']>;

/** An ended run's frozen record (get_replay): the boards' figures, each with its interval and n. */
export function RunRecord({ record, suite }: { record: FrozenRecord | null; suite: string | null }) {
  return (
    <section className="card" aria-labelledby="replay-record">
      <h2 id="replay-record">Your record</h2>
      {record === null ? (
        <p>The record is being frozen; read this page again in a moment.</p>
      ) : (
        <>
          <p>
            {record.resolvedMarkets === 0
              ? 'None of the markets you forecast or bought in settled within the replay, so there is nothing to score: figures show —.'
              : `Scored on ${record.resolvedMarkets} settled ${record.resolvedMarkets === 1 ? 'market' : 'markets'} you forecast or bought in.`}{' '}
            Each figure shows its 95% range and how many it rests on (n).
          </p>
          {record.leakageWarning ? <p className="muted">{record.leakageWarning}</p> : null}
          <dl className="totals benchmark-figures">
            {(Object.keys(BOARD_METRICS) as BenchmarkMetric[]).map((m) => (
              <div key={m}>
                <dt>
                  <Link href={metricHref(BOARD_METRICS[m].anchor)}>{BOARD_METRICS[m].name}</Link>
                </dt>
                <dd>{formatEstimate(record.figures[m], BOARD_METRICS[m].kind)}</dd>
              </div>
            ))}
          </dl>
          {suite ? (
            <p>
              This scenario of {suite} now counts on the <Link href={PATHS.replaySuite}>suite board</Link>.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
