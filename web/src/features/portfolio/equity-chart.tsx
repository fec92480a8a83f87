import { useMemo, useState } from 'react';
import { $api } from '../../lib/api/client';
import { money, signedMoney } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { LineChart } from '../../components/line-chart';

const PERIODS = ['1d', '1w', '1m', 'all'] as const;
type Period = (typeof PERIODS)[number];
const PERIOD_NAMES: Record<Period, string> = { '1d': 'the last day', '1w': 'the last week', '1m': 'the last month', all: 'all time' };

/**
 * The account's equity over a period (get_portfolio_history), drawn with uPlot like the market page's
 * price chart. Loaded lazily by the portfolio page, so the chart library is fetched only where a chart is drawn.
 */
export default function EquityChart() {
  const [period, setPeriod] = useState<Period>('1w');
  const history = $api.useQuery('get', '/api/portfolio/history', { params: { query: { period } } }, { staleTime: 60_000 });
  const points = history.data?.points ?? [];
  const line = useMemo(() => points.map((p) => ({ time: Date.parse(p.time) / 1000, value: p.equity })), [points]);

  const first = points[0];
  const last = points[points.length - 1];
  const summary =
    first && last
      ? `Equity over ${PERIOD_NAMES[period]}: from ${money(first.equity)} to ${money(last.equity)} (${signedMoney(last.profitLoss)}), ${points.length} ${points.length === 1 ? 'point' : 'points'}.`
      : '';
  return (
    <section className="card" aria-labelledby="equity-heading">
      <h2 id="equity-heading">Equity</h2>
      <div className="tabs" role="group" aria-label="Equity period">
        {PERIODS.map((p) => (
          <button key={p} type="button" className="secondary" aria-pressed={period === p} onClick={() => setPeriod(p)}>
            {p}
          </button>
        ))}
      </div>
      {history.isPending ? <Loading what="your equity history" /> : null}
      {history.isError ? <ErrorMessage error={history.error} /> : null}
      <LineChart points={line} format={money} label={summary || 'Equity chart'} />
      {summary ? (
        <p className="muted">
          {summary} Snapshots are hourly; the last point is now. Chart: <a href="https://github.com/leeoniya/uPlot">uPlot</a>.
        </p>
      ) : null}
    </section>
  );
}
