import { Link } from 'wouter';
import { marketHref } from '../../lib/paths';
import { cents, date, money } from '../../lib/format';
import { Sparkline } from './sparkline';
import { useLivePrices } from '../../lib/live-prices';
import '../../components/discovery.css';

export interface MarketSummary {
  id: string;
  /** Its outcome tokens: the price stream names prices by token. */
  outcomeTokens?: { outcome: string; tokenId: string | null }[];
  slug: string;
  question: string;
  category: string | null;
  yesPrice?: number;
  noPrice?: number;
  volume: number | null;
  endDate: string | null;
  simulated: boolean;
  /** The YES price's 24 h move (list_markets); absent in search results. */
  change24h?: number | null;
  /** Hourly YES prices over 24 h (list_markets with sparkline: true). */
  sparkline?: number[];
}

/** A 24 h move in points of probability, as people read it: "▲ 5.0 pts", "▼ 0.5 pts", "unchanged". */
export function changeText(change: number): string {
  const pts = Math.abs(change * 100);
  if (pts < 0.05) return 'unchanged';
  return `${change > 0 ? '▲' : '▼'} ${pts.toFixed(1)} pts`;
}

function Change({ change }: { change: number | null | undefined }) {
  if (change === undefined || change === null) return null;
  const dir = Math.abs(change * 100) < 0.05 ? 'flat' : change > 0 ? 'up' : 'down';
  return (
    <span className={`change ${dir}`}>
      <span aria-hidden="true">{changeText(change)}</span>
      <span className="visually-hidden">{changeText(change).replace('▲', 'up').replace('▼', 'down')}</span> 24h
    </span>
  );
}

/** The YES probability as a filled bar (the number beside it says the same for those who cannot see it). */
function ProbabilityBar({ p }: { p: number }) {
  return (
    <div className="prob-row">
      <div className="prob-bar" aria-hidden="true">
        <span style={{ width: `${Math.round(p * 1000) / 10}%` }} />
      </div>
      <span className="prob-text">{Math.round(p * 100)}% chance</span>
    </div>
  );
}

/** One market in a list: its question (the link), probability bar, 24 h move and sparkline, YES/NO prices (live), volume and end date. */
export function MarketCard({ market }: { market: MarketSummary }) {
  // The list's prices, then the price stream's (one stream for every card of the tab).
  const live = useLivePrices(market.yesPrice !== undefined ? [market.id] : []);
  const token = (outcome: string) => market.outcomeTokens?.find((t) => t.outcome === outcome)?.tokenId;
  const yesPrice = live.liveQuote(token('YES'))?.price ?? market.yesPrice;
  const noPrice = live.liveQuote(token('NO'))?.price ?? market.noPrice;
  return (
    <li className="market-card">
      <Link href={marketHref(market.slug)} className="market-link">
        {market.question}
      </Link>
      {yesPrice !== undefined ? <ProbabilityBar p={yesPrice} /> : null}
      <div className="market-meta">
        <span className="price yes">YES {cents(yesPrice)}</span>
        <span className="price no">NO {cents(noPrice)}</span>
        <Change change={market.change24h} />
        {market.sparkline && market.sparkline.length > 1 ? <Sparkline points={market.sparkline} /> : null}
        <span>{market.category ?? 'Uncategorised'}</span>
        <span>Vol. {money(market.volume)}</span>
        <span>Ends {date(market.endDate)}</span>
        {market.simulated ? <span className="tag">simulated</span> : null}
      </div>
    </li>
  );
}
