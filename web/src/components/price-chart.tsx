import { useMemo, useState } from 'react';
import { $api } from '../lib/api/client';
import { cents } from '../lib/format';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';
import { LineChart } from './line-chart';

const INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'max'] as const;
type Interval = (typeof INTERVALS)[number];

/**
 * An outcome token's price over one of six intervals (get_price_history), drawn with uPlot (web/src/components/line-chart.tsx); `latest` (the
 * price stream's newest price, t in seconds) extends the line to now. This module is
 * loaded lazily by the market pages, so the chart library is fetched only where a chart is drawn.
 */
export default function PriceChart({ tokenId, outcome, latest }: { tokenId: string; outcome: string; latest?: { t: number; p: number } | undefined }) {
  const [interval, setSpan] = useState<Interval>('1w');
  const history = $api.useQuery('get', '/api/price-history', { params: { query: { tokenId, interval } } }, { staleTime: 60_000 });
  const read = history.data?.history;
  // The history read once, then the price stream's latest price as its last point (a later one than the history's last).
  const points = useMemo(() => {
    const h = read ?? [];
    const end = h[h.length - 1];
    return latest && end && latest.t > end.t ? [...h, latest] : h;
  }, [read, latest?.t, latest?.p]);
  const line = useMemo(() => points.map((h) => ({ time: h.t, value: h.p })), [points]);

  const first = points[0];
  const last = points[points.length - 1];
  const summary = first && last ? `${outcome} price over ${interval}: from ${cents(first.p)} to ${cents(last.p)}, ${points.length} points.` : '';
  return (
    <section className="card" aria-labelledby="chart-heading">
      <h2 id="chart-heading">{outcome} price</h2>
      <div className="tabs" role="group" aria-label="Chart interval">
        {INTERVALS.map((i) => (
          <button key={i} type="button" className="secondary" aria-pressed={interval === i} onClick={() => setSpan(i)}>
            {i}
          </button>
        ))}
      </div>
      {history.isPending ? <Loading what="the price history" /> : null}
      {history.isError ? <ErrorMessage error={history.error} /> : null}
      {history.isSuccess && points.length === 0 ? <p>No prices in this interval yet.</p> : null}
      <LineChart points={line} format={cents} label={summary || 'Price chart'} />
      {summary ? (
        <p className="muted">
          {summary} Chart: <a href="https://github.com/leeoniya/uPlot">uPlot</a>.
        </p>
      ) : null}
    </section>
  );
}
