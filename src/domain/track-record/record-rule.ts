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
  return e.ownMarket !== true && e.thinMarket !== true;
}

/**
 * How many distinct traders besides its creator a community market must have had before its trades count toward the
 * track record (issue 49 item 3): a creator decides how their market resolves, so one second account trading it (the
 * "creator and puppet" attack) must not buy a place on a board. A trade counts when, with it, the market has had this
 * many; a settlement when the market had this many by then. Earlier trades stay out (the record is kept as it goes).
 */
export const COMMUNITY_MIN_TRADERS = 5;

/**
 * Whether a community market is still too thin for the record when `userId` trades (or holds) in it: fewer than
 * COMMUNITY_MIN_TRADERS distinct accounts besides its creator have bought in it, counting `userId`. `$1` the market,
 * `$2` the trader; answers `thin`. A market that has had them always has (no trade is removed), and its pool says so:
 * a trade the check finds not thin stamps `community_pools.thick_at` (counting its trader, the market has had them once
 * it is done; the creator's check counts only others; a seller has bought before), and from then on the
 * market's trades are not read at all (a CASE evaluates its subqueries only when reached), so the check costs the same
 * at its millionth trade as at its first, while the pool, which every trade of the market waits for, is held. Until
 * then it reads the market's buys. It names no creator, so a trade can send it with its read of the pool.
 */
export const THIN_MARKET_SQL = `WITH c AS (SELECT creator_id FROM community_markets WHERE id = $1::text::uuid)
  SELECT CASE WHEN (SELECT thick_at FROM community_pools WHERE market_id = $1::text::uuid) IS NOT NULL THEN false ELSE (
    (SELECT count(*) FROM (SELECT DISTINCT t.user_id FROM trades t, c WHERE t.market_id = $1::text AND t.side = 'BUY'
       AND t.user_id <> c.creator_id AND t.user_id <> $2::uuid LIMIT ${COMMUNITY_MIN_TRADERS}) x)
    + CASE WHEN $2::uuid = (SELECT creator_id FROM c) THEN 0 ELSE 1 END) < ${COMMUNITY_MIN_TRADERS} END AS thin`;

/** A community market's token (`cm-<market id without dashes>-<outcome index>`, tokenIdOf in community-trading-service.ts). */
export const isCommunityMarketToken = (tokenId: string): boolean => /^cm-[0-9a-f]{32}-\d{1,2}$/i.test(tokenId);

/** Over the trade journal: true when trade row `t` is in a community market (which no forecasting record counts). */
export const COMMUNITY_MARKET_TRADE = (t: string): string => `EXISTS (SELECT 1 FROM community_markets cmx WHERE cmx.id::text = ${t}.market_id)`;

/** The same rule over the trade journal: true when trade row `t` is its trader's own community market (so it does not count). */
export const OWN_MARKET_TRADE = (t: string): string =>
  `EXISTS (SELECT 1 FROM community_markets own WHERE own.id::text = ${t}.market_id AND own.creator_id = ${t}.user_id)`;

/** What a community market's page and get_community_market say of the rule. */
export const OWN_MARKET_NOTE =
  "The creator's own trades and positions in this market do not count toward any leaderboard, trader stats, XP, badges, " +
  'daily challenges or forecasting record; before its end date the creator can only void it, with a stated reason. ' +
  `Anyone else's trades count toward the leaderboards and trader stats only once the market has had ${COMMUNITY_MIN_TRADERS} distinct traders ` +
  'besides its creator, and community markets count in no forecasting record or benchmark board.';
