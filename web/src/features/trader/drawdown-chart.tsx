import { $api } from '../../lib/api/client';
import { money, percent } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

const W = 560;
const H = 220;
const LEFT = 64;
const PAD = 16;
const BOTTOM = 24;

/**
 * Your own equity since the first snapshot (get_portfolio_history, one point a UTC day) with the drawdown below
 * the running peak shaded. Only the account itself may read its equity history, so this is drawn on your own
 * profile only. The curve is raw equity (grants and rewards included); the risk figures use the flow-free index.
 */
export function DrawdownChart() {
  const history = $api.useQuery('get', '/api/portfolio/history', { params: { query: { period: 'all' } } }, { staleTime: 60_000 });
  if (history.isPending) return <Loading what="your equity history" />;
  if (history.isError) return <ErrorMessage error={history.error} />;
  const points = history.data.points.map((p) => ({ t: Date.parse(p.time), equity: p.equity }));
  if (points.length < 2) return <p>Your equity curve appears after the first daily snapshot.</p>;

  let peak = -Infinity;
  let worst = 0;
  const withPeak = points.map((p) => {
    peak = Math.max(peak, p.equity);
    worst = Math.max(worst, peak > 0 ? (peak - p.equity) / peak : 0);
    return { ...p, peak };
  });
  const t0 = points[0]!.t;
  const t1 = points[points.length - 1]!.t;
  const lo = Math.min(...points.map((p) => p.equity));
  const hi = Math.max(...points.map((p) => p.equity));
  const span = hi - lo || Math.max(1, hi * 0.01);
  const x = (t: number) => LEFT + ((t - t0) / (t1 - t0 || 1)) * (W - LEFT - PAD);
  const y = (v: number) => PAD + (1 - (v - (lo - span * 0.05)) / (span * 1.1)) * (H - PAD - BOTTOM);
  const line = (key: 'equity' | 'peak') => withPeak.map((p) => `${x(p.t).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
  // The shaded band: along the running peak, then back along the equity curve.
  const band = `${line('peak')} ${[...withPeak]
    .reverse()
    .map((p) => `${x(p.t).toFixed(1)},${y(p.equity).toFixed(1)}`)
    .join(' ')}`;
  const last = points[points.length - 1]!;
  const label = `Your equity from ${money(points[0]!.equity)} to ${money(last.equity)} over ${points.length} points, largest drawdown below the running peak ${percent(worst)} (shaded).`;
  return (
    <figure className="benchmark-chart">
      <svg className="drawdown-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
        <rect x={LEFT} y={PAD} width={W - LEFT - PAD} height={H - PAD - BOTTOM} className="plot-panel" />
        <polygon points={band} className="plot-band" fillOpacity="0.25" />
        <polyline points={line('peak')} fill="none" className="plot-diagonal" strokeDasharray="4 4" />
        <polyline points={line('equity')} fill="none" className="plot-line" strokeWidth="2" />
        <g fontSize="10" className="plot-label">
          <text x={LEFT - 6} y={y(hi) + 3} textAnchor="end">
            {money(hi)}
          </text>
          <text x={LEFT - 6} y={y(lo) + 3} textAnchor="end">
            {money(lo)}
          </text>
          <text x={LEFT} y={H - 6}>
            {new Date(t0).toISOString().slice(0, 10)}
          </text>
          <text x={W - PAD} y={H - 6} textAnchor="end">
            {new Date(t1).toISOString().slice(0, 10)}
          </text>
        </g>
      </svg>
      <figcaption>{label} The dashed line is the running peak; equity here includes grants and rewards.</figcaption>
    </figure>
  );
}
