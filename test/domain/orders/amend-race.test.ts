import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { fromMicro, toMicro, type Micro } from '../../../src/domain/money/micro';
import { buyReservation, type SizedBy } from '../../../src/domain/orders/order-rules';
import type { Quote } from '../../../src/domain/orders/order-rows';

const LIMIT = 0.5;

/** Round i's order and its amend: by amount or by shares, the amend growing or shrinking it, some rounds lowering its limit too. */
function roundOf(i: number): { sizedBy: SizedBy; size: number; amend: { size: number; limitPrice?: number } } {
  const sizedBy: SizedBy = i % 2 === 0 ? 'amount' : 'shares';
  const size = sizedBy === 'amount' ? 20 : 40;
  const factor = [0.5, 1.5, 0.75, 2][Math.floor(i / 2) % 4]!;
  return { sizedBy, size, amend: { size: size * factor, ...(i % 5 === 4 ? { limitPrice: 0.49 } : {}) } };
}

/** When the fill and the cancel start after the amend, by round (ms): spread so the fill lands before, inside or after the amend's transaction. */
const FILL_DELAYS_MS = [0, 1, 2, 3, 5];
const CANCEL_DELAYS_MS = [null, 2, 6, null, 4, 1];

// On PGlite the three run one after the other (one connection); on PostgreSQL they truly race.
describe.each(backends())('an amend racing a fill and a cancel of one order on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  const rounds = backend.name === 'postgres' ? 60 : 12;

  beforeAll(async () => {
    // No market sync on a timer: the only fills are the ones this test starts.
    t = await startTestApp(backend as never, { prices, background: false });
    m = await seedMarket(t.services.db);
  });
  afterAll(async () => t.close());

  /** Per order of the account: its state, terms and what the ledger says it holds; and the account's reserved cash — one statement, one snapshot. */
  const ledgerOf = async (userId: string) => {
    const rows = await t.services.db.query<{
      id: string;
      state: string;
      sized_by: SizedBy;
      size: bigint;
      filled: bigint;
      limit_micro: bigint;
      held: bigint;
      reserved: bigint;
      balance: bigint;
    }>(
      `SELECT o.id, o.state, o.sized_by, o.size_micro AS size, o.filled_size_micro AS filled, o.limit_price_micro AS limit_micro,
              (SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h WHERE h.order_id = o.id)::bigint AS held,
              c.reserved_micro AS reserved, c.balance_micro AS balance
       FROM orders o JOIN cash_balances c ON c.user_id = o.user_id WHERE o.user_id = $1 ORDER BY o.created_at`,
      [userId],
    );
    return rows.map((r) => ({
      ...r,
      size: BigInt(r.size),
      filled: BigInt(r.filled),
      limit_micro: BigInt(r.limit_micro),
      held: BigInt(r.held),
      reserved: BigInt(r.reserved),
      balance: BigInt(r.balance),
    }));
  };

  test(`when an amend, a resting fill and a cancel of one buy order race, ${rounds} times, then what the order holds is never negative, is nothing once it ends, is exactly its unfilled rest's reservation while open, and the account reserves what its orders hold`, async () => {
    const a = await registerAgent(t, 'Amender');
    const { orders } = t.services;
    const problems: string[] = [];
    const outcomes = { fills: 0, amends: 0, cancels: 0 };
    for (let i = 0; i < rounds; i += 1) {
      // The book the amend plans against (its live quote) stays above the limit; the fill's crosses it.
      await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
      const r = roundOf(i);
      const o = await orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: LIMIT, size: r.size, sizedBy: r.sizedBy, timeInForce: 'GTC' }, new Date());
      // Half the rounds a book that fills part of the order, a new one each round (so nothing was taken from it yet).
      const quote: Quote = {
        bidMicro: toMicro(0.48),
        askMicro: toMicro(LIMIT),
        asOf: new Date(),
        ...(i % 4 < 2
          ? {
              depth: {
                bids: [{ priceMicro: toMicro(0.48), sizeMicro: toMicro(50) }],
                asks: [{ priceMicro: toMicro(LIMIT), sizeMicro: toMicro(12 + i / 1000) }],
              },
            }
          : {}),
      };
      const cancelAfter = CANCEL_DELAYS_MS[i % CANCEL_DELAYS_MS.length]!;
      const [amended, filled, cancelled] = await Promise.allSettled([
        orders.replace(a.id, o.id, r.amend, new Date()),
        delay(FILL_DELAYS_MS[i % FILL_DELAYS_MS.length]!).then(() => orders.fillResting(o.id, new Date(), quote)),
        cancelAfter === null ? Promise.resolve(null) : delay(cancelAfter).then(() => orders.cancel(a.id, o.id, new Date())),
      ]);
      const at = `round ${i} (${r.sizedBy} ${r.size} → ${JSON.stringify(r.amend)}; amend ${amended.status}, fill ${filled.status === 'fulfilled' ? filled.value : filled.reason}, cancel ${cancelled.status})`;
      if (filled.status === 'rejected') problems.push(`${at}: the fill threw ${String(filled.reason)}`);
      for (const [what, x] of [
        ['amend', amended],
        ['cancel', cancelled],
      ] as const)
        if (x.status === 'rejected' && (x.reason as { code?: string }).code !== 'CONFLICT') problems.push(`${at}: the ${what} threw ${String(x.reason)}`);
      if (filled.status === 'fulfilled' && filled.value) outcomes.fills += 1;
      if (amended.status === 'fulfilled') outcomes.amends += 1;
      if (cancelled.status === 'fulfilled' && cancelled.value) outcomes.cancels += 1;

      await orders.cancelAll(a.id, new Date());
      // Every order of the account, this round's and the earlier ones, all now ended: conservation, order by order.
      const rows = await ledgerOf(a.id);
      for (const row of rows) {
        if (row.held < 0n) problems.push(`${at}: order ${row.id} (${row.state}) holds ${fromMicro(row.held)} < 0`);
        else if (!['open', 'partially_filled'].includes(row.state) && row.held !== 0n)
          problems.push(`${at}: order ${row.id} is ${row.state} but still holds ${fromMicro(row.held)}`);
      }
      const reserved = rows[0]?.reserved ?? 0n;
      const open = rows.filter((row) => ['open', 'partially_filled'].includes(row.state));
      const heldOpen = open.reduce((s, row) => s + row.held, 0n);
      if (reserved !== heldOpen) problems.push(`${at}: the account reserves ${fromMicro(reserved)} but its open orders hold ${fromMicro(heldOpen)}`);
      expect(problems).toEqual([]);
    }
    // And while open: an order rests holding exactly its unfilled rest's reservation, whatever raced before.
    await checkOpenReservations(a.id, problems);
    expect(problems).toEqual([]);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    // Every kind of outcome happened (the races were real races, not one path every time).
    expect(outcomes.fills).toBeGreaterThan(0);
    expect(outcomes.amends).toBeGreaterThan(0);
  }, 240_000);

  /** Rests, amends, fills part of and amends again a few orders, then checks each open one holds its rest's reservation. */
  async function checkOpenReservations(userId: string, problems: string[]): Promise<void> {
    const { orders } = t.services;
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
    for (let i = 0; i < 4; i += 1) {
      const r = roundOf(i);
      const o = await orders.place(
        userId,
        { tokenId: m.yes, side: 'BUY', limitPrice: LIMIT, size: r.size, sizedBy: r.sizedBy, timeInForce: 'GTC' },
        new Date(),
      );
      const quote: Quote = {
        bidMicro: toMicro(0.48),
        askMicro: toMicro(LIMIT),
        asOf: new Date(),
        depth: {
          bids: [{ priceMicro: toMicro(0.48), sizeMicro: toMicro(50) }],
          asks: [{ priceMicro: toMicro(LIMIT), sizeMicro: toMicro(5 + i / 1000 + 0.5) }],
        },
      };
      await Promise.allSettled([orders.replace(userId, o.id, r.amend, new Date()), delay(i).then(() => orders.fillResting(o.id, new Date(), quote))]);
    }
    for (const row of await ledgerOf(userId)) {
      if (!['open', 'partially_filled'].includes(row.state)) continue;
      const want: Micro = buyReservation(row.sized_by, row.size - row.filled, row.limit_micro);
      if (row.held !== want) problems.push(`open order ${row.id} holds ${fromMicro(row.held)}, its unfilled rest reserves ${fromMicro(want)}`);
    }
    await orders.cancelAll(userId, new Date());
  }
});

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
