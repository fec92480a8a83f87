import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import { chartColours, useScheme } from '../lib/theme';

export interface LinePoint {
  /** Seconds since the epoch. */
  time: number;
  value: number;
}

const FONT = '12px system-ui, sans-serif';
/** The crosshair's time, in the viewer's time zone, to the minute. */
const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * One line over time, drawn with uPlot (a canvas) in the house style (the price and equity charts): a time axis, the
 * values' axis on the right in the caller's format, a crosshair, and a tip naming the nearest point's time and value.
 * The box is an image whose label is the chart's summary in words; the attribution is a plain link its caller shows
 * under the chart (a link inside the role=img box would be a nested control). Its colours are the page's (dark.css): a
 * change of scheme draws it again. Only modules loaded lazily import this,
 * so the chart library is fetched only where a chart is drawn.
 */
export function LineChart({ points, format, label }: { points: LinePoint[]; format: (v: number) => string; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(false);
  const scheme = useScheme();

  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return;
    const data = ascending(points);
    const { ink, line, grid } = chartColours();
    const tip = document.createElement('div');
    tip.className = 'chart-tip';
    tip.hidden = true;
    const opts: uPlot.Options = {
      width: el.clientWidth,
      height: el.clientHeight,
      // Times are seconds (uPlot's default unit). One point sits in the middle of two hours (uPlot would give it a
      // thousand days), and a flat line in the middle of a band of 1% of its value (uPlot's would span from 0 to twice it).
      scales: {
        x: { time: true, range: (_u, min, max) => (data[0].length === 1 ? [data[0][0]! - 3600, data[0][0]! + 3600] : [min, max]) },
        y: {
          range: (_u, min, max) =>
            min === max ? [min - Math.max(Math.abs(min) * 0.01, 0.01), max + Math.max(Math.abs(max) * 0.01, 0.01)] : uPlot.rangeNum(min, max, 0.1, true),
        },
      },
      series: [{}, { stroke: line, width: 2, points: { size: 5, fill: line } }],
      axes: [
        { stroke: ink, font: FONT, grid: { show: false }, ticks: { show: false } },
        {
          side: 1,
          stroke: ink,
          font: FONT,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          values: (_u, splits) => splits.map(format),
          // Wide enough for the longest label (7 px a character at 12 px) and a margin.
          size: (_u, values) => 16 + 7 * Math.max(4, ...(values ?? []).map((v) => v.length)),
        },
      ],
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 7, fill: line } },
      hooks: {
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            if (i == null || u.cursor.left == null || u.cursor.left < 0) {
              tip.hidden = true;
              return;
            }
            tip.textContent = `${TIME.format(new Date(data[0][i]! * 1000))}: ${format(data[1][i]!)}`;
            tip.hidden = false;
            const left = u.valToPos(data[0][i]!, 'x') + u.over.offsetLeft;
            // The tip sits beside the point, on the side with room.
            tip.style.left = left > el.clientWidth / 2 ? `${left - tip.offsetWidth - 10}px` : `${left + 10}px`;
            tip.style.top = `${u.over.offsetTop + 4}px`;
          },
        ],
      },
    };
    const chart = new uPlot(opts, data, el);
    el.appendChild(tip);
    setDrawn(true);
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth, height: el.clientHeight }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      tip.remove();
    };
  }, [points, format, scheme]);

  return (
    <div ref={box} className="chart" role="img" aria-label={label} hidden={points.length === 0}>
      {drawn ? null : <Sketch points={points} />}
    </div>
  );
}

/**
 * The line alone, as SVG, until uPlot has drawn: what the page's HTML shows when the service renders the page's first
 * view (web/src/entry-server.tsx), and what a reader without JavaScript keeps.
 */
function Sketch({ points }: { points: LinePoint[] }) {
  const [times, values] = ascending(points);
  if (times.length === 0) return null;
  const [t0, t1] = [times[0]!, times[times.length - 1]!];
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const x = (t: number) => (t1 === t0 ? 500 : ((t - t0) / (t1 - t0)) * 1000);
  const y = (v: number) => (hi === lo ? 150 : 280 - ((v - lo) / (hi - lo)) * 260);
  const line = times.map((t, i) => `${x(t).toFixed(1)},${y(values[i]!).toFixed(1)}`).join(' ');
  return (
    <svg className="chart-sketch" viewBox="0 0 1000 300" preserveAspectRatio="none" aria-hidden="true">
      <polyline points={line} fill="none" className="sketch-line" strokeWidth="2" vectorEffect="non-scaling-stroke" />
    </svg>
  );
}

/** The chart needs strictly ascending whole-second times: a later point in the same second replaces the earlier one. */
export function ascending(points: LinePoint[]): [number[], number[]] {
  const times: number[] = [];
  const values: number[] = [];
  for (const p of points) {
    const time = Math.floor(p.time);
    const last = times.length - 1;
    if (last >= 0 && times[last]! >= time) values[last] = p.value;
    else {
      times.push(time);
      values.push(p.value);
    }
  }
  return [times, values];
}
