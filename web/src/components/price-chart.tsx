import { useEffect, useRef, useState } from 'react';
import { createChart, LineSeries, type UTCTimestamp } from 'lightweight-charts';
import { $api } from '../lib/api/client';
import { cents } from '../lib/format';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';

const INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'max'] as const;
type Interval = (typeof INTERVALS)[number];

/**
 * An outcome token's price over one of six intervals (get_price_history), drawn with lightweight-charts. This module is
 * loaded lazily by the market pages, so the chart library is fetched only where a chart is drawn.
 */
export default function PriceChart({ tokenId, outcome }: { tokenId: string; outcome: string }) {
  const [interval, setSpan] = useState<Interval>('1w');
  const history = $api.useQuery('get', '/api/price-history', { params: { query: { tokenId, interval } } }, { staleTime: 60_000 });
  const box = useRef<HTMLDivElement>(null);
  const points = history.data?.history ?? [];

  useEffect(() => {
    if (!box.current || points.length === 0) return;
    const chart = createChart(box.current, {
      autoSize: true,
      // The attribution is a plain link under the chart: a link inside the role=img box would be a nested control.
      layout: { background: { color: '#ffffff' }, textColor: '#17181c', attributionLogo: false },
      rightPriceScale: { borderVisible: false },
      timeScale: { timeVisible: true, borderVisible: false },
      grid: { vertLines: { visible: false } },
    });
    const series = chart.addSeries(LineSeries, {
      color: '#0b6b3a',
      lineWidth: 2,
      priceFormat: { type: 'custom', formatter: (p: number) => cents(p), minMove: 0.001 },
    });
    // The chart needs strictly ascending times: keep the last price of any repeated second.
    const data: { time: UTCTimestamp; value: number }[] = [];
    for (const h of points) {
      const last = data[data.length - 1];
      if (last && last.time >= h.t) last.value = h.p;
      else data.push({ time: h.t as UTCTimestamp, value: h.p });
    }
    series.setData(data);
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [points]);

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
      <div ref={box} className="chart" role="img" aria-label={summary || 'Price chart'} hidden={points.length === 0} />
      {summary ? (
        <p className="muted">
          {summary} Chart: <a href="https://www.tradingview.com/lightweight-charts/">TradingView Lightweight Charts</a>.
        </p>
      ) : null}
    </section>
  );
}
