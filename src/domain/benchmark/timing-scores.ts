import { pooledMeanEstimate, seedOf, type Estimate } from './estimate';

export interface TimedBuy {
  marketId: string;
  /** Stake, dollars. */
  cost: number;
  /** Fill price per share of the token bought. */
  price: number;
  /** That same token's price an hour after the fill; null when not known yet or no price. */
  after1h: number | null;
  /** That same token's price a day after the fill; null when not known yet or no price. */
  after24h: number | null;
  /** That same token's price at the market's close; null when not known yet or no price. */
  atClose: number | null;
}

/** Closing-line value at one horizon, n = buys with a price at that horizon, intervals clustered by market. */
export interface HorizonScores {
  /** Mean of (later price − fill price) over buys. */
  mean: Estimate;
  /** Σ cost·clv / Σ cost. */
  stakeWeighted: Estimate;
  /** Share of buys whose later price is above the fill price. */
  positiveShare: Estimate;
}

export interface TimingScores {
  buys: number;
  h1: HorizonScores;
  h24: HorizonScores;
  close: HorizonScores;
}

type Horizon = 'after1h' | 'after24h' | 'atClose';

/**
 * Closing-line value is later price − fill price of the token bought, so it is already signed by side: a NO buy gains
 * when NO's price rises. Each market's buys form one cluster (they ride the same price path), so a single market has no
 * interval whatever its number of buys.
 */
function scoreHorizon(buys: readonly TimedBuy[], horizon: Horizon, seedLabel: string): HorizonScores {
  const byMarket = new Map<string, { plain: { sum: number; count: number }; staked: { sum: number; count: number }; up: { sum: number; count: number } }>();
  let n = 0;
  for (const buy of buys) {
    const later = buy[horizon];
    if (later === null) continue;
    const clv = later - buy.price;
    let m = byMarket.get(buy.marketId);
    if (m === undefined) {
      m = { plain: { sum: 0, count: 0 }, staked: { sum: 0, count: 0 }, up: { sum: 0, count: 0 } };
      byMarket.set(buy.marketId, m);
    }
    m.plain.sum += clv;
    m.plain.count += 1;
    m.staked.sum += buy.cost * clv;
    m.staked.count += buy.cost;
    m.up.sum += clv > 0 ? 1 : 0;
    m.up.count += 1;
    n++;
  }
  const markets = [...byMarket.values()];
  const seed = (figure: string): number => seedOf(`${seedLabel}|${horizon}|${figure}`);
  const pooled = (part: 'plain' | 'staked' | 'up', figure: string) =>
    pooledMeanEstimate(
      markets.map((m) => m[part].sum),
      markets.map((m) => m[part].count),
      n,
      seed(figure),
    );
  return {
    mean: pooled('plain', 'mean'),
    stakeWeighted: pooled('staked', 'stake-weighted'),
    positiveShare: pooled('up', 'positive-share'),
  };
}

export function scoreTiming(buys: readonly TimedBuy[], seedLabel: string): TimingScores {
  return {
    buys: buys.length,
    h1: scoreHorizon(buys, 'after1h', seedLabel),
    h24: scoreHorizon(buys, 'after24h', seedLabel),
    close: scoreHorizon(buys, 'atClose', seedLabel),
  };
}
