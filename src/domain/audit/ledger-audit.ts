import type { Queryable } from '../../db/database';

export interface AuditReport {
  accounts: number;
  positions: number;
  violations: string[];
}

/**
 * Checks every money invariant straight from the tables:
 * - each balance equals the sum of its ledger entries and is never negative;
 * - each position's quantity = bought − sold − settled, matching its trade journal;
 * - cash conservation: all balances = grants + rewards − buys + sells + settlements, with every
 *   buy/sell/settlement ledger entry matched by its trade (same amount, same account).
 */
export async function auditLedger(db: Queryable): Promise<AuditReport> {
  const violations: string[] = [];
  const balances = await db.query<{ id: string; balance_micro: bigint; ledger: bigint | null }>(
    `SELECT u.id, u.balance_micro, l.total AS ledger FROM users u
     LEFT JOIN (SELECT user_id, sum(amount_micro)::bigint AS total FROM ledger_entries GROUP BY user_id) l ON l.user_id = u.id
     WHERE u.balance_micro <> coalesce(l.total, 0) OR u.balance_micro < 0`,
  );
  for (const b of balances) violations.push(`account ${b.id}: balance ${b.balance_micro} but ledger sums to ${b.ledger ?? 0n}`);

  const positions = await db.query<{ id: string; quantity_micro: bigint; bought: bigint; sold: bigint; settled: bigint; b: bigint; s: bigint; st: bigint }>(
    `SELECT p.id, p.quantity_micro, p.bought_micro AS bought, p.sold_micro AS sold, p.settled_micro AS settled,
            coalesce(sum(t.quantity_micro) FILTER (WHERE t.side = 'BUY'), 0)::bigint AS b,
            coalesce(sum(t.quantity_micro) FILTER (WHERE t.side = 'SELL'), 0)::bigint AS s,
            coalesce(sum(t.quantity_micro) FILTER (WHERE t.side = 'SETTLE'), 0)::bigint AS st
     FROM positions p LEFT JOIN trades t ON t.position_id = p.id
     GROUP BY p.id
     HAVING p.quantity_micro <> p.bought_micro - p.sold_micro - p.settled_micro
         OR p.bought_micro <> coalesce(sum(t.quantity_micro) FILTER (WHERE t.side = 'BUY'), 0)
         OR p.sold_micro <> coalesce(sum(t.quantity_micro) FILTER (WHERE t.side = 'SELL'), 0)
         OR p.settled_micro <> coalesce(sum(t.quantity_micro) FILTER (WHERE t.side = 'SETTLE'), 0)
         OR p.quantity_micro < 0
         OR (p.is_closed AND p.quantity_micro <> 0)`,
  );
  for (const p of positions) {
    violations.push(
      `position ${p.id}: quantity ${p.quantity_micro}, bought ${p.bought}/${p.b}, sold ${p.sold}/${p.s}, settled ${p.settled}/${p.st} (position/journal)`,
    );
  }

  const unmatched = await db.query<{ ref: string; type: string }>(
    `SELECT l.ref, l.type FROM ledger_entries l
     LEFT JOIN trades t ON t.id::text = l.ref AND t.user_id = l.user_id AND t.cash_micro = l.amount_micro
     WHERE l.type IN ('buy', 'sell', 'settlement') AND t.id IS NULL`,
  );
  for (const u of unmatched) violations.push(`ledger ${u.type} entry ${u.ref} has no matching trade`);
  const unbooked = await db.query<{ id: string; side: string }>(
    `SELECT t.id, t.side FROM trades t LEFT JOIN ledger_entries l ON l.ref = t.id::text AND l.user_id = t.user_id
     WHERE l.id IS NULL AND t.cash_micro <> 0`,
  );
  for (const t of unbooked) violations.push(`trade ${t.id} (${t.side}) moved cash with no ledger entry`);

  const totals = await db.query<{ balances: bigint | null; ledger: bigint | null; flows: bigint | null }>(
    `SELECT (SELECT sum(balance_micro) FROM users)::bigint AS balances,
            (SELECT sum(amount_micro) FROM ledger_entries)::bigint AS ledger,
            ((SELECT coalesce(sum(amount_micro), 0) FROM ledger_entries WHERE type NOT IN ('buy', 'sell', 'settlement'))
             + (SELECT coalesce(sum(cash_micro), 0) FROM trades))::bigint AS flows`,
  );
  const t = totals[0]!;
  if ((t.balances ?? 0n) !== (t.ledger ?? 0n) || (t.ledger ?? 0n) !== (t.flows ?? 0n)) {
    violations.push(`cash conservation: balances ${t.balances ?? 0n}, ledger ${t.ledger ?? 0n}, grants + trade cash ${t.flows ?? 0n}`);
  }
  const counts = await db.query<{ a: bigint; p: bigint }>('SELECT (SELECT count(*) FROM users) AS a, (SELECT count(*) FROM positions) AS p');
  return { accounts: Number(counts[0]!.a), positions: Number(counts[0]!.p), violations };
}
