import type { Queryable } from '../../db/database';
import { ALL_CASH_MOVES } from '../ledger/transfers';

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
 * - every account has its cash row (cash_balances, the ledger's), and each balance is never negative (and equals its
 *   transfers: auditTransfers);
 * - each position's quantity = bought − sold − settled, matching its trade journal;
 * - cash conservation: all balances = grants + rewards − buys + sells + settlements, with every trade's cash transfer
 *   (price, fee, settlement) belonging to a trade;
 * - community market pools (auditPools): each pool's cash is its funding minus what it returned plus
 *   what its market's trades paid in and out; each outcome's shares equal the open positions in it; an
 *   unsettled pool can pay every share of any one outcome; and money is conserved with pools counted;
 * - reservations (auditReservations): an account's reserved cash and a position's reserved shares are never negative
 *   nor above the cash or shares there are (so reserved + available = cash with available >= 0);
 * - transfers (auditTransfers): every maintained balance — an account's cash and reserved cash, a position's shares and
 *   reserved shares, a pool's cash — equals the sum of its account's transfers; what an order holds (the ledger's
 *   answer, the only one) is never negative, nothing once the order is no longer open, and exactly the reservation of
 *   its unfilled size while it is; every trade's cash (its price and its fee) and shares moved as transfers of its own.
 */
export async function auditLedger(db: Queryable): Promise<AuditReport> {
  const violations: string[] = [];
  const missing = await db.query<{ id: string }>('SELECT u.id FROM users u WHERE NOT EXISTS (SELECT 1 FROM cash_balances c WHERE c.user_id = u.id)');
  for (const m of missing) violations.push(`account ${m.id}: has no cash row`);
  const balances = await db.query<{ id: string; balance_micro: bigint }>('SELECT user_id AS id, balance_micro FROM cash_balances WHERE balance_micro < 0');
  for (const b of balances) violations.push(`account ${b.id}: balance ${b.balance_micro} is negative`);

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

  // A trade's cash transfers (kind buy, sell, settlement or fee) each belong to a trade (their ref).
  const unmatched = await db.query<{ ref: string; kind: string }>(
    `SELECT DISTINCT m.ref, m.kind FROM transfers m LEFT JOIN trades t ON t.id::text = m.ref
     WHERE m.asset = 'USD' AND m.phase = 'posted' AND m.kind IN ('buy', 'sell', 'settlement', 'fee') AND t.id IS NULL`,
  );
  for (const u of unmatched) violations.push(`${u.kind} transfer ${u.ref} has no matching trade`);

  const totals = await db.query<{ balances: bigint | null; ledger: bigint | null; flows: bigint | null }>(
    `WITH c AS (${ALL_CASH_MOVES})
     SELECT (SELECT sum(balance_micro) FROM cash_balances)::bigint AS balances,
            (SELECT sum(amount_micro) FROM c)::bigint AS ledger,
            ((SELECT coalesce(sum(amount_micro), 0) FROM c WHERE kind NOT IN ('buy', 'sell', 'settlement', 'fee'))
             + (SELECT coalesce(sum(cash_micro), 0) FROM trades))::bigint AS flows`,
  );
  const t = totals[0]!;
  if ((t.balances ?? 0n) !== (t.ledger ?? 0n) || (t.ledger ?? 0n) !== (t.flows ?? 0n)) {
    violations.push(`cash conservation: balances ${t.balances ?? 0n}, transfers ${t.ledger ?? 0n}, grants + trade cash ${t.flows ?? 0n}`);
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
     LEFT JOIN (SELECT ref, sum(amount_micro) AS funded FROM transfers WHERE kind = 'pool_fund' AND phase = 'posted' GROUP BY ref) f ON f.ref = p.market_id::text
     LEFT JOIN (SELECT ref, sum(amount_micro) AS returned FROM transfers WHERE kind = 'pool_return' AND phase = 'posted' GROUP BY ref) r ON r.ref = p.market_id::text
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
    `WITH c AS (${ALL_CASH_MOVES})
     SELECT ((SELECT coalesce(sum(balance_micro), 0) FROM cash_balances) + (SELECT coalesce(sum(cash_micro), 0) FROM pool_balances))::bigint AS held,
            ((SELECT coalesce(sum(amount_micro), 0) FROM c WHERE kind NOT IN ('buy', 'sell', 'settlement', 'fee', 'pool_fund', 'pool_return'))
             + (SELECT coalesce(sum(t.cash_micro), 0) FROM trades t WHERE NOT EXISTS (SELECT 1 FROM community_pools p WHERE p.market_id::text = t.market_id)))::bigint AS sources`,
  );
  const m = money[0]!;
  if ((m.held ?? 0n) !== (m.sources ?? 0n)) violations.push(`cash conservation with pools: accounts + pools ${m.held ?? 0n}, sources ${m.sources ?? 0n}`);
}

async function auditReservations(db: Queryable, violations: string[]): Promise<void> {
  const cash = await db.query<{ id: string; reserved_micro: bigint; balance_micro: bigint }>(
    'SELECT user_id AS id, reserved_micro, balance_micro FROM cash_balances WHERE reserved_micro < 0 OR reserved_micro > balance_micro',
  );
  for (const c of cash) violations.push(`account ${c.id}: reserved ${c.reserved_micro} of balance ${c.balance_micro}`);
  const shares = await db.query<{ id: string; reserved_micro: bigint; quantity_micro: bigint }>(
    'SELECT id, reserved_micro, quantity_micro FROM positions WHERE reserved_micro < 0 OR reserved_micro > quantity_micro',
  );
  for (const x of shares) violations.push(`position ${x.id}: reserved ${x.reserved_micro} of ${x.quantity_micro} shares`);
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
    `WITH s AS (${SUMS}) SELECT c.user_id AS id, c.balance_micro, c.reserved_micro, coalesce(s.moved, 0)::bigint AS moved, coalesce(s.held, 0)::bigint AS held
     FROM cash_balances c LEFT JOIN s ON s.account = 'cash:' || c.user_id AND s.asset = 'USD'
     WHERE c.balance_micro <> coalesce(s.moved, 0) OR c.reserved_micro <> coalesce(s.held, 0)`,
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
  // What an order holds: its pending transfers less what fills posted and releases voided of them — nothing once it is
  // no longer open, and while it is, the reservation of its unfilled size (a SELL: its shares; a BUY by amount: its
  // dollars; a BUY in shares: unfilled shares × limit rounded up, order-rules sharesCostCeiling). And it holds from the
  // right account: a BUY its owner's cash, a SELL its position.
  const orders = await db.query<{ id: string; state: string; owed: bigint; held: bigint; own: boolean }>(
    `SELECT o.id, o.state, x.owed, coalesce(h.held, 0)::bigint AS held, coalesce(h.own, true) AS own FROM orders o
     LEFT JOIN (SELECT order_id, sum(CASE WHEN phase = 'pending' THEN amount_micro ELSE -amount_micro END) AS held,
                       bool_and(debit_account = (CASE WHEN asset = 'USD' THEN 'cash:' ELSE 'position:' END || account_owner)) AS own
                FROM (SELECT t.*, CASE WHEN t.asset = 'USD' THEN o2.user_id::text ELSE o2.position_id::text END AS account_owner
                      FROM transfers t JOIN orders o2 ON o2.id = t.order_id) tt
                GROUP BY order_id) h ON h.order_id = o.id
     CROSS JOIN LATERAL (SELECT CASE WHEN o.state NOT IN ('open', 'partially_filled') THEN 0
                                     WHEN o.side = 'SELL' OR o.sized_by = 'amount' THEN o.size_micro - o.filled_size_micro
                                     ELSE ceil((o.size_micro - o.filled_size_micro)::numeric * o.limit_price_micro / 1000000)::bigint END AS owed) x
     WHERE coalesce(h.held, 0) <> x.owed OR NOT coalesce(h.own, true)`,
  );
  for (const o of orders) {
    if (BigInt(o.held) !== BigInt(o.owed))
      violations.push(`order ${o.id} (${o.state}): its transfers hold ${o.held}, but its unfilled size reserves ${o.owed}`);
    if (!o.own) violations.push(`order ${o.id} (${o.state}): its transfers hold from an account not its owner's`);
  }
  const strays = await db.query<{ order_id: string }>(
    `SELECT DISTINCT t.order_id FROM transfers t WHERE t.order_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = t.order_id)`,
  );
  for (const x of strays) violations.push(`transfers hold for order ${x.order_id}, which does not exist`);
  // Every trade moved its cash (its price, and its fee as a transfer of its own to the venue) and its shares as transfers
  // of its own (ref: the trade), of the trade's amounts: the net into the trader's cash account is the trade's cash.
  const trades = await db.query<{ id: string; side: string }>(
    `SELECT t.id, t.side FROM trades t
     LEFT JOIN (SELECT ref,
                       sum(CASE WHEN credit_account LIKE 'cash:%' THEN amount_micro WHEN debit_account LIKE 'cash:%' THEN -amount_micro ELSE 0 END)
                         FILTER (WHERE asset = 'USD') AS cash,
                       sum(amount_micro) FILTER (WHERE asset = 'USD' AND kind = 'fee') AS fee,
                       sum(amount_micro) FILTER (WHERE asset <> 'USD') AS shares
                FROM transfers WHERE phase = 'posted' AND kind IN ('buy', 'sell', 'settlement', 'settle', 'fee') GROUP BY ref) m ON m.ref = t.id::text
     WHERE coalesce(m.cash, 0) <> t.cash_micro OR coalesce(m.fee, 0) <> t.fee_micro OR coalesce(m.shares, 0) <> t.quantity_micro`,
  );
  for (const x of trades) violations.push(`trade ${x.id} (${x.side}): its transfers do not move its cash, fee and shares`);
  const venue = await db.query<{ moved: bigint | null }>(
    `SELECT (coalesce(sum(amount_micro) FILTER (WHERE credit_account = 'venue'), 0) - coalesce(sum(amount_micro) FILTER (WHERE debit_account = 'venue'), 0))::bigint AS moved
     FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND 'venue' IN (debit_account, credit_account)`,
  );
  return BigInt(venue[0]?.moved ?? 0n);
}
