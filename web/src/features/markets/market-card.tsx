import { Link } from 'wouter';
import { marketHref } from '../../lib/paths';
import { cents, date, money } from '../../lib/format';

export interface MarketSummary {
  slug: string;
  question: string;
  category: string | null;
  yesPrice?: number;
  noPrice?: number;
  volume: number | null;
  endDate: string | null;
  simulated: boolean;
}

/** One market in a list: its question (the link), YES/NO prices, volume and end date. */
export function MarketCard({ market }: { market: MarketSummary }) {
  return (
    <li className="market-card">
      <Link href={marketHref(market.slug)} className="market-link">
        {market.question}
      </Link>
      <div className="market-meta">
        <span className="price yes">YES {cents(market.yesPrice)}</span>
        <span className="price no">NO {cents(market.noPrice)}</span>
        <span>{market.category ?? 'Uncategorised'}</span>
        <span>Vol. {money(market.volume)}</span>
        <span>Ends {date(market.endDate)}</span>
        {market.simulated ? <span className="tag">simulated</span> : null}
      </div>
    </li>
  );
}
