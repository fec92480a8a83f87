import { describeOnPostgres } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { createCommunityMarket } from '../../support/community';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { fromMicro, toMicro, type Micro } from '../../../src/domain/money/micro';
import type { PriceChange } from '../../../src/domain/trading/price-service';

const ROUNDS = 50;
/** What each round's resting buy leaves available: the community buy and the paper_trade cannot both fit in it. */
const AVAILABLE = toMicro(30);
const LIMIT = 0.5;

/**
 * Round i's two spends. Mostly each fits in the available 30 dollars but both do not (exactly one must win, whichever
 * commits first); every fifth round one of them alone is over it (it must lose whatever the order of commits).
 */
function amounts(i: number): { community: Micro; paper: Micro } {
  if (i % 5 === 3) return { community: toMicro(40), paper: toMicro(20) };
  if (i % 5 === 4) return { community: toMicro(20), paper: toMicro(40) };
  return { community: toMicro(16 + ((i * 7) % 10)), paper: toMicro(16 + ((i * 3) % 10)) };
}

/**
 * How long after the two HTTP calls each round's price change starts, by round. The change goes straight to the order
 * service while each buy is an HTTP request, so with no delay the fill nearly always commits first, and a fill that
 * commits first leaves only plain cash to spend. The later starts let either buy land before it, or between it and the other.
 */
const FILL_DELAYS_MS = [0, 2, 4, 8];

type Outcome = { ok: true } | { ok: false; code: string };

// PGlite runs transactions one at a time, so races only exist on PostgreSQL.
describeOnPostgres('one account racing its resting fill, a community buy and a paper_trade on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  let community: { id: string; yes: string; liquidity: Micro };

  beforeAll(async () => {
    // No market sync on a timer: the only fills are the price changes this test emits.
    t = await startTestApp(backend as never, { prices, background: false });
    m = await seedMarket(t.services.db);
    const created = await createCommunityMarket(t, 'Will the night train be on time all week?', 500);
    community = { id: created.id, yes: created.yes, liquidity: toMicro(500) };
  });
  afterAll(async () => t.close());

  /** The account's cash, what it reserves and what its open buy orders hold, read in one statement (one snapshot). */
  const cashOf = async (userId: string) => {
    const rows = await t.services.db.query<{ balance: bigint; reserved: bigint; held: bigint }>(
      `SELECT c.balance_micro AS balance, c.reserved_micro AS reserved,
              (SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h JOIN orders o ON o.id = h.order_id
                WHERE o.user_id = u.id AND o.side = 'BUY' AND o.state IN ('open', 'partially_filled'))::bigint AS held
       FROM users u JOIN cash_balances c ON c.user_id = u.id WHERE u.id = $1`,
      [userId],
    );
    const r = rows[0]!;
    return { balance: BigInt(r.balance), reserved: BigInt(r.reserved), held: BigInt(r.held) };
  };

  /**
   * Which debits of the account landed since transfer `after` (a trade's price and fee together), in the order they took
   * the account row (each takes it before writing its transfers, so their ids follow that order): a failing round says how it interleaved.
   */
  const commitOrder = async (userId: string, after: bigint, fillSize: Micro) => {
    const rows = await t.services.db.query<{ id: bigint; amount: bigint; market_id: string | null }>(
      `SELECT max(l.id) AS id, sum(l.amount_micro)::bigint AS amount, tr.market_id FROM transfers l LEFT JOIN trades tr ON tr.id::text = l.ref
       WHERE l.debit_account = 'cash:' || $1::text AND l.asset = 'USD' AND l.phase = 'posted' AND l.id > $2
       GROUP BY l.ref, tr.market_id ORDER BY min(l.id)`,
      [userId, after],
    );
    const name = (r: (typeof rows)[number]) => (r.market_id === community.id ? 'community buy' : BigInt(r.amount) === fillSize ? 'fill' : 'paper_trade');
    return { order: rows.map(name), last: rows.reduce((m, r) => (BigInt(r.id) > m ? BigInt(r.id) : m), after) };
  };

  const outcomeOf = (res: { status: number; body: { code?: string } }): Outcome =>
    res.status === 200 ? { ok: true } : { ok: false, code: `${res.status} ${res.body.code}` };

  test(`when a resting buy's fill, a community buy and a paper_trade hit one account at once, ${ROUNDS} times, then available cash never goes negative, no reservation is lost or doubled, and the totals add up`, async () => {
    const a = await registerAgent(t, 'Racer');
    const auth = { Authorization: `Bearer ${a.apiKey}` };
    let lastEntry = 0n;
    const totals = { proceeds: 0n, fills: 0n, community: 0n, paper: 0n, communityWins: 0, paperWins: 0, sells: 0, communitySold: 0n };

    for (let round = 0; round < ROUNDS; round += 1) {
      // Set-up, one step at a time: the ask above the limit, last round's shares sold back (the mirrored ones at the
      // limit, so the cash neither grows nor shrinks round by round), and a resting buy that holds all the cash but AVAILABLE.
      await moveQuote(t.services.db, prices, m.yes, LIMIT, 0.62);
      const held = (await t.api.get('/api/positions').set(auth)).body.positions.filter((p: { isClosed: boolean }) => !p.isClosed);
      for (const p of held as Array<{ id: string; tokenId: string }>) {
        const sold = await t.api.post(`/api/positions/${p.id}/sell`).set(auth).send({});
        if (sold.status !== 200) throw new Error(`round ${round}: selling ${p.id} failed: ${sold.status} ${JSON.stringify(sold.body)}`);
        totals.proceeds += toMicro(sold.body.proceeds);
        if (p.tokenId === community.yes) totals.communitySold += toMicro(sold.body.proceeds);
        totals.sells += 1;
      }
      const start = await cashOf(a.id);
      const size = start.balance - AVAILABLE;
      const placed = await t.api
        .post('/api/orders')
        .set(auth)
        .send({ tokenId: m.yes, side: 'BUY', limitPrice: LIMIT, size: fromMicro(size), timeInForce: 'GTC' });
      expect(placed.body.order).toMatchObject({ state: 'open', reservedCash: fromMicro(size) });
      expect(await cashOf(a.id)).toEqual({ balance: start.balance, reserved: size, held: size });

      // The market sync's write of the new book; its price change is emitted in the race below, as the sync does next.
      await moveQuote(t.services.db, prices, m.yes, 0.48, LIMIT);
      const change: PriceChange = { tokenId: m.yes, bidMicro: toMicro(0.48), askMicro: toMicro(LIMIT), asOf: new Date(), source: 'simulated' };
      const { community: c, paper: p } = amounts(round);
      const [, communityRes, paperRes] = await Promise.all([
        delay(FILL_DELAYS_MS[round % FILL_DELAYS_MS.length]!).then(() => t.services.priceChanges.emit([change])),
        t.api
          .post('/api/user-markets/trade')
          .set(auth)
          .send({ tokenId: community.yes, amount: fromMicro(c) }),
        t.api
          .post('/api/trade')
          .set(auth)
          .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: fromMicro(p) }),
      ]);

      const cb = outcomeOf(communityRes);
      const pt = outcomeOf(paperRes);
      const commits = await commitOrder(a.id, lastEntry, size);
      lastEntry = commits.last;
      const order = (await t.api.get(`/api/orders/${placed.body.order.id}`).set(auth)).body.order;
      const after = await cashOf(a.id);
      const spent = (cb.ok ? c : 0n) + (pt.ok ? p : 0n);
      const problems: string[] = [];
      const at = `round ${round} (community ${fromMicro(c)} ${cb.ok ? 'ok' : cb.code}, paper ${fromMicro(p)} ${pt.ok ? 'ok' : pt.code}; debits in order: ${commits.order.join(', ')})`;
      // Within a round available cash only falls (the fill pays out of its own reservation), so its end is its lowest point.
      if (after.balance - after.reserved < 0n) problems.push(`${at}: available ${fromMicro(after.balance - after.reserved)} < 0`);
      if (after.reserved !== after.held) problems.push(`${at}: reserved ${fromMicro(after.reserved)} but open buy orders hold ${fromMicro(after.held)}`);
      // The fill spends only what its own order reserved, so it always fits.
      if (order.state !== 'filled' || order.reservedCash !== 0 || toMicro(order.filledCash) !== size)
        problems.push(`${at}: the resting order is ${order.state}, filled ${order.filledCash} of ${fromMicro(size)}, still reserving ${order.reservedCash}`);
      // Whatever order they committed in: together they never spend more than was available, and one is refused only when it no longer fit.
      if (spent > AVAILABLE) problems.push(`${at}: spent ${fromMicro(spent)} of ${fromMicro(AVAILABLE)} available`);
      for (const [name, x, amount, other] of [
        ['community buy', cb, c, pt.ok ? p : 0n],
        ['paper_trade', pt, p, cb.ok ? c : 0n],
      ] as const) {
        if (!x.ok && x.code !== '400 INSUFFICIENT_BALANCE') problems.push(`${at}: the ${name} answered ${x.code}`);
        if (!x.ok && amount <= AVAILABLE - other) problems.push(`${at}: the ${name} was refused though it fit`);
      }
      if (after.balance !== start.balance - size - spent)
        problems.push(`${at}: balance ${fromMicro(after.balance)}, expected ${fromMicro(start.balance - size - spent)}`);
      for (const v of (await auditLedger(t.services.db)).violations) problems.push(`${at}: audit: ${v}`);
      expect(problems).toEqual([]);

      totals.fills += size;
      if (cb.ok) {
        totals.community += c;
        totals.communityWins += 1;
      }
      if (pt.ok) {
        totals.paper += p;
        totals.paperWins += 1;
      }
    }

    // The totals: the account's cash is its grant plus what it sold minus what it bought, to the micro-dollar, and
    // the ledger, the trade journal, the orders and the pool each say the same.
    const cash = await cashOf(a.id);
    const expected = toMicro(1000) + totals.proceeds - totals.fills - totals.community - totals.paper;
    expect(cash).toEqual({ balance: expected, reserved: 0n, held: 0n });
    const [ledger] = await t.services.db.query<{ sum: bigint }>(
      `SELECT sum(CASE WHEN credit_account = 'cash:' || $1::text THEN amount_micro ELSE -amount_micro END)::bigint AS sum FROM transfers
       WHERE asset = 'USD' AND phase = 'posted' AND ('cash:' || $1::text) IN (debit_account, credit_account)`,
      [a.id],
    );
    expect(BigInt(ledger!.sum)).toBe(expected);
    const journal = await t.services.db.query<{ side: string; n: bigint; cash: bigint }>(
      'SELECT side, count(*) AS n, sum(cash_micro)::bigint AS cash FROM trades WHERE user_id = $1 GROUP BY side ORDER BY side',
      [a.id],
    );
    expect(journal.map((j) => ({ side: j.side, n: Number(j.n), cash: BigInt(j.cash) }))).toEqual([
      { side: 'BUY', n: ROUNDS + totals.communityWins + totals.paperWins, cash: -(totals.fills + totals.community + totals.paper) },
      { side: 'SELL', n: totals.sells, cash: totals.proceeds },
    ]);
    const [orders] = await t.services.db.query<{ n: bigint; filled: bigint; reserved: bigint }>(
      `SELECT count(*) AS n, sum(filled_cash_micro)::bigint AS filled,
              sum((SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h WHERE h.order_id = o.id))::bigint AS reserved
       FROM orders o WHERE user_id = $1 AND state = 'filled'`,
      [a.id],
    );
    expect({ n: Number(orders!.n), filled: BigInt(orders!.filled), reserved: BigInt(orders!.reserved) }).toEqual({
      n: ROUNDS,
      filled: totals.fills,
      reserved: 0n,
    });
    const [pool] = await t.services.db.query<{ cash: bigint }>('SELECT cash_micro AS cash FROM pool_balances WHERE market_id = $1', [community.id]);
    expect(BigInt(pool!.cash)).toBe(community.liquidity + totals.community - totals.communitySold);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  }, 240_000);
});

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
