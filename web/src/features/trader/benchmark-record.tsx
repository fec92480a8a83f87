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

type Row = [label: string, anchor: string, estimate: Estimate, kind: FigureKind];

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

/** A figure with nothing behind it yet (no value, n 0): a newcomer's profile is not a wall of "— · n 0" (issue 53 item 9). */
const empty = (e: Estimate) => e.value === null && e.n === 0;

/** A group of figures; the empty ones collapse, and a group with none says in one line when its figures appear. */
function Figures({ rows, until }: { rows: Row[]; until: string }) {
  const shown = rows.filter(([, , e]) => !empty(e));
  if (shown.length === 0) return <p className="empty-figures">None yet: {until}</p>;
  return (
    <dl className="totals benchmark-figures">
      {shown.map(([label, anchor, estimate, kind]) => (
        <Figure key={label} label={label} anchor={anchor} estimate={estimate} kind={kind} />
      ))}
    </dl>
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
      <Figures
        rows={[
          ['Brier', METRIC_ANCHOR.brier, f.brier, 'score'],
          ['Market Brier', METRIC_ANCHOR.brier, f.marketBrier, 'score'],
          ['Alpha', METRIC_ANCHOR.alpha, f.alpha, 'score'],
          ['Log score', METRIC_ANCHOR.logScore, f.logScore, 'score'],
          ['Market log score', METRIC_ANCHOR.logScore, f.marketLogScore, 'score'],
          ['Brier, time-averaged', METRIC_ANCHOR.timeAveraged, f.brierTimeAveraged, 'score'],
          ['Log score, time-averaged', METRIC_ANCHOR.timeAveraged, f.logScoreTimeAveraged, 'score'],
          ['Alpha, time-averaged', METRIC_ANCHOR.timeAveraged, f.alphaTimeAveraged, 'score'],
          ['Reliability', METRIC_ANCHOR.murphy, f.murphy.reliability, 'score'],
          ['Resolution', METRIC_ANCHOR.murphy, f.murphy.resolution, 'score'],
          ['Uncertainty', METRIC_ANCHOR.murphy, f.murphy.uncertainty, 'score'],
          ['Calibration error', METRIC_ANCHOR.calibrationError, f.calibrationError, 'score'],
        ]}
        until="they appear once a market this account stated a forecast on resolves in this season."
      />
      {f.reliabilityTable.length > 0 ? (
        <ReliabilityDiagram bins={f.reliabilityTable} />
      ) : (
        <p>No stated forecast has resolved in this season, so there is no reliability diagram yet.</p>
      )}
      <LifeFigures life={r.life} />
      {r.entryPrice.questions > 0 ? (
        <>
          <h3>Trades without a stated forecast</h3>
          <p className="muted">
            Scored at the <Link href={metricHref(METRIC_ANCHOR.entryPrice)}>entry price</Link> (basis: {r.entryPrice.basis}), on {r.entryPrice.questions}{' '}
            {r.entryPrice.questions === 1 ? 'market' : 'markets'}.
          </p>
          <Figures
            rows={[
              ['Entry-price Brier', METRIC_ANCHOR.entryPrice, r.entryPrice.brier, 'score'],
              ['Entry-price log score', METRIC_ANCHOR.entryPrice, r.entryPrice.logScore, 'score'],
            ]}
            until="they appear once a market this account bought in without stating a forecast resolves."
          />
        </>
      ) : null}

      <h3>Risk</h3>
      <p className="muted">
        From {k.days} daily {k.days === 1 ? 'return' : 'returns'}.
      </p>
      <Figures
        rows={[
          ['Time-weighted return', METRIC_ANCHOR.timeWeightedReturn, k.timeWeightedReturn, 'percent'],
          ['Max drawdown', METRIC_ANCHOR.drawdown, k.maxDrawdown, 'percent'],
          ['Current drawdown', METRIC_ANCHOR.drawdown, k.currentDrawdown, 'percent'],
          ['Volatility (daily)', METRIC_ANCHOR.volatility, k.volatility, 'percent'],
          ['Sharpe (daily)', METRIC_ANCHOR.sharpe, k.sharpe, 'ratio'],
          ['Sharpe (annualised)', METRIC_ANCHOR.sharpe, k.sharpeAnnualised, 'ratio'],
          ['Sortino', METRIC_ANCHOR.sortino, k.sortino, 'ratio'],
          ['Probabilistic Sharpe', METRIC_ANCHOR.probabilisticSharpe, k.probabilisticSharpe, 'percent'],
          ['Kelly ratio', METRIC_ANCHOR.kelly, k.kellyRatio, 'ratio'],
          ['Over-Kelly share', METRIC_ANCHOR.kelly, k.overKellyShare, 'percent'],
        ]}
        until="they appear from the second day of equity snapshots (one daily return)."
      />
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
      <Figures
        rows={[
          ['CLV at +1 h', METRIC_ANCHOR.clv, t.h1.mean, 'cents'],
          ['CLV at +24 h', METRIC_ANCHOR.clv, t.h24.mean, 'cents'],
          ['CLV at the close', METRIC_ANCHOR.clv, t.close.mean, 'cents'],
          ['CLV at the close, stake-weighted', METRIC_ANCHOR.clv, t.close.stakeWeighted, 'cents'],
          ['Buys with CLV above 0 at the close', METRIC_ANCHOR.clv, t.close.positiveShare, 'percent'],
        ]}
        until="they appear once a token this account bought has a price after the fill (+1 h, +24 h, the close) on a market resolved in this season."
      />
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

/** How a horizon reads: "7 d", "1 d", "1 h" before the close. */
const HORIZON_WORDS: Record<string, string> = { '7d': '7 d', '1d': '1 d', '1h': '1 h' };

/**
 * Scores over each market's life (docs/scoring.md): baseline and peer scores with coverage, and alpha at 7 d, 1 d and 1 h
 * before the close beside the all-life alpha above. Once any market is scored every horizon is shown, an empty one as
 * "—": that no forecast was held that long before the close is itself worth reading.
 */
function LifeFigures({ life }: { life: Ok<'/api/benchmark/record', 'get'>['life'] }) {
  const horizons = life.horizons.map((h): Row => [`Alpha ${HORIZON_WORDS[h.horizon] ?? h.horizon} before the close`, METRIC_ANCHOR.alpha, h.alpha, 'score']);
  return (
    <>
      <h3>Over each market&apos;s life</h3>
      {life.questions === 0 ? (
        <p className="empty-figures">
          None yet: the baseline and peer scores, their coverage, and alpha at {life.horizons.map((h) => HORIZON_WORDS[h.horizon] ?? h.horizon).join(', ')}{' '}
          before the close appear once a market this account stated a forecast on resolves in this season.
        </p>
      ) : (
        <>
          <p className="muted">
            {life.questions} {life.questions === 1 ? 'market' : 'markets'} scored from the first forecast to the close; {life.peerQuestions} with another
            forecaster.
          </p>
          <dl className="totals benchmark-figures" aria-label="Scores over each market's life">
            {[
              ['Baseline score', METRIC_ANCHOR.timeAveraged, life.baseline, 'ratio'] as Row,
              ['Peer score', METRIC_ANCHOR.timeAveraged, life.peer, 'ratio'] as Row,
              ['Coverage', METRIC_ANCHOR.timeAveraged, life.coverage, 'percent'] as Row,
              ...horizons,
            ].map(([label, anchor, estimate, kind]) => (
              <Figure key={label} label={label} anchor={anchor} estimate={estimate} kind={kind} />
            ))}
          </dl>
        </>
      )}
    </>
  );
}
