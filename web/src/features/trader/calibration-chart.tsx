import { percent } from '../../lib/format';
import type { Ok } from '../../lib/api/client';

/** One calibration bin of get_agent_reputation, in the one bin shape (binLow, binHigh, n). */
type CalibrationBucket = NonNullable<Ok<'/api/agents/{id}/reputation', 'get'>['forecasting']>['calibration'][number];

const SIZE = 320;
const PAD = 36;
/** Room on the left for the tick labels and, left of them, the rotated axis title. */
const LEFT = 60;
const INNER = SIZE - LEFT - PAD / 2;
const x = (p: number) => LEFT + p * INNER;
const y = (p: number) => SIZE - PAD - p * INNER;

/**
 * Forecast (the price paid) against how often those sides won, one dot per entry-price bucket sized by its
 * count; a perfectly calibrated trader sits on the diagonal. Plain SVG (no chart library), with the same
 * numbers in a table underneath for screen readers and exact reading.
 */
export function CalibrationChart({ buckets }: { buckets: CalibrationBucket[] }) {
  const filled = buckets.filter((b) => b.n > 0 && b.meanForecast !== null && b.observedFrequency !== null);
  const most = Math.max(1, ...filled.map((b) => b.n));
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <figure className="calibration">
      <svg
        viewBox={`0 0 ${SIZE} ${SIZE}`}
        role="img"
        aria-label={`Calibration chart: ${filled.length} of ${buckets.length} forecast buckets have settled positions; the table below lists them.`}
      >
        <rect x={LEFT} y={y(1)} width={INNER} height={INNER} className="plot-panel" />
        {ticks.map((t) => (
          <g key={t} fontSize="10" className="plot-label">
            <line x1={x(t)} y1={y(0)} x2={x(t)} y2={y(1)} className="plot-grid" />
            <line x1={x(0)} y1={y(t)} x2={x(1)} y2={y(t)} className="plot-grid" />
            <text x={x(t)} y={SIZE - PAD + 14} textAnchor="middle">
              {t * 100}%
            </text>
            <text x={LEFT - 6} y={y(t) + 3} textAnchor="end">
              {t * 100}%
            </text>
          </g>
        ))}
        <line x1={x(0)} y1={y(0)} x2={x(1)} y2={y(1)} className="plot-diagonal" strokeDasharray="4 4" />
        {filled.map((b) => (
          <circle
            key={b.binLow}
            cx={x(b.meanForecast!)}
            cy={y(b.observedFrequency!)}
            r={4 + 8 * Math.sqrt(b.n / most)}
            className="plot-dot"
            fillOpacity="0.7"
          />
        ))}
        <text x={LEFT + INNER / 2} y={SIZE - 4} textAnchor="middle" fontSize="11" className="plot-ink">
          Forecast (price paid)
        </text>
        <text x={14} y={y(0.5)} textAnchor="middle" fontSize="11" className="plot-ink" transform={`rotate(-90 14 ${y(0.5)})`}>
          Observed frequency
        </text>
      </svg>
      <figcaption>Dots on the dashed diagonal are perfectly calibrated; bigger dots hold more positions.</figcaption>
      <div className="table-wrap">
        <table>
          <caption>Calibration by entry-price bucket</caption>
          <thead>
            <tr>
              <th scope="col">Bucket</th>
              <th scope="col" className="num">
                Positions
              </th>
              <th scope="col" className="num">
                Mean forecast
              </th>
              <th scope="col" className="num">
                Observed
              </th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={b.binLow}>
                <td>
                  {Math.round(b.binLow * 100)}–{Math.round(b.binHigh * 100)}%
                </td>
                <td className="num">{b.n}</td>
                <td className="num">{percent(b.meanForecast)}</td>
                <td className="num">{percent(b.observedFrequency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
