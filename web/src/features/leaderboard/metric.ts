import { money, signedMoney } from '../../lib/format';

export type Metric = 'pnl' | 'volume' | 'accuracy' | 'trades';

/** A board value in its unit: dollars (signed for PnL), a count of trades, or a percent for accuracy. */
export function formatMetric(metric: Metric, value: number): string {
  switch (metric) {
    case 'pnl':
      return signedMoney(value);
    case 'volume':
      return money(value);
    case 'accuracy':
      return `${value.toFixed(2)}%`;
    case 'trades':
      return value.toLocaleString('en-US');
  }
}
