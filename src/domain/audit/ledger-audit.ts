import type { Queryable } from '../../db/database';

export interface AuditReport {
  accounts: number;
  positions: number;
  pools: number;
  /** Transfers in the journal, and the venue's cash as summed from them (it keeps no stored balance). */
  transfers: number;
  venueCashMicro: bigint;
  violations: string[];
}

/**
 * Checks every money invariant straight from the tables:
 * - each balance equals the sum of its ledger entries and is never negative;
 * - each position's quantity = bought − sold − settled, matching its trade journal;
 * - cash conservation: all balances = grants + rewards − buys + sells + settlements, with every
 *   buy/sell/settlement ledger entry matched by its trade (same amount, same account);
 * - community market pools (auditPools): each pool's cash is its funding minus what it returned plus
 *   what its market's trades paid in and out; each outcome's shares equal the open positions in it; an
 *   unsettled pool can pay every share of any one outcome; and money is conserved with pools counted;
 * - reservations (auditReservations): an account's reserved cash is the sum of its open buy orders' reservations,
 *   a position's reserved shares that of the open sell orders on it, never negative nor above the cash or shares
 *   there are (so reserved + available = cash with available >= 0), and each open order holds exactly its unfilled size;
 * - transfers (auditTransfers): every maintained balance — an account's cash and reserved cash, a position's shares and
 *   reserved shares, a pool's cash — equals the sum of its account's transfers; no order holds a negative amount, an
 *   order no longer open holds nothing, an open one holds its reservation; every trade's cash and shares moved as transfers.
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
  await auditPools(db, violations);
  await auditReservations(db, violations);
  const venueCashMicro = await auditTransfers(db, violations);
  const counts = await db.query<{ a: bigint; p: bigint; c: bigint; t: bigint }>(
    `SELECT (SELECT count(*) FROM users) AS a, (SELECT count(*) FROM positions) AS p, (SELECT count(*) FROM community_pools) AS c,
            (SELECT count(*) FROM transfers) AS t`,
  );
  const c = counts[0]!;
  return { accounts: Number(c.a), positions: Number(c.p), pools: Number(c.c), transfers: Number(c.t), venueCashMicro, violations };
}

/** Every community pool with its cash: the maintained balance of its ledger account (0 when it has no row). */
const POOLS = `(SELECT c.market_id, c.settled_at, coalesce(b.cash_micro, 0)::bigint AS cash_micro FROM community_pools c
  LEFT JOIN pool_balances b ON b.market_id = c.market_id)`;

async function auditPools(db: Queryable, violations: string[]): Promise<void> {
  const books = await db.query<{ market_id: string; cash_micro: bigint; expected: bigint }>(
    `SELECT p.market_id, p.cash_micro, (coalesce(f.funded, 0) - coalesce(r.returned, 0) - coalesce(t.cash, 0))::bigint AS expected
     FROM ${POOLS} p
     LEFT JOIN (SELECT ref, -sum(amount_micro) AS funded FROM ledger_entries WHERE type = 'pool_fund' GROUP BY ref) f ON f.ref = p.market_id::text
     LEFT JOIN (SELECT ref, sum(amount_micro) AS returned FROM ledger_entries WHERE type = 'pool_return' GROUP BY ref) r ON r.ref = p.market_id::text
     LEFT JOIN (SELECT market_id, sum(cash_micro) AS cash FROM trades GROUP BY market_id) t ON t.market_id = p.market_id::text
     WHERE p.cash_micro <> coalesce(f.funded, 0) - coalesce(r.returned, 0) - coalesce(t.cash, 0)`,
  );
  for (const b of books) violations.push(`pool ${b.market_id}: cash ${b.cash_micro} but funding, returns and trades give ${b.expected}`);

  const shares = await db.query<{ token_id: string; shares_micro: bigint; held: bigint }>(
    `SELECT o.token_id, o.shares_micro, coalesce(h.held, 0)::bigint AS held FROM community_outcomes o
     LEFT JOIN (SELECT token_id, sum(quantity_micro) AS held FROM positions WHERE NOT is_closed GROUP BY token_id) h ON h.token_id = o.token_id
     WHERE o.shares_micro <> coalesce(h.held, 0)`,
  );
  for (const x of shares) violations.push(`pool outcome ${x.token_id}: pool counts ${x.shares_micro} shares out, positions hold ${x.held}`);

  const short = await db.query<{ market_id: string; cash_micro: bigint; owed: bigint }>(
    `SELECT p.market_id, p.cash_micro, max(o.shares_micro) AS owed FROM ${POOLS} p JOIN community_outcomes o ON o.market_id = p.market_id
     WHERE p.settled_at IS NULL GROUP BY p.market_id, p.cash_micro HAVING p.cash_micro < max(o.shares_micro)`,
  );
  for (const x of short) violations.push(`pool ${x.market_id}: cash ${x.cash_micro} cannot pay the ${x.owed} shares of its most held outcome`);

  // Money in accounts and pools = grants and rewards + what mirrored-market trades moved (they trade against the venue, not a pool).
  const money = await db.query<{ held: bigint | null; sources: bigint | null }>(
    `SELECT ((SELECT coalesce(sum(balance_micro), 0) FROM users) + (SELECT coalesce(sum(cash_micro), 0) FROM pool_balances))::bigint AS held,
            ((SELECT coalesce(sum(amount_micro), 0) FROM ledger_entries WHERE type NOT IN ('buy', 'sell', 'settlement', 'pool_fund', 'pool_return'))
             + (SELECT coalesce(sum(t.cash_micro), 0) FROM trades t WHERE NOT EXISTS (SELECT 1 FROM community_pools p WHERE p.market_id::text = t.market_id)))::bigint AS sources`,
  );
  const m = money[0]!;
  if ((m.held ?? 0n) !== (m.sources ?? 0n)) violations.push(`cash conservation with pools: accounts + pools ${m.held ?? 0n}, sources ${m.sources ?? 0n}`);
}

async function auditReservations(db: Queryable, violations: string[]): Promise<void> {
  const cash = await db.query<{ id: string; reserved_micro: bigint; balance_micro: bigint; held: bigint }>(
    `SELECT u.id, u.reserved_micro, u.balance_micro, coalesce(o.held, 0)::bigint AS held FROM users u
     LEFT JOIN (SELECT user_id, sum(reserved_cash_micro) AS held FROM orders WHERE state IN ('open', 'partially_filled') GROUP BY user_id) o ON o.user_id = u.id
     WHERE u.reserved_micro <> coalesce(o.held, 0) OR u.reserved_micro < 0 OR u.reserved_micro > u.balance_micro`,
  );
  for (const c of cash) violations.push(`account ${c.id}: reserved ${c.reserved_micro} of balance ${c.balance_micro}, open buy orders hold ${c.held}`);
  const shares = await db.query<{ id: string; reserved_micro: bigint; quantity_micro: bigint; held: bigint }>(
    `SELECT p.id, p.reserved_micro, p.quantity_micro, coalesce(o.held, 0)::bigint AS held FROM positions p
     LEFT JOIN (SELECT position_id, sum(reserved_shares_micro) AS held FROM orders WHERE state IN ('open', 'partially_filled') GROUP BY position_id) o
       ON o.position_id = p.id
     WHERE p.reserved_micro <> coalesce(o.held, 0) OR p.reserved_micro < 0 OR p.reserved_micro > p.quantity_micro`,
  );
  for (const x of shares) violations.push(`position ${x.id}: reserved ${x.reserved_micro} of ${x.quantity_micro} shares, open sell orders hold ${x.held}`);
  const orders = await db.query<{ id: string }>(
    `SELECT id FROM orders WHERE state IN ('open', 'partially_filled')
       AND (CASE WHEN side = 'SELL' THEN reserved_shares_micro <> size_micro - filled_size_micro
                 WHEN sized_by = 'amount' THEN reserved_cash_micro <> size_micro - filled_size_micro
                 -- a BUY sized in shares: its unfilled shares × limit, rounded up (order-rules sharesCostCeiling)
                 ELSE reserved_cash_micro <> ceil((size_micro - filled_size_micro)::numeric * limit_price_micro / 1000000)::bigint END)`,
  );
  for (const o of orders) violations.push(`order ${o.id}: open, but its reservation is not that of its unfilled size`);
}

/** Per account and asset: posted balance (credits − debits) and what its pending transfers still hold. */
const SUMS = `WITH legs AS (
    SELECT credit_account AS account, asset, CASE WHEN phase = 'posted' THEN amount_micro ELSE 0 END AS moved, 0::bigint AS held FROM transfers
    UNION ALL
    SELECT debit_account, asset, CASE WHEN phase = 'posted' THEN -amount_micro ELSE 0 END,
           CASE phase WHEN 'pending' THEN amount_micro WHEN 'posted' THEN 0 ELSE -amount_micro END FROM transfers
  ) SELECT account, asset, sum(moved)::bigint AS moved, sum(held)::bigint AS held FROM legs GROUP BY account, asset`;

/** The transfers against the maintained balances (see auditLedger). Returns the venue's cash, summed. */
async function auditTransfers(db: Queryable, violations: string[]): Promise<bigint> {
  const cash = await db.query<{ id: string; balance_micro: bigint; reserved_micro: bigint; moved: bigint; held: bigint }>(
    `WITH s AS (${SUMS}) SELECT u.id, u.balance_micro, u.reserved_micro, coalesce(s.moved, 0)::bigint AS moved, coalesce(s.held, 0)::bigint AS held
     FROM users u LEFT JOIN s ON s.account = 'cash:' || u.id AND s.asset = 'USD'
     WHERE u.balance_micro <> coalesce(s.moved, 0) OR u.reserved_micro <> coalesce(s.held, 0)`,
  );
  for (const x of cash) {
    violations.push(`account ${x.id}: cash ${x.balance_micro} reserved ${x.reserved_micro}, but its transfers give ${x.moved} reserved ${x.held}`);
  }
  const held = await db.query<{ id: string; quantity_micro: bigint; reserved_micro: bigint; moved: bigint; pending: bigint }>(
    `WITH s AS (${SUMS}) SELECT p.id, p.quantity_micro, p.reserved_micro, coalesce(s.moved, 0)::bigint AS moved, coalesce(s.held, 0)::bigint AS pending
     FROM positions p LEFT JOIN s ON s.account = 'position:' || p.id AND s.asset = p.token_id
     WHERE p.quantity_micro <> coalesce(s.moved, 0) OR p.reserved_micro <> coalesce(s.held, 0)`,
  );
  for (const x of held) {
    violations.push(`position ${x.id}: ${x.quantity_micro} shares reserved ${x.reserved_micro}, but its transfers give ${x.moved} reserved ${x.pending}`);
  }
  const pools = await db.query<{ market_id: string; cash_micro: bigint; moved: bigint }>(
    `WITH s AS (${SUMS}) SELECT p.market_id, p.cash_micro, coalesce(s.moved, 0)::bigint AS moved
     FROM ${POOLS} p LEFT JOIN s ON s.account = 'pool:' || p.market_id AND s.asset = 'USD'
     WHERE p.cash_micro <> coalesce(s.moved, 0)`,
  );
  for (const x of pools) violations.push(`pool ${x.market_id}: cash ${x.cash_micro}, but its transfers give ${x.moved}`);
  // What an order holds: its pending transfers less what fills posted and releases voided of them.
  const orders = await db.query<{ id: string; state: string; reserved: bigint; held: bigint }>(
    `SELECT o.id, o.state, (o.reserved_cash_micro + o.reserved_shares_micro)::bigint AS reserved, coalesce(h.held, 0)::bigint AS held FROM orders o
     LEFT JOIN (SELECT order_id, sum(CASE WHEN phase = 'pending' THEN amount_micro ELSE -amount_micro END) AS held FROM transfers
                WHERE order_id IS NOT NULL GROUP BY order_id) h ON h.order_id = o.id
     WHERE coalesce(h.held, 0) < 0 OR coalesce(h.held, 0) <> CASE WHEN o.state IN ('open', 'partially_filled') THEN o.reserved_cash_micro + o.reserved_shares_micro ELSE 0 END`,
  );
  for (const o of orders) violations.push(`order ${o.id} (${o.state}): reserves ${o.reserved}, but its pending transfers hold ${o.held}`);
  const strays = await db.query<{ order_id: string }>(
    `SELECT DISTINCT t.order_id FROM transfers t WHERE t.order_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = t.order_id)`,
  );
  for (const x of strays) violations.push(`transfers hold for order ${x.order_id}, which does not exist`);
  // Every trade moved its cash and its shares as transfers of its own (ref: the trade), of the trade's amounts.
  const trades = await db.query<{ id: string; side: string }>(
    `SELECT t.id, t.side FROM trades t
     LEFT JOIN (SELECT ref, sum(amount_micro) FILTER (WHERE asset = 'USD') AS cash, sum(amount_micro) FILTER (WHERE asset <> 'USD') AS shares
                FROM transfers WHERE phase = 'posted' AND kind IN ('buy', 'sell', 'settlement', 'settle') GROUP BY ref) m ON m.ref = t.id::text
     WHERE coalesce(m.cash, 0) <> abs(t.cash_micro) OR coalesce(m.shares, 0) <> t.quantity_micro`,
  );
  for (const x of trades) violations.push(`trade ${x.id} (${x.side}): its transfers do not move its cash and shares`);
  const venue = await db.query<{ moved: bigint | null }>(
    `SELECT (coalesce(sum(amount_micro) FILTER (WHERE credit_account = 'venue'), 0) - coalesce(sum(amount_micro) FILTER (WHERE debit_account = 'venue'), 0))::bigint AS moved
     FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND 'venue' IN (debit_account, credit_account)`,
  );
  return BigInt(venue[0]?.moved ?? 0n);
}
