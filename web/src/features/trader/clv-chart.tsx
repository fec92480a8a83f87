import { formatEstimate, type Estimate } from '../../lib/benchmark';

const W = 360;
const ROW = 34;
const LEFT = 70;
const RIGHT = 16;
const TOP = 10;

/**
 * Mean closing-line value at each horizon as a dot with its 95 % whisker around a zero line (above 0: the price
 * moved the buyer's way). The public record has the three horizons only, not a per-buy series, so "over time"
 * is read across +1 h, +24 h and the close.
 */
export function ClvChart({ horizons }: { horizons: { label: string; mean: Estimate }[] }) {
  const values = horizons.flatMap((h) => [h.mean.value, h.mean.low, h.mean.high]).filter((v): v is number => v !== null);
  const reach = Math.max(0.01, ...values.map(Math.abs)) * 1.1;
  const x = (v: number) => LEFT + ((v + reach) / (2 * reach)) * (W - LEFT - RIGHT);
  const height = TOP + horizons.length * ROW + 24;
  const summary = horizons.map((h) => `${h.label} ${formatEstimate(h.mean, 'cents')}`).join('; ');
  return (
    <svg className="clv-chart" viewBox={`0 0 ${W} ${height}`} role="img" aria-label={`Closing-line value by horizon, mean with 95% interval: ${summary}.`}>
      <line x1={x(0)} y1={TOP - 4} x2={x(0)} y2={TOP + horizons.length * ROW} className="plot-diagonal" strokeDasharray="4 4" />
      {horizons.map((h, i) => {
        const cy = TOP + i * ROW + ROW / 2;
        const { value, low, high } = h.mean;
        return (
          <g key={h.label}>
            <text x={LEFT - 8} y={cy + 4} textAnchor="end" fontSize="11" className="plot-ink">
              {h.label}
            </text>
            {low !== null && high !== null ? <line x1={x(low)} y1={cy} x2={x(high)} y2={cy} className="plot-whisker" strokeWidth="1.5" /> : null}
            {value !== null ? <circle cx={x(value)} cy={cy} r="5" className={value >= 0 ? 'plot-up' : 'plot-down'} /> : null}
          </g>
        );
      })}
      <g fontSize="10" className="plot-label">
        {[-reach, 0, reach].map((t) => (
          <text key={t} x={x(t)} y={height - 6} textAnchor="middle">
            {t === 0 ? '0' : `${t > 0 ? '+' : '−'}${(Math.abs(t) * 100).toFixed(1)}¢`}
          </text>
        ))}
      </g>
    </svg>
  );
}
