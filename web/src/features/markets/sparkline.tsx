import { cents } from '../../lib/format';

const W = 96;
const H = 24;

/**
 * A market's last 24 hours as a plain SVG line (no chart library: a list draws many). Its label states where the
 * line starts and ends, which is what a sighted reader takes from it.
 */
export function Sparkline({ points }: { points: number[] }) {
  const lo = Math.min(...points);
  const hi = Math.max(...points);
  // A flat line sits in the middle rather than on an edge.
  const span = hi - lo || 1;
  const y = (p: number) => (hi === lo ? H / 2 : 2 + (H - 4) * (1 - (p - lo) / span));
  const step = W / (points.length - 1);
  const path = points.map((p, i) => `${(i * step).toFixed(1)},${y(p).toFixed(1)}`).join(' ');
  const first = points[0]!;
  const last = points[points.length - 1]!;
  return (
    <svg
      className="sparkline"
      role="img"
      aria-label={`YES over 24 hours: from ${cents(first)} to ${cents(last)}`}
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
    >
      <polyline points={path} fill="none" stroke={last >= first ? 'var(--yes)' : 'var(--no)'} strokeWidth="1.5" />
    </svg>
  );
}
