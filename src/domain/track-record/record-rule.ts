import type { TradeEvent } from '../trading/trade-hooks';

/**
 * What counts toward the track record (boards, stats, XP, badges, challenges, the forecasting record), in one place.
 *
 * A community market's creator decides how it resolves, so their own trades and positions in it are no evidence of
 * skill: a creator who buys YES and resolves YES would otherwise buy a record. The money moves as for any trade (the
 * ledger, positions, the trade journal and the account's events); the record leaves it out. The trade path marks such an
 * event (TradeEvent.ownMarket: the community trading service knows the pool's creator), and every writer of the record
 * asks this function; the one reader of the trade journal in the record (the reputation's recent settlements) uses
 * OWN_MARKET_TRADE below, the same rule in SQL.
 */
export function countsTowardRecord(e: TradeEvent): boolean {
  return e.ownMarket !== true;
}

/** The same rule over the trade journal: true when trade row `t` is its trader's own community market (so it does not count). */
export const OWN_MARKET_TRADE = (t: string): string =>
  `EXISTS (SELECT 1 FROM community_markets own WHERE own.id::text = ${t}.market_id AND own.creator_id = ${t}.user_id)`;

/** What a community market's page and get_community_market say of the rule. */
export const OWN_MARKET_NOTE =
  "The creator's own trades and positions in this market do not count toward any leaderboard, trader stats, XP, badges, " +
  'daily challenges or forecasting record; before its end date the creator can only void it, with a stated reason.';
