import fc from 'fast-check';
import { backends, type Backend } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock, sessionCookieOf } from '../../support/identity';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { challengeAt, challengeForDay } from '../../../src/domain/track-record/challenges';
import { fromMicro, toMicro } from '../../../src/domain/money/micro';
import { LIQUIDITY_MIN } from '../../../src/domain/community/community-market-service';

/**
 * Every operation that moves cash or shares, interleaved at random over two or three accounts (a referral adds a
 * fourth), three mirrored markets at prices the test sets, and the community markets the accounts fund. Calls go
 * through the public surface (REST, as a signed-in person: community markets and challenges need a browser
 * session); what no call does (a price change reaching resting orders, the clock passing, a mirrored market
 * resolving and settling) goes through the services the market sync drives. After every step: no account's
 * available cash below zero, no reservation above what it reserves from, the ledger audit green, and a refused call
 * changed nothing at all.
 */

type Tif = 'GTC' | 'GTD' | 'IOC' | 'FOK';
type Op =
  | { kind: 'paper_trade'; who: number; market: number; side: 0 | 1; spend: number }
  | { kind: 'sell_position'; who: number; pick: number; fraction: number | null }
  | {
      kind: 'place_order';
      who: number;
      market: number;
      side: 0 | 1;
      order: 'BUY' | 'SELL';
      offset: number;
      spend: number;
      fraction: number;
      tif: Tif;
      ttlS: number;
      /** A BUY sized by shares (spend ÷ limit of them) rather than by dollars; absent in the shrunk fixtures: by dollars. */
      byShares?: boolean;
    }
  | { kind: 'cancel_order'; who: number; pick: number }
  | { kind: 'price'; market: number; side: 0 | 1; move: number; spread: number; via: 'sync' | 'change'; depth: number | null }
  | { kind: 'time'; s: number }
  | { kind: 'buy_community_shares'; who: number; market: number; outcome: number; spend: number; maxAveragePrice: number | null }
  | { kind: 'sell_community_shares'; who: number; pick: number; fraction: number | null; minAveragePrice: number | null }
  | { kind: 'create_community_market'; who: number; spend: number; outcomes: number }
  | { kind: 'resolve_community_market'; who: number; market: number; outcome: number }
  | { kind: 'settle'; market: number; winner: 'YES' | 'NO' | 'VOID'; sweep: 'orders first' | 'settlement only' }
  | { kind: 'claim_challenge'; who: number }
  | { kind: 'referral'; who: number; code: 'valid' | 'unknown' }
  | { kind: 'delete_account'; who: number; password: 'right' | 'wrong' };

const PASSWORD = 'password123';
/**
 * Runs per backend (MONEY_PROPERTY_RUNS for a longer search), and the time after which the search stops where it is: 12
 * runs and 40 seconds keep CI well under its 30 minutes; the named regressions below run whatever the budget.
 */
const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);
const TIME_LIMIT_MS = Number(process.env.MONEY_PROPERTY_RUNS ? 600_000 : 40_000);

/** A UTC day whose daily challenge is "3 trades", so the claims in a run can succeed as well as be refused. */
const DAY = (() => {
  for (let d = Date.parse('2026-12-01T00:00:00Z'); ; d += 86_400_000) {
    const day = new Date(d).toISOString().slice(0, 10);
    if (challengeForDay(day).type === 'trade_count') return day;
  }
})();
const START = Date.parse(`${DAY}T06:00:00Z`);

const who = fc.nat({ max: 3 });
const cents = (lo: number, hi: number) => fc.integer({ min: lo, max: hi }).map((n) => n / 100);
/**
 * Dollars to spend, as a share of the account's whole balance (0.001 to 1.1): around what resting buys leave
 * available and what the account holds, where the checks of a debit are, whatever the account's history.
 */
const spend = fc.integer({ min: 1, max: 1100 }).map((n) => n / 1000);
/** Mostly absent: a limit on a community trade's average price refuses it before anything else is checked. */
const averageLimit = fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: cents(1, 100) });
const side = fc.constantFrom(0 as const, 1 as const);
/** A share of a holding: up to a quarter over it, so some sales and sell orders ask for more than is there. */
const fraction = fc.integer({ min: 1, max: 125 }).map((n) => n / 100);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('paper_trade' as const), who, market: fc.nat({ max: 2 }), side, spend }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('sell_position' as const), who, pick: fc.nat({ max: 7 }), fraction: fc.option(fraction, { nil: null }) }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place_order' as const),
      who,
      market: fc.nat({ max: 2 }),
      side,
      order: fc.constantFrom('BUY' as const, 'SELL' as const),
      // The limit, in cents from the token's quote (its ask for a buy, its bid for a sale): most cross or rest near it.
      offset: fc.integer({ min: -10, max: 10 }),
      spend,
      fraction,
      // Mostly orders that may rest (and reserve); each time in force often enough.
      tif: fc.oneof(
        { weight: 3, arbitrary: fc.constant<Tif>('GTC') },
        { weight: 2, arbitrary: fc.constant<Tif>('GTD') },
        { weight: 1, arbitrary: fc.constantFrom<Tif>('IOC', 'FOK') },
      ),
      ttlS: fc.integer({ min: 1, max: 120 }),
      byShares: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel_order' as const), who, pick: fc.nat({ max: 7 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('price' as const),
      market: fc.nat({ max: 2 }),
      side,
      // The bid moves this many cents (within 0.01..0.97); the ask is `spread` above it.
      move: fc.integer({ min: -10, max: 10 }),
      spread: cents(0, 2),
      // The sync's sweep over every mirrored price, or one price change as the feed reports it (with a book of `depth` shares a side).
      via: fc.constantFrom('sync' as const, 'change' as const),
      depth: fc.option(fc.integer({ min: 1, max: 2000 }), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('time' as const), s: fc.integer({ min: 1, max: 150 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('buy_community_shares' as const),
      who,
      market: fc.nat({ max: 3 }),
      outcome: fc.nat({ max: 2 }),
      spend,
      maxAveragePrice: averageLimit,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('sell_community_shares' as const),
      who,
      pick: fc.nat({ max: 7 }),
      fraction: fc.option(fraction, { nil: null }),
      minAveragePrice: averageLimit,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('create_community_market' as const),
      who,
      spend,
      outcomes: fc.integer({ min: 2, max: 3 }),
    }),
  },
  {
    weight: 1,
    // The person resolves a market of their own when they have one (else another's: refused); an outcome past its labels is VOID.
    arbitrary: fc.record({ kind: fc.constant('resolve_community_market' as const), who, market: fc.nat({ max: 3 }), outcome: fc.nat({ max: 3 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      market: fc.nat({ max: 2 }),
      winner: fc.constantFrom('YES' as const, 'NO' as const, 'VOID' as const),
      // 'orders first' is the sync's order (src/start.ts); 'settlement only' is resolveMarket + settlement.runOnce alone,
      // the market's resting orders swept by a later sync.
      sweep: fc.constantFrom('orders first' as const, 'settlement only' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('claim_challenge' as const), who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('referral' as const), who, code: fc.constantFrom('valid' as const, 'unknown' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete_account' as const), who, password: fc.constantFrom('right' as const, 'wrong' as const) }) },
);

interface Person {
  id: string;
  cookie: string;
  referralCode: string;
  deleted: boolean;
}

interface Community {
  id: string;
  creatorId: string;
  labels: string[];
  tokens: string[];
}

/** What a step did: a call's HTTP answer, or nothing to judge (no call: a price change, the clock, a settlement, or nothing to act on). */
type Outcome = { call: true; status: number; body: Record<string, unknown> } | { call: false };

/**
 * The account tables a refused call must leave exactly as they were: every row of the run's accounts, positions,
 * orders, pools and pool outcomes ($1 the run's account ids, $2 its community markets), and how many rows each table
 * has in all, with the ledger's sum (earlier runs' rows are still there and must not move either).
 */
const SNAPSHOT = `SELECT
  (SELECT count(*) || ' | ' || coalesce(string_agg(user_id || ' ' || balance_micro || ' ' || reserved_micro, '; ' ORDER BY user_id) FILTER (WHERE user_id = ANY($1::uuid[])), '')
     FROM cash_balances) AS cash,
  (SELECT count(*) || ' | ' || coalesce(string_agg(p::text, '; ' ORDER BY p.id) FILTER (WHERE p.user_id = ANY($1::uuid[])), '') FROM positions p) AS positions,
  (SELECT count(*) || ' | ' || coalesce(string_agg(o::text, '; ' ORDER BY o.id) FILTER (WHERE o.user_id = ANY($1::uuid[])), '') FROM orders o) AS orders,
  (SELECT count(*) || ' transfers, sum ' || coalesce(sum(amount_micro), 0) FROM transfers) AS ledger,
  (SELECT count(*)::text FROM trades) AS trades,
  (SELECT count(*) || ' | ' || coalesce(string_agg(c::text, '; ' ORDER BY c.market_id) FILTER (WHERE c.market_id = ANY($2::uuid[])), '') FROM community_pools c) AS pools,
  (SELECT count(*) || ' | ' || coalesce(string_agg(b::text, '; ' ORDER BY b.market_id) FILTER (WHERE b.market_id = ANY($2::uuid[])), '') FROM pool_balances b) AS pool_cash,
  (SELECT count(*) || ' | ' || coalesce(string_agg(c::text, '; ' ORDER BY c.token_id) FILTER (WHERE c.market_id = ANY($2::uuid[])), '') FROM community_outcomes c)
     AS outcomes`;

/** What each order holds by the ledger: its pending transfers less what was posted or voided of them. */
const HELD = `(SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h WHERE h.order_id = o.id)`;

/** Per account and asset, from the transfers alone: posted credits − debits (moved), and what pending transfers still hold. */
const LEGS = `SELECT account, asset, sum(moved)::bigint AS moved, sum(held)::bigint AS held FROM (
    SELECT credit_account AS account, asset, CASE WHEN phase = 'posted' THEN amount_micro ELSE 0 END AS moved, 0 AS held FROM transfers
    UNION ALL
    SELECT debit_account, asset, CASE WHEN phase = 'posted' THEN -amount_micro ELSE 0 END,
           CASE phase WHEN 'pending' THEN amount_micro WHEN 'posted' THEN 0 ELSE -amount_micro END FROM transfers) l
  GROUP BY account, asset`;

/**
 * Cash and shares, computed here from the tables (the audit's rules, independently): available cash never below zero,
 * no reservation negative or above what it is taken from; every transfer moves a positive amount from one account to
 * another (its debit is its credit); every maintained balance — an account's cash and reserved cash, a position's shares
 * and reserved shares, a pool's cash — is the sum of its account's transfers; an order holds nothing once it ended,
 * never a negative amount, and a BUY by shares holds ceil(unfilled × limit).
 */
const BROKEN = `SELECT 'account ' || user_id || ': balance ' || balance_micro || ', reserved ' || reserved_micro || ', available ' || (balance_micro - reserved_micro) AS v
  FROM cash_balances WHERE reserved_micro < 0 OR reserved_micro > balance_micro OR balance_micro - reserved_micro < 0
  UNION ALL
  SELECT 'position ' || id || ': holds ' || quantity_micro || ' shares, reserves ' || reserved_micro
  FROM positions WHERE reserved_micro < 0 OR reserved_micro > quantity_micro
  UNION ALL
  SELECT 'transfer ' || id || ': ' || amount_micro || ' from ' || debit_account || ' to ' || credit_account
  FROM transfers WHERE amount_micro <= 0 OR debit_account = credit_account
  UNION ALL
  SELECT 'account ' || c.user_id || ': cash ' || c.balance_micro || ' reserved ' || c.reserved_micro || ', its transfers ' || coalesce(l.moved, 0) || ' held ' || coalesce(l.held, 0)
  FROM cash_balances c LEFT JOIN (${LEGS}) l ON l.account = 'cash:' || c.user_id AND l.asset = 'USD'
  WHERE c.balance_micro <> coalesce(l.moved, 0) OR c.reserved_micro <> coalesce(l.held, 0)
  UNION ALL
  SELECT 'position ' || p.id || ': ' || p.quantity_micro || ' shares reserved ' || p.reserved_micro || ', its transfers ' || coalesce(l.moved, 0) || ' held ' || coalesce(l.held, 0)
  FROM positions p LEFT JOIN (${LEGS}) l ON l.account = 'position:' || p.id AND l.asset = p.token_id
  WHERE p.quantity_micro <> coalesce(l.moved, 0) OR p.reserved_micro <> coalesce(l.held, 0)
  UNION ALL
  SELECT 'pool ' || c.market_id || ': cash ' || coalesce(b.cash_micro, 0) || ', its transfers ' || coalesce(l.moved, 0)
  FROM community_pools c LEFT JOIN pool_balances b ON b.market_id = c.market_id
  LEFT JOIN (${LEGS}) l ON l.account = 'pool:' || c.market_id AND l.asset = 'USD'
  WHERE coalesce(b.cash_micro, 0) <> coalesce(l.moved, 0)
  UNION ALL
  SELECT 'order ' || o.id || ' (' || o.state || '): its transfers hold ' || ${HELD}
  FROM orders o WHERE ${HELD} < 0 OR (o.state NOT IN ('open', 'partially_filled') AND ${HELD} <> 0)
  UNION ALL
  SELECT 'order ' || id || ': a BUY of ' || size_micro || ' shares (' || filled_size_micro || ' filled) at ' || limit_price_micro
      || ' holds ' || ${HELD} || ', not ceil(unfilled × limit)'
  FROM orders o WHERE side = 'BUY' AND sized_by = 'shares' AND state IN ('open', 'partially_filled')
    AND ${HELD} <> ((size_micro - filled_size_micro) * limit_price_micro + 999999) / 1000000`;

const refused = (o: Outcome) => o.call && ((o.status >= 400 && o.status < 500) || (o.status === 503 && o.body.code === 'PRICE_UNAVAILABLE'));
const show = (op: Op) => JSON.stringify(op);

/** One backend's app, with the prices and clock the test moves; `dirty` while a run has not passed (its books may be broken). */
interface Lab {
  t: TestApp;
  prices: ControlledPrices;
  clock: ManualClock;
  dirty: boolean;
}

let registered = 0;

/** One run: its accounts and markets, and the steps applied to them. */
class MoneyRun {
  readonly people: Person[] = [];
  readonly markets: SeededMarket[] = [];
  readonly communities: Community[] = [];
  /** Every account registered in this run (the house and referred accounts beyond the four traders too). */
  private readonly accounts: string[] = [];
  private readonly t: TestApp;
  private readonly prices: ControlledPrices;
  private readonly clock: ManualClock;

  constructor(private readonly lab: Lab) {
    this.t = lab.t;
    this.prices = lab.prices;
    this.clock = lab.clock;
  }

  /**
   * The clock at START, three mirrored markets, `accounts` people and a house person whose community market is there
   * from the start. The markets of earlier runs are closed first (their resting orders cancelled, as the sync does),
   * so nothing of theirs moves during this one; after a run that failed, the tables are emptied instead, so books it
   * broke cannot fail the next run, nor a shrink.
   */
  async begin(accounts: number): Promise<void> {
    const { db, orders } = this.t.services;
    this.clock.advance(START - this.clock.now().getTime());
    if (this.lab.dirty) await db.query('TRUNCATE users, markets CASCADE');
    else {
      await db.query(`UPDATE markets SET status = 'closed' WHERE status = 'active'`);
      await orders.cancelClosedMarkets(this.clock.now());
    }
    this.lab.dirty = true;
    for (let i = 0; i < 3; i += 1) {
      const m = await seedMarket(db, { question: `Will money property market ${i} resolve YES?` });
      this.markets.push(m);
      await moveQuote(db, this.prices, m.yes, 0.5, 0.52, this.clock.now());
      await moveQuote(db, this.prices, m.no, 0.47, 0.49, this.clock.now());
    }
    // scrypt dominates a registration: the accounts register at once.
    const [house, ...traders] = await Promise.all(Array.from({ length: accounts + 1 }, () => this.registration()));
    for (const res of [house!, ...traders]) if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
    for (const res of traders) this.join(res);
    const opened = await this.createCommunity(this.personOf(house!), 300, 3);
    if (!opened.call || opened.status !== 200) throw new Error(`the house market was not created: ${JSON.stringify(opened)}`);
  }

  /** The run passed: the next one need not empty the tables. */
  end(): void {
    this.lab.dirty = false;
  }

  /** Registers a person over REST (which signs them in). */
  private async registration(referralCode?: string) {
    registered += 1;
    const res = await this.t.api.post('/api/auth/register').send({
      email: `money${registered}-${Date.now()}@example.com`,
      password: PASSWORD,
      displayName: `Money${registered}`,
      ...(referralCode === undefined ? {} : { referralCode }),
    });
    if (res.status === 201) this.accounts.push(res.body.user.id);
    return res;
  }

  private personOf(res: { status: number; headers: Record<string, unknown>; body: { user: { id: string; referralCode: string } } }): Person {
    const cookie = sessionCookieOf(res);
    if (!cookie) throw new Error('registration set no session cookie');
    return { id: res.body.user.id, cookie, referralCode: res.body.user.referralCode, deleted: false };
  }

  /** A registered person trades in this run while there are fewer than four. */
  private join(res: Parameters<MoneyRun['personOf']>[0]): void {
    if (this.people.length < 4) this.people.push(this.personOf(res));
  }

  private person(n: number): Person {
    return this.people[n % this.people.length]!;
  }

  private async call(p: Person, path: string, body: Record<string, unknown> = {}): Promise<Outcome> {
    const res = await this.t.api.post(path).set({ Cookie: p.cookie, Origin: this.t.config.BASE_URL! }).send(body);
    return { call: true, status: res.status, body: res.body as Record<string, unknown> };
  }

  /** The person's positions (community ones, or mirrored ones, or all), oldest first (each step is its own second). */
  private async positionsOf(p: Person, kind: 'any' | 'community' | 'mirrored', tokenId?: string) {
    return this.t.services.db.query<{ id: string; quantity_micro: bigint; is_closed: boolean }>(
      `SELECT id, quantity_micro, is_closed FROM positions WHERE user_id = $1
         AND ($2 = 'any' OR (token_id LIKE 'cm-%') = ($2 = 'community')) AND ($3::text IS NULL OR (token_id = $3 AND NOT is_closed))
       ORDER BY created_at, token_id, is_closed DESC`,
      [p.id, kind, tokenId ?? null],
    );
  }

  async snapshot(): Promise<Record<string, string>> {
    const communities = this.communities.map((c) => c.id);
    return (await this.t.services.db.query<Record<string, string>>(SNAPSHOT, [this.accounts, communities]))[0]!;
  }

  /** One step (each its own second), and what it changed in the account tables (each changed part: before, after). */
  async attempt(op: Op): Promise<{ outcome: Outcome; changed: Record<string, string> }> {
    this.clock.advance(1000);
    const before = await this.snapshot();
    const outcome = await this.apply(op);
    const after = await this.snapshot();
    const changed: Record<string, string> = {};
    for (const k of Object.keys(before)) if (before[k] !== after[k]) changed[k] = `before: ${before[k]}\n  after:  ${after[k]}`;
    return { outcome, changed };
  }

  /** One step with every check after it: no server error, a refused call changed nothing, the invariants hold. */
  async step(op: Op): Promise<Outcome> {
    const { outcome, changed } = await this.attempt(op);
    if (outcome.call && outcome.status >= 500 && !refused(outcome)) {
      throw new Error(`${show(op)} answered ${outcome.status} ${JSON.stringify(outcome.body)}`);
    }
    if (refused(outcome) && Object.keys(changed).length) {
      throw new Error(
        `${show(op)} was refused (${outcome.call ? `${outcome.status} ${String(outcome.body.code)}` : ''}) but changed ${Object.keys(changed).join(', ')}:\n` +
          Object.entries(changed)
            .map(([k, v]) => `  ${k} ${v}`)
            .join('\n'),
      );
    }
    await this.check(op);
    return outcome;
  }

  /** The invariants, from the tables, from the audit, and as get_balance shows each live account. */
  async check(op?: Op): Promise<void> {
    const where = op ? `after ${show(op)}` : 'at the start';
    const broken = await this.t.services.db.query<{ v: string }>(BROKEN);
    if (broken.length) throw new Error(`${where}: ${broken.map((b) => b.v).join('; ')}`);
    const { violations } = await auditLedger(this.t.services.db);
    if (violations.length) throw new Error(`${where}: ledger audit: ${violations.join('; ')}`);
    const p = op && 'who' in op ? this.person(op.who) : undefined;
    if (p && !p.deleted) {
      const res = await this.t.api.get('/api/user/balance').set({ Cookie: p.cookie });
      if (res.status !== 200 || !(res.body.available >= 0))
        throw new Error(`${where}: get_balance of ${p.id} answered ${res.status} ${JSON.stringify(res.body)}`);
    }
  }

  private async apply(op: Op): Promise<Outcome> {
    const { db, orders, settlement, priceChanges } = this.t.services;
    const now = this.clock.now();
    switch (op.kind) {
      case 'paper_trade': {
        const m = this.markets[op.market]!;
        return this.call(this.person(op.who), '/api/trade', {
          marketId: m.id,
          marketSlug: m.slug,
          tokenId: op.side === 0 ? m.yes : m.no,
          outcome: op.side === 0 ? 'YES' : 'NO',
          amount: await this.dollars(this.person(op.who), op.spend),
        });
      }
      case 'sell_position': {
        const p = this.person(op.who);
        const mine = await this.positionsOf(p, 'any');
        if (!mine.length) return { call: false };
        const pos = mine[op.pick % mine.length]!;
        return this.call(p, `/api/positions/${pos.id}/sell`, op.fraction === null ? {} : { quantity: share(pos.quantity_micro, op.fraction) });
      }
      case 'place_order': {
        const p = this.person(op.who);
        const m = this.markets[op.market]!;
        const tokenId = op.side === 0 ? m.yes : m.no;
        const quote = await this.quote(tokenId);
        const limitPrice = clamp(quote[op.order === 'BUY' ? 'ask' : 'bid'] + op.offset, 1, 99) / 100;
        let size: Record<string, number> = { amount: await this.dollars(p, op.spend) };
        if (op.order === 'SELL') {
          const held = await this.positionsOf(p, 'mirrored', tokenId);
          size = { shares: held[0] ? share(held[0].quantity_micro, op.fraction) : 1 };
        } else if (op.byShares) {
          // As many shares as the dollars buy at the limit (to the micro-share), so it reserves about those dollars.
          size = { shares: fromMicro((toMicro(size.amount!) * 1_000_000n) / toMicro(limitPrice)) || 0.000001 };
        }
        return this.call(p, '/api/orders', {
          tokenId,
          side: op.order,
          limitPrice,
          ...size,
          timeInForce: op.tif,
          ...(op.tif === 'GTD' ? { expiresAt: new Date(now.getTime() + op.ttlS * 1000).toISOString() } : {}),
        });
      }
      case 'cancel_order': {
        const p = this.person(op.who);
        const mine = await db.query<{ id: string }>('SELECT id FROM orders WHERE user_id = $1 ORDER BY created_at, id', [p.id]);
        if (!mine.length) return { call: false };
        return this.call(p, `/api/orders/${mine[op.pick % mine.length]!.id}/cancel`);
      }
      case 'price': {
        const m = this.markets[op.market]!;
        const tokenId = op.side === 0 ? m.yes : m.no;
        const bid = clamp((await this.quote(tokenId)).bid + op.move, 1, 97) / 100;
        const ask = Math.round(bid * 100 + op.spread * 100) / 100;
        await moveQuote(db, this.prices, tokenId, bid, ask, now);
        if (op.via === 'sync') await orders.afterSync(now);
        else {
          const level = (price: number) => [{ priceMicro: toMicro(price), sizeMicro: toMicro(op.depth ?? 0) }];
          await priceChanges.emit([
            {
              tokenId,
              bidMicro: toMicro(bid),
              askMicro: toMicro(ask),
              asOf: now,
              source: op.depth === null ? 'simulated' : 'polymarket',
              ...(op.depth === null ? {} : { depth: { bids: level(bid), asks: level(ask) } }),
            },
          ]);
        }
        return { call: false };
      }
      case 'time':
        this.clock.advance(op.s * 1000);
        await orders.afterSync(this.clock.now());
        return { call: false };
      case 'buy_community_shares': {
        if (!this.communities.length) return { call: false };
        const c = this.communities[op.market % this.communities.length]!;
        return this.call(this.person(op.who), '/api/user-markets/trade', {
          tokenId: c.tokens[op.outcome % c.tokens.length],
          amount: await this.dollars(this.person(op.who), op.spend),
          ...(op.maxAveragePrice === null ? {} : { maxAvgPrice: op.maxAveragePrice }),
        });
      }
      case 'sell_community_shares': {
        const p = this.person(op.who);
        const mine = await this.positionsOf(p, 'community');
        if (!mine.length) return { call: false };
        const pos = mine[op.pick % mine.length]!;
        return this.call(p, `/api/user-markets/positions/${pos.id}/sell`, {
          ...(op.fraction === null ? {} : { quantity: share(pos.quantity_micro, op.fraction) }),
          ...(op.minAveragePrice === null ? {} : { minAvgPrice: op.minAveragePrice }),
        });
      }
      case 'create_community_market': {
        const p = this.person(op.who);
        return this.createCommunity(p, Math.max(await this.dollars(p, op.spend), LIQUIDITY_MIN), op.outcomes);
      }
      case 'resolve_community_market': {
        const p = this.person(op.who);
        const own = this.communities.filter((c) => c.creatorId === p.id);
        const from = own.length ? own : this.communities;
        if (!from.length) return { call: false };
        const c = from[op.market % from.length]!;
        return this.call(p, `/api/user-markets/${c.id}/resolve`, { outcome: c.labels[op.outcome] ?? 'VOID' });
      }
      case 'settle': {
        const m = this.markets[op.market]!;
        const status = await db.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [m.id]);
        if (status[0]!.status !== 'active') return { call: false };
        await resolveMarket(db, m.id, op.winner);
        if (op.sweep === 'orders first') await orders.afterSync(now);
        await settlement.runOnce(now);
        return { call: false };
      }
      case 'claim_challenge':
        return this.call(this.person(op.who), '/api/challenges', { challengeId: challengeAt(now).id });
      case 'referral': {
        const res = await this.registration(op.code === 'valid' ? this.person(op.who).referralCode : 'NOSUCHCODE');
        if (res.status === 201) this.join(res);
        return { call: true, status: res.status, body: res.body as Record<string, unknown> };
      }
      case 'delete_account': {
        const p = this.person(op.who);
        const out = await this.call(p, '/api/user/delete', { password: op.password === 'right' ? PASSWORD : 'not-the-password' });
        if (out.call && out.status === 200) {
          p.deleted = true;
          await this.ordersCancelled(p);
        }
        return out;
      }
    }
  }

  /** A token's quote in cents, as the market mirror holds it (moveQuote sets it with the live one). */
  private async quote(tokenId: string): Promise<{ bid: number; ask: number }> {
    const rows = await this.t.services.db.query<{ bid_micro: bigint; ask_micro: bigint }>(
      'SELECT bid_micro, ask_micro FROM market_tokens WHERE token_id = $1',
      [tokenId],
    );
    return { bid: Number(rows[0]!.bid_micro / 10_000n), ask: Number(rows[0]!.ask_micro / 10_000n) };
  }

  /** `f` of the person's balance in dollars (at least a micro-dollar). */
  private async dollars(p: Person, f: number): Promise<number> {
    const rows = await this.t.services.db.query<{ balance_micro: bigint }>('SELECT balance_micro FROM cash_balances WHERE user_id = $1', [p.id]);
    const micro = (rows[0]!.balance_micro * BigInt(Math.round(f * 1000))) / 1000n;
    return fromMicro(micro > 0n ? micro : 1n);
  }

  private async createCommunity(p: Person, liquidity: number, outcomes: number): Promise<Outcome> {
    const labels = ['Red', 'Green', 'Blue'].slice(0, outcomes);
    const out = await this.call(p, '/api/user-markets', {
      question: `Which colour wins community race ${this.communities.length + 1}?`,
      category: 'Testing',
      outcomes: labels,
      endDate: new Date(this.clock.now().getTime() + 30 * 86_400_000).toISOString(),
      liquidity,
    });
    if (out.call && out.status === 200) {
      const tokens = (out.body.outcomeTokens as Array<{ tokenId: string }>).map((x) => x.tokenId);
      this.communities.push({ id: out.body.id as string, creatorId: p.id, labels, tokens });
    }
    return out;
  }

  /** A deletion cancels the account's resting orders after it commits, in the background: the next step waits for that. */
  private async ordersCancelled(p: Person): Promise<void> {
    for (let i = 0; i < 500; i += 1) {
      const open = await this.t.services.db.query<{ n: bigint }>(
        `SELECT count(*) AS n FROM orders WHERE user_id = $1 AND state IN ('open', 'partially_filled')`,
        [p.id],
      );
      if (open[0]!.n === 0n) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`the deleted account ${p.id} still has open orders after 5 s`);
  }
}

/** One step as a fast-check command: its shrinker drops the steps after the one that failed (they never ran). */
class Step implements fc.AsyncCommand<object, MoneyRun> {
  constructor(readonly op: Op) {}
  check(): boolean {
    return true;
  }
  async run(_model: object, run: MoneyRun): Promise<void> {
    await run.step(this.op);
  }
  toString(): string {
    return show(this.op);
  }
}

const steps = fc.commands([opArb.map((op) => new Step(op))], { maxCommands: 40, size: 'max' });

const clamp = (x: number, lo: number, hi: number) => Math.min(Math.max(x, lo), hi);

/** `fraction` of a holding in shares, at least one micro-share, as a wire number. */
function share(quantityMicro: bigint, f: number): number {
  const q = (quantityMicro * BigInt(Math.round(f * 100))) / 100n;
  return fromMicro(q > 0n ? q : 1n);
}

/** A regression: the shrunk counterexample's steps, then its last one, which must be refused with `code` and change nothing. */
async function refusedAfter(lab: Lab, accounts: number, before: Op[], last: Op, code: string): Promise<void> {
  const run = new MoneyRun(lab);
  await run.begin(accounts);
  for (const op of before) await run.step(op);
  const { outcome, changed } = await run.attempt(last);
  expect(outcome.call ? { status: outcome.status, code: outcome.body.code } : outcome).toEqual({ status: 400, code });
  expect(changed).toEqual({});
  await run.check(last);
  run.end();
}

describe.each(backends())('money operations on $name', (backend: Backend) => {
  const lab = { prices: new ControlledPrices(), clock: new ManualClock(START), dirty: false } as Lab;
  beforeAll(async () => {
    lab.t = await startTestApp(backend, { prices: lab.prices, clock: lab.clock, background: false });
  });
  afterAll(async () => lab.t?.close());

  // Counterexamples the property found on 3594045, shrunk (they fail until community buys and pool funding check
  // available cash). Spends are shares of the account's balance at the time, offsets cents from the quote (YES
  // 0.50 / 0.52 at the start); `who` picks a trader modulo their number.

  test('when a resting buy reserves cash, a community buy of more than the rest is refused and changes nothing', async () => {
    // A buy one cent under the ask rests and reserves 362 of 1,000; a community buy of 639 is one more than is
    // available. Shrunk as a GTD order with a one-second life; GTC here, so nothing about expiry enters.
    await refusedAfter(
      lab,
      2,
      [{ kind: 'place_order', who: 0, market: 0, side: 0, order: 'BUY', offset: -1, spend: 0.362, fraction: 0.01, tif: 'GTC', ttlS: 1 }],
      { kind: 'buy_community_shares', who: 0, market: 0, outcome: 0, spend: 0.639, maxAveragePrice: null },
      'INSUFFICIENT_BALANCE',
    );
  });

  test('when a resting buy reserves cash, funding a community market with more than the rest is refused and changes nothing', async () => {
    // A GTC buy one cent under the ask rests and reserves 61 of 1,000; funding a market with 940 is one more than is available.
    await refusedAfter(
      lab,
      2,
      [{ kind: 'place_order', who: 0, market: 0, side: 0, order: 'BUY', offset: -1, spend: 0.061, fraction: 0.01, tif: 'GTC', ttlS: 1 }],
      { kind: 'create_community_market', who: 0, spend: 0.94, outcomes: 2 },
      'INSUFFICIENT_BALANCE',
    );
  });

  test('when a resting sell reserves shares and its market settles before the orders are swept, the settled position keeps no reservation', async () => {
    // Found with the community operations left out (they fail first). One dollar of NO; a GTD sell of 1 % of those
    // shares one cent over the bid rests; the market resolves YES and settlement runs before the sync cancels the
    // order (resolveMarket + settlement.runOnce): the closed position held 0 shares and still reserved the order's
    // 0.020408. The sync itself cancels first (src/start.ts), so this needs a settlement that runs on its own.
    const run = new MoneyRun(lab);
    await run.begin(2);
    await run.step({ kind: 'paper_trade', who: 0, market: 2, side: 1, spend: 0.001 });
    await run.step({ kind: 'place_order', who: 0, market: 2, side: 1, order: 'SELL', offset: 1, spend: 0.001, fraction: 0.01, tif: 'GTD', ttlS: 1 });
    await run.step({ kind: 'settle', market: 2, winner: 'YES', sweep: 'settlement only' });
    run.end();
  });

  test(
    'any interleaving of every money operation keeps available cash >= 0, reservations within what they hold, the audit green, and changes nothing when refused',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 2, max: 3 }), steps, async (accounts, cmds) => {
          const run = new MoneyRun(lab);
          await run.begin(accounts);
          await run.check();
          await fc.asyncModelRun(() => ({ model: {}, real: run }), cmds);
          run.end();
        }),
        { numRuns: RUNS, plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)] },
      );
    },
    TIME_LIMIT_MS + 120_000,
  );
});
