import { useEffect, useRef } from 'react';
import { createChart, LineSeries, type UTCTimestamp } from 'lightweight-charts';

export interface LinePoint {
  /** Seconds since the epoch. */
  time: number;
  value: number;
}

/**
 * One line over time, drawn with lightweight-charts in the house style (the price and equity charts). The box is an
 * image whose label is the chart's summary in words; the attribution is a plain link its caller shows under the chart
 * (a link inside the role=img box would be a nested control). Only modules loaded lazily import this, so the chart
 * library is fetched only where a chart is drawn.
 */
export function LineChart({ points, format, minMove, label }: { points: LinePoint[]; format: (v: number) => string; minMove: number; label: string }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!box.current || points.length === 0) return;
    const chart = createChart(box.current, {
      autoSize: true,
      layout: { background: { color: '#ffffff' }, textColor: '#17181c', attributionLogo: false },
      rightPriceScale: { borderVisible: false },
      timeScale: { timeVisible: true, borderVisible: false },
      grid: { vertLines: { visible: false } },
    });
    const series = chart.addSeries(LineSeries, { color: '#0b6b3a', lineWidth: 2, priceFormat: { type: 'custom', formatter: format, minMove } });
    series.setData(ascending(points));
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [points, format, minMove]);

  return <div ref={box} className="chart" role="img" aria-label={label} hidden={points.length === 0} />;
}

/** The chart needs strictly ascending whole-second times: a later point in the same second replaces the earlier one. */
export function ascending(points: LinePoint[]): { time: UTCTimestamp; value: number }[] {
  const data: { time: UTCTimestamp; value: number }[] = [];
  for (const p of points) {
    const time = Math.floor(p.time) as UTCTimestamp;
    const last = data[data.length - 1];
    if (last && last.time >= time) last.value = p.value;
    else data.push({ time, value: p.value });
  }
  return data;
}
