import { useState } from 'react';
import { Link } from 'wouter';
import { $api, type Ok } from '../../lib/api/client';
import { useAccount } from '../../lib/account';
import { dateTime } from '../../lib/format';
import { PATHS, metricHref } from '../../lib/paths';
import { METRIC_ANCHOR, formatEstimate, seasonOptions, type Estimate, type FigureKind } from '../../lib/benchmark';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { SelectField } from '../../components/form-field';
import { ReliabilityDiagram } from './reliability-diagram';
import { ClvChart } from './clv-chart';
import { DrawdownChart } from './drawdown-chart';

/** One figure of the record: its name links to the metric's explanation, then value [interval] · n. */
function Figure({ label, anchor, estimate, kind }: { label: string; anchor: string; estimate: Estimate; kind: FigureKind }) {
  return (
    <div>
      <dt>
        <Link href={metricHref(anchor)}>{label}</Link>
      </dt>
      <dd>{formatEstimate(estimate, kind)}</dd>
    </div>
  );
}

/**
 * The forecasting benchmark part of a profile (get_benchmark_record) for a season: forecast scores, the reliability
 * diagram, risk (with your own equity curve on your own profile) and closing-line value, each figure with its
 * interval and n, whether the account is ranked, and when it was scored.
 */
export function BenchmarkRecord({ id }: { id: string }) {
  const seasons = seasonOptions();
  const [season, setSeason] = useState(seasons[0]![0]);
  const account = useAccount();
  const record = $api.useQuery('get', '/api/benchmark/record', { params: { query: { userId: id, season } } });
  const own = account.data?.id === id;
  return (
    <section aria-labelledby="benchmark-heading">
      <h2 id="benchmark-heading">Forecasting benchmark</h2>
      <form className="filters" aria-label="Benchmark season" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Season" value={season} onChange={(e) => setSeason(e.target.value)} options={seasons} />
      </form>
      {record.isPending ? (
        <Loading what="the benchmark record" />
      ) : record.isError ? (
        <ErrorMessage error={record.error} />
      ) : (
        <BenchmarkFigures r={record.data} own={own} />
      )}
    </section>
  );
}

function BenchmarkFigures({ r, own }: { r: Ok<'/api/benchmark/record', 'get'>; own: boolean }) {
  const f = r.forecasts;
  const k = r.risk;
  const t = r.timing;
  const missing = r.minimumMarkets - r.resolvedMarkets;
  return (
    <>
      <p role="status">
        <strong>{r.ranked ? 'Ranked' : `Needs ${missing} more resolved ${missing === 1 ? 'market' : 'markets'}`}</strong>
        {' · '}
        {r.resolvedMarkets} of the <Link href={metricHref(METRIC_ANCHOR.minimum)}>{r.minimumMarkets} resolved markets</Link> a{' '}
        <Link href={PATHS.benchmark}>season board</Link> needs · {r.computedAt ? `scored ${dateTime(r.computedAt)}` : 'not scored yet'}
        {r.provisional ? ' · provisional until the season closes' : ''}
      </p>
      <p className="muted">
        Each figure: value [95% interval] · n. <Link href={metricHref(METRIC_ANCHOR.intervals)}>How intervals are made</Link>.
      </p>

      <h3>Forecast scores</h3>
      <p className="muted">
        {f.questions} scored {f.questions === 1 ? 'market' : 'markets'}, {f.forecasts} forecasts used, {f.voided} void.
      </p>
      <dl className="totals benchmark-figures">
        <Figure label="Brier" anchor={METRIC_ANCHOR.brier} estimate={f.brier} kind="score" />
        <Figure label="Market Brier" anchor={METRIC_ANCHOR.brier} estimate={f.marketBrier} kind="score" />
        <Figure label="Alpha" anchor={METRIC_ANCHOR.alpha} estimate={f.alpha} kind="score" />
        <Figure label="Log score" anchor={METRIC_ANCHOR.logScore} estimate={f.logScore} kind="score" />
        <Figure label="Market log score" anchor={METRIC_ANCHOR.logScore} estimate={f.marketLogScore} kind="score" />
        <Figure label="Brier, time-averaged" anchor={METRIC_ANCHOR.timeAveraged} estimate={f.brierTimeAveraged} kind="score" />
        <Figure label="Log score, time-averaged" anchor={METRIC_ANCHOR.timeAveraged} estimate={f.logScoreTimeAveraged} kind="score" />
        <Figure label="Alpha, time-averaged" anchor={METRIC_ANCHOR.timeAveraged} estimate={f.alphaTimeAveraged} kind="score" />
        <Figure label="Reliability" anchor={METRIC_ANCHOR.murphy} estimate={f.murphy.reliability} kind="score" />
        <Figure label="Resolution" anchor={METRIC_ANCHOR.murphy} estimate={f.murphy.resolution} kind="score" />
        <Figure label="Uncertainty" anchor={METRIC_ANCHOR.murphy} estimate={f.murphy.uncertainty} kind="score" />
        <Figure label="Calibration error" anchor={METRIC_ANCHOR.calibrationError} estimate={f.calibrationError} kind="score" />
      </dl>
      {f.reliabilityTable.length > 0 ? (
        <ReliabilityDiagram bins={f.reliabilityTable} />
      ) : (
        <p>No stated forecast has resolved in this season, so there is no reliability diagram yet.</p>
      )}
      {r.entryPrice.questions > 0 ? (
        <>
          <h3>Trades without a stated forecast</h3>
          <p className="muted">
            Scored at the <Link href={metricHref(METRIC_ANCHOR.entryPrice)}>entry price</Link> (basis: {r.entryPrice.basis}), on {r.entryPrice.questions}{' '}
            {r.entryPrice.questions === 1 ? 'market' : 'markets'}.
          </p>
          <dl className="totals benchmark-figures">
            <Figure label="Entry-price Brier" anchor={METRIC_ANCHOR.entryPrice} estimate={r.entryPrice.brier} kind="score" />
            <Figure label="Entry-price log score" anchor={METRIC_ANCHOR.entryPrice} estimate={r.entryPrice.logScore} kind="score" />
          </dl>
        </>
      ) : null}

      <h3>Risk</h3>
      <p className="muted">
        From {k.days} daily {k.days === 1 ? 'return' : 'returns'}.
      </p>
      <dl className="totals benchmark-figures">
        <Figure label="Time-weighted return" anchor={METRIC_ANCHOR.timeWeightedReturn} estimate={k.timeWeightedReturn} kind="percent" />
        <Figure label="Max drawdown" anchor={METRIC_ANCHOR.drawdown} estimate={k.maxDrawdown} kind="percent" />
        <Figure label="Current drawdown" anchor={METRIC_ANCHOR.drawdown} estimate={k.currentDrawdown} kind="percent" />
        <Figure label="Volatility (daily)" anchor={METRIC_ANCHOR.volatility} estimate={k.volatility} kind="percent" />
        <Figure label="Sharpe (daily)" anchor={METRIC_ANCHOR.sharpe} estimate={k.sharpe} kind="ratio" />
        <Figure label="Sharpe (annualised)" anchor={METRIC_ANCHOR.sharpe} estimate={k.sharpeAnnualised} kind="ratio" />
        <Figure label="Sortino" anchor={METRIC_ANCHOR.sortino} estimate={k.sortino} kind="ratio" />
        <Figure label="Probabilistic Sharpe" anchor={METRIC_ANCHOR.probabilisticSharpe} estimate={k.probabilisticSharpe} kind="percent" />
        <Figure label="Kelly ratio" anchor={METRIC_ANCHOR.kelly} estimate={k.kellyRatio} kind="ratio" />
        <Figure label="Over-Kelly share" anchor={METRIC_ANCHOR.kelly} estimate={k.overKellyShare} kind="percent" />
      </dl>
      {own ? (
        <>
          <h3>Your equity and drawdown</h3>
          <DrawdownChart />
        </>
      ) : (
        <p className="muted">The equity curve is private to its account: its owner sees it here, everyone else the risk figures above.</p>
      )}

      <h3>Closing-line value</h3>
      <p className="muted">
        {t.buys} {t.buys === 1 ? 'buy' : 'buys'} on markets resolved in the season; the bought token&apos;s later price minus the fill price.
      </p>
      <dl className="totals benchmark-figures">
        <Figure label="CLV at +1 h" anchor={METRIC_ANCHOR.clv} estimate={t.h1.mean} kind="cents" />
        <Figure label="CLV at +24 h" anchor={METRIC_ANCHOR.clv} estimate={t.h24.mean} kind="cents" />
        <Figure label="CLV at the close" anchor={METRIC_ANCHOR.clv} estimate={t.close.mean} kind="cents" />
        <Figure label="CLV at the close, stake-weighted" anchor={METRIC_ANCHOR.clv} estimate={t.close.stakeWeighted} kind="cents" />
        <Figure label="Buys with CLV above 0 at the close" anchor={METRIC_ANCHOR.clv} estimate={t.close.positiveShare} kind="percent" />
      </dl>
      {t.buys > 0 ? (
        <ClvChart
          horizons={[
            { label: '+1 h', mean: t.h1.mean },
            { label: '+24 h', mean: t.h24.mean },
            { label: 'Close', mean: t.close.mean },
          ]}
        />
      ) : null}
    </>
  );
}
