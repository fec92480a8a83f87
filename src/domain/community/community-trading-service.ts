import { together, type Database, type Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { rangeFor, type Interval } from '../trading/price-intervals';
import { fromMicro, toMicro, MICRO, type Micro } from '../money/micro';
import type { BeforeCommit, BuyResult, SellResult } from '../trading/trading-service';
import { fillAt } from '../trading/fills';
import { TradeEngine, type Intent, type IntentForecast, type Pricer, type VenueRead } from '../trading/engine';
import { credit, debit } from '../ledger/cash';
import { poolAccount } from '../ledger/accounts';
import { poolCash } from '../ledger/pool-cash';
import type { SettlementService } from '../trading/settlement-service';
import type { TradeHooks } from '../trading/trade-hooks';
import { buyCost, openPool, prices, pricesMicro, sellProceeds, sharesForAmount } from './lmsr';
import { bookFill, lmsrOf, moved, readPool, type PoolState } from './community-pool';
import { THIN_MARKET_SQL } from '../track-record/record-rule';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A community outcome's token id: the market id without dashes and the outcome's index. */
export const tokenIdOf = (marketId: string, idx: number) => `cm-${marketId.replace(/-/g, '')}-${idx}`;
const TOKEN = /^cm-([0-9a-f]{32})-(\d{1,2})$/i;
export const isCommunityToken = (tokenId: string) => TOKEN.test(tokenId);
/** The community market of an outcome token's id, or undefined when it is not a community token. */
export function marketOfToken(tokenId: string): string | undefined {
  const m = TOKEN.exec(tokenId);
  if (!m) return undefined;
  const h = m[1]!.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The average price of a fill in micro-dollars per share (cash / shares, at most 1), rounded against the trader
 * (up for a buy, down for a sale), so a quoted average used as the trade's limit always admits that same fill.
 */
const averageMicro = (cash: Micro, shares: Micro, side: 'BUY' | 'SELL'): Micro => {
  if (shares <= 0n) return 0n;
  const p = side === 'BUY' ? (cash * MICRO + shares - 1n) / shares : (cash * MICRO) / shares;
  return p > MICRO ? MICRO : p;
};

/** The most dollars one buy may spend (the SPEC's trade amount limit), whether sized by amount or by shares. */
const MAX_BUY_MICRO = toMicro(1_000_000);

const closed = (why: string) =>
  new AppError('MARKET_CLOSED', `This community market ${why}; it no longer trades.`, { hint: 'Find an active one with list_community_markets.' });

export interface CommunityQuote {
  side: 'BUY' | 'SELL';
  tokenId: string;
  marketId: string;
  outcome: string;
  marketStatus: string;
  quantity: number;
  amount: number;
  averagePrice: number;
  priceBefore: number;
  priceAfter: number;
  priceImpact: number;
}

/**
 * Trading against a community market's LMSR pool. Positions, the ledger, the trade journal and the trade
 * hooks (track record, XP, challenges, leaderboards) are the same as for mirrored markets: a community
 * outcome token is held as a YES share of "this label wins", paying 1 if it does. Every fill locks the pool
 * row first (pool, account, position), so concurrent fills on one market are priced one after another.
 */
export class CommunityTradingService {
  constructor(
    private readonly db: Database,
    private readonly hooks: TradeHooks,
    private readonly settlement: SettlementService,
    /** The one trade path (services.ts shares one); its own over `hooks` when not given (tests, benches). */
    private readonly path: TradeEngine = new TradeEngine(hooks),
  ) {}

  /** Opens the pool of a new market inside its creation transaction, funded from the creator's balance. */
  async fund(tx: Queryable, args: { marketId: string; creatorId: string; labels: string[]; liquidity: Micro; opening?: number[]; now: Date }): Promise<void> {
    const pool = openPool(args.liquidity, args.labels.length, args.opening);
    const opening = pricesMicro(pool);
    await tx.query(`INSERT INTO community_pools (market_id, b_micro, subsidy_micro) VALUES ($1, $2, $3)`, [
      args.marketId,
      pool.b.toString(),
      args.liquidity.toString(),
    ]);
    // The funding is a transfer from the creator's cash to the pool's account; the ledger keeps the pool's cash.
    await debit(
      tx,
      { userId: args.creatorId, counter: poolAccount(args.marketId), type: 'pool_fund', amountMicro: args.liquidity, ref: args.marketId, at: args.now },
      `Funding the market maker takes ${fromMicro(args.liquidity)} dollars of your available balance, more than you have.`,
    );
    const tokens = args.labels.map((_, i) => tokenIdOf(args.marketId, i));
    await tx.query(
      `INSERT INTO community_outcomes (token_id, market_id, idx, label, offset_micro, price_micro)
       SELECT x.token_id, $1, x.idx, x.label, x.off, x.price FROM unnest($2::text[], $3::int[], $4::text[], $5::bigint[], $6::bigint[]) AS x(token_id, idx, label, off, price)`,
      [args.marketId, tokens, args.labels.map((_, i) => i), args.labels, pool.q.map(String), opening.map(String)],
    );
    await tx.query(
      `INSERT INTO community_price_points (token_id, t, price_micro) SELECT x.token_id, $1, x.price FROM unnest($2::text[], $3::bigint[]) AS x(token_id, price)`,
      [args.now, tokens, opening.map(String)],
    );
  }

  /** What a buy of `amount` dollars or a sell of `quantity` shares would fill at now; changes nothing. */
  async quote(input: { side: 'BUY' | 'SELL'; tokenId: string; amount?: number; quantity?: number }): Promise<CommunityQuote> {
    const { pool, i } = await this.poolOfToken(this.db, input.tokenId, false);
    const state = lmsrOf(pool);
    const before = prices(state)[i]!;
    const base = { side: input.side, tokenId: input.tokenId, marketId: pool.marketId, outcome: pool.outcomes[i]!.label, marketStatus: pool.status };
    let shares: Micro;
    let cash: Micro;
    if (input.side === 'BUY') {
      if (input.amount === undefined) throw new AppError('VALIDATION_ERROR', 'amount is required for a BUY quote.');
      cash = toMicro(input.amount);
      shares = sharesForAmount(state, i, cash);
    } else {
      if (input.quantity === undefined) throw new AppError('VALIDATION_ERROR', 'quantity is required for a SELL quote.');
      shares = toMicro(input.quantity);
      if (shares > pool.outcomes[i]!.shares)
        throw new AppError('VALIDATION_ERROR', `Only ${fromMicro(pool.outcomes[i]!.shares)} shares of this outcome are held in all.`);
      cash = sellProceeds(state, i, shares);
    }
    const after = prices(moved(state, i, input.side === 'BUY' ? shares : -shares))[i]!;
    return {
      ...base,
      quantity: fromMicro(shares),
      amount: fromMicro(cash),
      averagePrice: fromMicro(averageMicro(cash, shares, input.side)),
      priceBefore: round6(before),
      priceAfter: round6(after),
      priceImpact: round6(after - before),
    };
  }

  /**
   * A buy from the pool of `order.tokenId`'s market, sized by `amount` dollars or by `shares`, as one intent through the
   * engine: `maxAveragePrice` is its limit, `forecast` its stated forecast (recorded with the buy, or not at all), and
   * `complete` the idempotent call's completion, run with the answer before commit.
   */
  async buy(
    userId: string,
    /** `market`: what the caller named the market (paper_trade's marketId, marketSlug and outcome), held to the token's. */
    order: { tokenId: string; amount?: number; shares?: number; maxAveragePrice?: number; market?: { id: string; slug: string; outcome: 'YES' | 'NO' } },
    now: Date,
    complete?: BeforeCommit,
    forecast?: IntentForecast,
  ): Promise<BuyResult & { avgPrice: number; averagePrice: number; priceAfter: number; outcome: string; marketId: string }> {
    if ((order.amount === undefined) === (order.shares === undefined))
      throw new AppError('VALIDATION_ERROR', 'send exactly one of amount (dollars to spend) or shares (shares to buy).');
    const marketId = marketOfToken(order.tokenId);
    if (!marketId) throw notCommunityToken(order.tokenId);
    const done = await this.db.transaction(async (tx) => {
      const venue = this.poolVenue(order.tokenId, userId, now, (pool) => {
        if (order.market) namedAs(pool, order.tokenId, order.market);
      });
      const intent: Intent = {
        userId,
        marketId,
        tokenId: order.tokenId,
        outcome: 'YES',
        side: 'BUY',
        size: order.amount !== undefined ? { by: 'amount', micro: toMicro(order.amount) } : { by: 'shares', micro: toMicro(order.shares!) },
        ...(order.maxAveragePrice !== undefined ? { limitMicro: toMicro(order.maxAveragePrice) } : {}),
        ...(forecast ? { forecast } : {}),
        at: now,
      };
      const ex = await this.path.execute(tx, intent, venue);
      if (ex.side !== 'BUY') throw new Error('a buy executed as a sale');
      const { pool, i } = venue.held();
      const after = moved(lmsrOf(pool), i, ex.fill.quantityMicro);
      const result = {
        success: true as const,
        quantity: fromMicro(ex.fill.quantityMicro),
        price: fromMicro(ex.fill.priceMicro),
        avgPrice: fromMicro(ex.fill.priceMicro),
        averagePrice: fromMicro(ex.fill.priceMicro), // deprecated duplicate of avgPrice (docs/glossary.md)
        priceAfter: round6(prices(after)[i]!),
        totalCost: fromMicro(ex.fill.amountMicro),
        positionId: ex.positionId,
        balance: fromMicro(ex.balanceMicro),
        outcome: pool.outcomes[i]!.label,
        marketId: pool.marketId,
      };
      if (complete) await complete(tx, result);
      return result;
    });
    this.hooks.committed();
    return done;
  }

  /**
   * A community market's pool as the engine's venue: the read of its pool (locked) and whether the market is thin for
   * the record, then `check` (the caller's own refusal) and the pool's being open; `held()` gives the pool read once the
   * trade has run.
   */
  private poolVenue(tokenId: string, userId: string, now: Date, check?: (pool: PoolState) => void): VenueRead & { held(): { pool: PoolState; i: number } } {
    let held: { pool: PoolState; i: number } | undefined;
    return {
      venue: 'pool',
      pricer: async (tx) => {
        const { pool, i, thin } = await this.heldPoolOf(tx, tokenId, userId);
        check?.(pool);
        this.requireOpen(pool, now);
        held = { pool, i };
        return this.poolPricer(pool, i, tokenId, now, userId, thin);
      },
      held: () => {
        if (!held) throw new Error('the pool was not read');
        return held;
      },
    };
  }

  /**
   * The pricer of a community market's pool (read and locked in the trade's transaction): its LMSR curve prices a buy by
   * amount or by shares and a sale of shares; the fill moves the curve (shares out, prices, a price point) with the
   * ledger's moves, which carry its cash (the pool's account).
   */
  private poolPricer(pool: PoolState, i: number, tokenId: string, now: Date, userId: string, thin: boolean): Pricer {
    const state = lmsrOf(pool);
    return {
      account: poolAccount(pool.marketId),
      buy: (intent) => {
        let amount: Micro;
        let shares: Micro;
        if (intent.size.by === 'amount') {
          amount = intent.size.micro;
          shares = sharesForAmount(state, i, amount);
          if (shares <= 0n) throw new AppError('VALIDATION_ERROR', 'amount is too small to buy any share at the current price.');
        } else {
          shares = intent.size.micro ?? 0n;
          amount = buyCost(state, i, shares);
          if (amount > MAX_BUY_MICRO)
            throw new AppError('VALIDATION_ERROR', `${fromMicro(shares)} shares cost ${fromMicro(amount)} dollars now, above the 1,000,000 a trade may spend.`);
        }
        return { amountMicro: amount, quantityMicro: shares, priceMicro: averageMicro(amount, shares, 'BUY') };
      },
      check: () => this.requireOpen(pool, now),
      sell: (pos, shares) => {
        const proceeds = sellProceeds(state, i, shares);
        return fillAt({ quantityMicro: pos.quantityMicro, costMicro: pos.costMicro }, shares, proceeds, averageMicro(proceeds, shares, 'SELL'));
      },
      booked: (tx, side, fill) => {
        const delta = side === 'BUY' ? fill.sharesMicro : -fill.sharesMicro;
        return bookFill(tx, pool, moved(state, i, delta), { tokenId, sharesDelta: delta, volume: fill.cashMicro, at: now, thick: !thin });
      },
      ownMarket: pool.creatorId === userId,
      thinMarket: thin,
    };
  }

  /** Whether a position of this account is in a community market (sell_position sends it here). */
  async holds(userId: string, positionId: string): Promise<boolean> {
    if (!UUID.test(positionId)) return false;
    const rows = await this.db.query<{ token_id: string }>('SELECT token_id FROM positions WHERE id = $1 AND user_id = $2', [positionId, userId]);
    return rows[0] !== undefined && isCommunityToken(rows[0].token_id);
  }

  async sell(
    userId: string,
    positionId: string,
    quantity: number | undefined,
    minAveragePrice: number | undefined,
    now: Date,
    beforeCommit?: BeforeCommit,
    /** 'position': answer in sell_position's shape (without averagePrice and priceAfter). */
    shape: 'community' | 'position' = 'community',
  ): Promise<SellResult & { avgPrice?: number; averagePrice?: number; priceAfter?: number }> {
    const found = UUID.test(positionId)
      ? await this.db.query<{ token_id: string }>('SELECT token_id FROM positions WHERE id = $1 AND user_id = $2', [positionId, userId])
      : [];
    if (!found[0] || !isCommunityToken(found[0].token_id))
      throw new AppError('NOT_FOUND', `Position ${positionId} not found.`, { hint: 'List your positions with get_portfolio.' });
    const tokenId = found[0].token_id;
    const marketId = marketOfToken(tokenId)!;
    const done = await this.db.transaction(async (tx) => {
      const venue = this.poolVenue(tokenId, userId, now);
      const intent: Intent = {
        userId,
        marketId,
        tokenId,
        outcome: 'YES',
        side: 'SELL',
        size: { by: 'shares', micro: quantity === undefined ? undefined : toMicro(quantity) },
        positionId,
        ...(minAveragePrice !== undefined ? { limitMicro: toMicro(minAveragePrice) } : {}),
        at: now,
      };
      const ex = await this.path.execute(tx, intent, venue);
      if (ex.side !== 'SELL') throw new Error('a sale executed as a buy');
      const { pool, i } = venue.held();
      const { fill, balanceMicro } = ex;
      const after = moved(lmsrOf(pool), i, -fill.quantityMicro);
      const result = {
        success: true as const,
        quantitySold: fromMicro(fill.quantityMicro),
        price: fromMicro(fill.priceMicro),
        ...(shape === 'community'
          ? { avgPrice: fromMicro(fill.priceMicro), averagePrice: fromMicro(fill.priceMicro), priceAfter: round6(prices(after)[i]!) }
          : {}),
        proceeds: fromMicro(fill.proceedsMicro),
        realizedPnl: fromMicro(fill.realizedPnlMicro),
        positionId,
        isClosed: fill.closes,
        balance: fromMicro(balanceMicro),
      };
      if (beforeCommit) await beforeCommit(tx, result);
      return result;
    });
    this.hooks.committed();
    return done;
  }

  /** Every trade's price of one outcome over the interval, oldest first (the opening price is the first point). */
  async history(tokenId: string, interval: Interval, now: Date) {
    const marketId = marketOfToken(tokenId);
    const rows = marketId
      ? await this.db.query<{ created_at: Date }>(
          'SELECT m.created_at FROM community_outcomes o JOIN community_markets m ON m.id = o.market_id WHERE o.token_id = $1',
          [tokenId],
        )
      : [];
    if (!rows[0]) throw new AppError('NOT_FOUND', `No token ${tokenId}.`, { hint: 'Use outcomeTokens[].tokenId from get_community_market.' });
    const range = rangeFor(interval, Math.floor(now.getTime() / 1000), Math.floor(new Date(rows[0].created_at).getTime() / 1000));
    const points = await this.db.query<{ ts: string; price_micro: bigint }>(
      `SELECT * FROM (
         SELECT floor(extract(epoch FROM t))::int8 AS ts, price_micro, id FROM community_price_points
         WHERE token_id = $1 AND t >= to_timestamp($2) AND t < to_timestamp($3 + 1) ORDER BY t DESC, id DESC LIMIT 5000
       ) p ORDER BY ts, id`,
      [tokenId, range.fromS, range.toS],
    );
    return {
      history: points.map((p) => ({ t: Number(p.ts), p: Number(p.price_micro) / 1e6 })),
      tokenId,
      interval,
      resolutionSeconds: 0,
      source: 'community' as const,
      simulated: false,
    };
  }

  /**
   * Settles a resolved community market: every open position through the shared settlement path (1 per
   * winning share, 0 per losing one; VOID pays back each position's cost, its average price), paid from
   * the pool; then what is left in the pool goes back to the creator. Safe to run again after a crash.
   */
  async settle(marketId: string, resolved: string, now: Date): Promise<number> {
    const pool = await readPool(this.db, marketId, false);
    if (!pool) return 0;
    const labelOf = new Map(pool.outcomes.map((o) => [o.tokenId, o.label]));
    const open = await this.db.query<{ id: string; user_id: string }>('SELECT id, user_id FROM positions WHERE market_id = $1 AND NOT is_closed', [marketId]);
    let settled = 0;
    // Whether the market was thick enough for the record, once: no trade comes after its resolution.
    const thin = open.length > 0 && (await isThin(this.db, marketId, pool.creatorId));
    for (const p of open) {
      const ok = await this.settlement.settle(p.id, p.user_id, now, {
        winnerLabel: resolved,
        payer: poolAccount(marketId),
        ownMarket: p.user_id === pool.creatorId,
        thinMarket: thin,
        outcomeLabel: (tokenId) => labelOf.get(tokenId),
        lock: async (tx) => {
          await tx.query('SELECT 1 FROM community_pools WHERE market_id = $1::uuid FOR UPDATE', [marketId]);
        },
        payout: (pos) => {
          if (resolved === 'VOID') {
            const avg = pos.quantityMicro === 0n ? 0n : (pos.costMicro * MICRO) / pos.quantityMicro;
            return { perShareMicro: avg > MICRO ? MICRO : avg, payoutMicro: pos.costMicro, realizedPnlMicro: 0n, won: null };
          }
          const won = labelOf.get(pos.tokenId) === resolved;
          const payoutMicro = won ? pos.quantityMicro : 0n;
          return { perShareMicro: won ? MICRO : 0n, payoutMicro, realizedPnlMicro: payoutMicro - pos.costMicro, won };
        },
        // The payout left the pool's cash with its transfer (the ledger's credit); the curve's count of shares out follows.
        booked: async (tx, s) => {
          await tx.query('UPDATE community_outcomes SET shares_micro = shares_micro - $2 WHERE token_id = $1', [s.tokenId, s.quantityMicro.toString()]);
        },
      });
      if (ok) settled += 1;
    }
    await this.db.transaction(async (tx) => {
      const rows = await tx.query<{ settled_at: Date | null }>('SELECT settled_at FROM community_pools WHERE market_id = $1::uuid FOR UPDATE', [marketId]);
      const still = await tx.query('SELECT 1 FROM positions WHERE market_id = $1 AND NOT is_closed LIMIT 1', [marketId]);
      if (!rows[0] || rows[0].settled_at || still[0]) return;
      // What is left of the pool's cash (held still: its row is locked) returns to the creator as a transfer; the ledger empties it.
      const rest = await poolCash(tx, marketId);
      await credit(tx, { userId: pool.creatorId, counter: poolAccount(marketId), type: 'pool_return', amountMicro: rest, ref: marketId, at: now });
      await tx.query('UPDATE community_pools SET returned_micro = $2, settled_at = $3 WHERE market_id = $1::uuid', [marketId, rest.toString(), now]);
    });
    return settled;
  }

  /** Resolved community markets whose pool has not been settled yet (a crash between resolution and settlement). */
  async settlePending(now: Date): Promise<number> {
    const rows = await this.db.query<{ id: string; resolved_outcome: string }>(
      `SELECT m.id, m.resolved_outcome FROM community_markets m JOIN community_pools p ON p.market_id = m.id
       WHERE m.status = 'resolved' AND p.settled_at IS NULL LIMIT 100`,
    );
    let n = 0;
    for (const r of rows) n += await this.settle(r.id, r.resolved_outcome, now);
    return n;
  }

  private requireOpen(pool: PoolState, now: Date): void {
    if (pool.status !== 'active') throw closed('is resolved');
    if (now.getTime() >= pool.endDate.getTime()) throw closed('has passed its endDate');
  }

  /**
   * A trade's pool: the token's, locked, with whether its market is still thin for the record when `userId` trades in
   * it, read together (one round trip while the pool, which every trade of the market waits for, is held).
   */
  private async heldPoolOf(tx: Queryable, tokenId: string, userId: string): Promise<{ pool: PoolState; i: number; thin: boolean }> {
    const marketId = marketOfToken(tokenId);
    const [held, thin] = await together(this.poolOfToken(tx, tokenId, true), marketId ? isThin(tx, marketId, userId) : Promise.resolve(false));
    return { ...held, thin };
  }

  private async poolOfToken(q: Queryable, tokenId: string, lock: boolean): Promise<{ pool: PoolState; i: number }> {
    const marketId = marketOfToken(tokenId);
    const pool = marketId ? await readPool(q, marketId, lock) : undefined;
    const i = pool ? pool.outcomes.findIndex((o) => o.tokenId === tokenId) : -1;
    if (!pool || i < 0) throw notCommunityToken(tokenId);
    return { pool, i };
  }
}

/** Refuses a buy whose named market (paper_trade's marketId, marketSlug, outcome) is not the token's community market. */
function namedAs(pool: PoolState, tokenId: string, market: { id: string; slug: string; outcome: 'YES' | 'NO' }): void {
  if (market.id !== pool.marketId && market.id !== pool.slug)
    throw new AppError('VALIDATION_ERROR', `tokenId ${tokenId} is not a token of market ${market.id}.`, {
      hint: 'Use outcomeTokens[].tokenId of that market (get_community_market).',
    });
  if (market.slug !== pool.slug) throw new AppError('VALIDATION_ERROR', `marketSlug does not match market ${pool.marketId} (its slug is ${pool.slug}).`);
  if (market.outcome !== 'YES')
    throw new AppError('VALIDATION_ERROR', 'A community market outcome is bought as YES of its label: send outcome YES with its tokenId.');
}

const notCommunityToken = (tokenId: string) =>
  new AppError('NOT_FOUND', `Token ${tokenId} is not a community market outcome.`, { hint: 'Use outcomeTokens[].tokenId from get_community_market.' });

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Whether the market is still too thin for the track record when `userId` trades in it (record-rule.ts). */
async function isThin(q: Queryable, marketId: string, userId: string): Promise<boolean> {
  const rows = await q.query<{ thin: boolean }>(THIN_MARKET_SQL, [marketId, userId], 'community_thin_market');
  return rows[0]?.thin === true;
}
