/**
 * The one definition of a market the benchmark scores: a mirrored or community market that has resolved, with its kind,
 * outcome count, winning outcome (mirrored: 1 = YES, 0 = NO; community: the winner's index; null = VOID), close (its end
 * date, or its resolution when that came first), resolution time, category and creator, as the body of a CTE named
 * `resolved`. `$from`/`$to` bound the resolution time (both null: every season). With `account`, only the markets that
 * account stated a forecast on or bought in, never one it created (issue 33 item 10); the export and the scoring read
 * the same markets through it.
 */
export function resolvedMarketsCte(range: { from: string; to: string }, account?: string): string {
  const inRange = (col: string) => `(${range.from}::timestamptz IS NULL OR (${col} >= ${range.from} AND ${col} < ${range.to}))`;
  const touched = (id: string) =>
    account
      ? ` AND ${id} IN (SELECT market_id FROM forecasts WHERE user_id = ${account} UNION SELECT market_id FROM trades WHERE user_id = ${account} AND side = 'BUY')`
      : '';
  return `resolved AS (
    SELECT mk.id AS market_id, 'binary' AS kind, 1 AS outcomes, CASE mk.winner WHEN 'YES' THEN 1 WHEN 'NO' THEN 0 END AS winner,
      least(coalesce(mk.end_date, mk.resolved_at), mk.resolved_at) AS closed_at, mk.resolved_at,
      coalesce(mk.category, 'Uncategorized') AS category, NULL::uuid AS creator_id
    FROM markets mk WHERE mk.status = 'resolved' AND mk.resolved_at IS NOT NULL AND ${inRange('mk.resolved_at')}${touched('mk.id')}
    UNION ALL
    SELECT c.id::text, 'categorical', cardinality(l.labels), array_position(l.labels, c.resolved_outcome) - 1,
      least(c.end_date, c.resolved_at), c.resolved_at, c.category, c.creator_id
    FROM community_markets c
      CROSS JOIN LATERAL (SELECT array_agg(o.label ORDER BY o.idx) AS labels FROM community_outcomes o WHERE o.market_id = c.id) l
    WHERE c.status = 'resolved' AND c.resolved_at IS NOT NULL AND ${inRange('c.resolved_at')}${account ? ` AND c.creator_id <> ${account}` : ''}${touched('c.id::text')}
  )`;
}
