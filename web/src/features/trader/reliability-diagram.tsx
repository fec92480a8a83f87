import { percent } from '../../lib/format';
import type { Ok } from '../../lib/api/client';

type Bin = Ok<'/api/benchmark/record', 'get'>['forecasts']['reliabilityTable'][number];

const SIZE = 320;
const PAD = 36;
const LEFT = 60;
const INNER = SIZE - LEFT - PAD / 2;
const x = (p: number) => LEFT + p * INNER;
const y = (p: number) => SIZE - PAD - p * INNER;

/**
 * The reliability diagram of the stated forecasts: per non-empty bin, the mean forecast against how often the
 * outcome happened, with the bin's Wilson 95 % interval as a whisker and the diagonal of perfect calibration.
 * Plain SVG, with the same numbers in a table for screen readers and exact reading.
 */
export function ReliabilityDiagram({ bins }: { bins: Bin[] }) {
  const most = Math.max(1, ...bins.map((b) => b.n));
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const pairs = bins.reduce((s, b) => s + b.n, 0);
  return (
    <figure className="benchmark-chart">
      <svg
        viewBox={`0 0 ${SIZE} ${SIZE}`}
        role="img"
        aria-label={`Reliability diagram: ${bins.length} forecast ${bins.length === 1 ? 'bin' : 'bins'} over ${pairs} forecast/outcome pairs, each with its 95% Wilson interval; the table below lists them.`}
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
        {bins.map((b) => (
          <g key={b.binLow}>
            <line x1={x(b.meanForecast)} y1={y(b.low)} x2={x(b.meanForecast)} y2={y(b.high)} className="plot-whisker" strokeWidth="1.5" />
            <line x1={x(b.meanForecast) - 4} y1={y(b.low)} x2={x(b.meanForecast) + 4} y2={y(b.low)} className="plot-whisker" strokeWidth="1.5" />
            <line x1={x(b.meanForecast) - 4} y1={y(b.high)} x2={x(b.meanForecast) + 4} y2={y(b.high)} className="plot-whisker" strokeWidth="1.5" />
            <circle cx={x(b.meanForecast)} cy={y(b.observedFrequency)} r={3 + 6 * Math.sqrt(b.n / most)} className="plot-dot" fillOpacity="0.75" />
          </g>
        ))}
        <text x={LEFT + INNER / 2} y={SIZE - 4} textAnchor="middle" fontSize="11" className="plot-ink">
          Mean forecast
        </text>
        <text x={14} y={y(0.5)} textAnchor="middle" fontSize="11" className="plot-ink" transform={`rotate(-90 14 ${y(0.5)})`}>
          Observed frequency
        </text>
      </svg>
      <figcaption>Dots on the dashed diagonal are perfectly calibrated; whiskers are 95% Wilson intervals; bigger dots hold more pairs.</figcaption>
      <div className="table-wrap">
        <table>
          <caption>Reliability by forecast bin</caption>
          <thead>
            <tr>
              <th scope="col">Bin</th>
              <th scope="col" className="num">
                Pairs
              </th>
              <th scope="col" className="num">
                Mean forecast
              </th>
              <th scope="col" className="num">
                Observed [95% interval]
              </th>
            </tr>
          </thead>
          <tbody>
            {bins.map((b) => (
              <tr key={b.binLow}>
                <td>
                  {Math.round(b.binLow * 100)}–{Math.round(b.binHigh * 100)}%
                </td>
                <td className="num">{b.n}</td>
                <td className="num">{percent(b.meanForecast)}</td>
                <td className="num">
                  {percent(b.observedFrequency)} [{percent(b.low)}, {percent(b.high)}]
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
