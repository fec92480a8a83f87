/**
 * The one definition of a market the benchmark scores: a mirrored market that has resolved, with its kind, outcome count,
 * winning outcome (1 = YES, 0 = NO, null = VOID), close (its end date, or its resolution when that came first),
 * resolution time and category, as the body of a CTE named `resolved`. `$from`/`$to` bound the resolution time (both
 * null: every season). With `account`, only the markets that account stated a forecast on or bought in; the export and
 * the scoring read the same markets through it.
 *
 * Community markets are never scored (issue 49 item 3): their creator decides how they resolve, so a creator with a
 * second account could hand it any record (the "creator and puppet" attack). Their money moves as usual and they keep
 * their own community figures; no forecasting board or record counts them. The columns stay (kind, creator_id) so a
 * reader need not know that.
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
  )`;
}
