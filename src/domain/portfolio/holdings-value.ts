import { MICRO } from '../money/micro';

/**
 * What an account holds besides cash, valued one way for every reader (get_portfolio's Equity, the hourly snapshots behind
 * the equity curve, the benchmark's risk figures), so the tile, the curve and the scores cannot disagree (issue 53 item 4).
 *
 * - An open position: quantity × its price, floored to the micro-dollar; the price is the mirrored or simulated market's mid
 *   (market_tokens) or the community market maker's price (community_outcomes). A token without a price counts nothing.
 * - A community market the account created and whose pool has not settled: the funding is an asset, not money spent.
 *   It is worth what would return at settlement if prices held: the pool's cash less its holders' shares at the pool price.
 *   The holders' shares and the creator's stake then sum to the pool's cash, so no dollar is counted twice or lost.
 */

/** Each open position: user_id, token_id, quantity_micro, value_micro (numeric, so no product overflows). */
export const OPEN_POSITION_VALUES = `
  SELECT p.user_id, p.token_id, p.quantity_micro, floor(p.quantity_micro::numeric * coalesce(t.price_micro, o.price_micro) / ${MICRO})::bigint AS value_micro
  FROM positions p LEFT JOIN market_tokens t ON t.token_id = p.token_id
    LEFT JOIN community_outcomes o ON o.token_id = p.token_id AND t.token_id IS NULL
  WHERE NOT p.is_closed AND coalesce(t.price_micro, o.price_micro) IS NOT NULL`;

/** Each creator's unsettled pool stakes summed: user_id, value_micro. */
export const POOL_STAKES = `
  SELECT m.creator_id AS user_id,
    sum(coalesce(b.cash_micro, 0) - (SELECT coalesce(sum(floor(o.shares_micro::numeric * o.price_micro / ${MICRO})), 0) FROM community_outcomes o WHERE o.market_id = p.market_id))::bigint AS value_micro
  FROM community_pools p JOIN community_markets m ON m.id = p.market_id LEFT JOIN pool_balances b ON b.market_id = p.market_id
  WHERE p.settled_at IS NULL
  GROUP BY m.creator_id`;

/** Per account: positions_micro (open positions) and stakes_micro (unsettled pool stakes); accounts holding neither are absent. */
export const HOLDINGS_VALUE = `
  SELECT user_id, sum(positions_micro)::bigint AS positions_micro, sum(stakes_micro)::bigint AS stakes_micro FROM (
    SELECT user_id, value_micro AS positions_micro, 0 AS stakes_micro FROM (${OPEN_POSITION_VALUES}) v
    UNION ALL
    SELECT user_id, 0, value_micro FROM (${POOL_STAKES}) s
  ) x GROUP BY user_id`;
