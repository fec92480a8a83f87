import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import type { PriceService } from './price-service';
import { fromMicro, toMicro, MICRO, type Micro } from '../money/micro';
import { avgPriceMicro, buyFill, sellFill } from './fills';
import type { TradeEvent, TradeHooks } from './trade-hooks';
import { buyParams, buyStatementWith } from './trade-sql';

export interface BuyOrder {
  marketId: string;
  marketSlug: string;
  tokenId: string;
  outcome: 'YES' | 'NO';
  amount: number;
}

export interface BuyResult {
  success: true;
  quantity: number;
  price: number;
  totalCost: number;
  positionId: string;
  balance: number;
}

export interface SellResult {
  success: true;
  quantitySold: number;
  price: number;
  proceeds: number;
  realizedPnl: number;
  positionId: string;
  isClosed: boolean;
  balance: number;
}

/** Runs inside the trade's transaction just before it commits (idempotency record, aggregates, challenges). */
export type BeforeCommit = (tx: Queryable, result: unknown) => Promise<void>;

interface TokenRow {
  market_id: string;
  slug: string;
  status: string;
  outcome: 'YES' | 'NO';
}

/** A token's unchanging facts; `status` only when just read, `cached` when remembered. */
interface TokenFacts {
  market_id: string;
  slug: string;
  outcome: 'YES' | 'NO';
  status?: string;
  cached?: boolean;
}

const TOKEN_CACHE_SIZE = 50_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const marketClosed = (status: string) =>
  new AppError('MARKET_CLOSED', `This market is ${status}; it no longer trades.`, { hint: 'Search for an active market with search_prediction_markets.' });

/**
 * Buys and sells against the ledger. Lock order, always: the account row, then the position row.
 * A buy is one data-modifying statement (debit + ledger + position upsert + journal) inside a
 * transaction that also runs the hooks, so it commits whole or not at all.
 */
export class TradingService {
  constructor(
    private readonly db: Database,
    private readonly prices: PriceService,
    private readonly hooks: TradeHooks,
  ) {}

  private readonly tokens = new Map<string, Omit<TokenFacts, 'status' | 'cached'>>();
  /** BUY_STATEMENT with the listeners' account-row parts, built on the first buy (every listener is attached by then). */
  private buyStatement: { parts: number; sql: string } | undefined;

  async buy(userId: string, order: BuyOrder, now: Date, beforeCommit?: BeforeCommit): Promise<BuyResult> {
    const amountMicro = toMicro(order.amount);
    let token = await this.tokenOf(order.tokenId);
    // A remembered token that disagrees with the order is read again before refusing (a slug may change upstream).
    if (token?.cached && !this.matches(token, order)) token = await this.tokenOf(order.tokenId, true);
    if (!token || token.market_id !== order.marketId) {
      const market = await this.db.query('SELECT 1 FROM markets WHERE id = $1', [order.marketId]);
      if (!market[0]) throw new AppError('NOT_FOUND', `Market ${order.marketId} not found.`, { hint: 'Use the id from search_prediction_markets.' });
      throw new AppError('VALIDATION_ERROR', `tokenId ${order.tokenId} is not a token of market ${order.marketId}.`, {
        hint: 'Use outcomeTokens[].tokenId of that market.',
      });
    }
    if (token.slug !== order.marketSlug)
      throw new AppError('VALIDATION_ERROR', `marketSlug does not match market ${order.marketId} (its slug is ${token.slug}).`);
    if (token.outcome !== order.outcome)
      throw new AppError('VALIDATION_ERROR', `tokenId ${order.tokenId} is the ${token.outcome} token, not ${order.outcome}.`);
    if (token.status !== undefined && token.status !== 'active') throw marketClosed(token.status);

    let quote;
    try {
      quote = await this.prices.live(order.tokenId);
    } catch (err) {
      // With the token remembered, the market's status was not read: a market that has since closed says so.
      if (token.cached) await this.refuseIfClosed(order.marketId);
      throw err;
    }
    if (quote.askMicro <= 0n || quote.askMicro > MICRO) throw new AppError('PRICE_UNAVAILABLE', 'No valid ask for this token right now; nothing was bought.');
    const fill = buyFill(amountMicro, quote.askMicro);
    if (fill.quantityMicro <= 0n) throw new AppError('VALIDATION_ERROR', 'amount is too small to buy any share at the current price.');

    const event: TradeEvent = {
      userId,
      side: 'BUY',
      marketId: order.marketId,
      tokenId: order.tokenId,
      quantityMicro: fill.quantityMicro,
      cashMicro: amountMicro,
      realizedPnlMicro: 0n,
      priceMicro: fill.priceMicro,
      at: now,
    };
    // The listeners' parts of the account row's update travel in the buy's own statement (TradeHooks.buyRowParts).
    const parts = this.hooks.buyRowParts;
    this.buyStatement ??= { parts: parts.length, sql: buyStatementWith(parts) };
    // Its text is prepared under one name on every connection: it cannot change once a buy has used it.
    if (this.buyStatement.parts !== parts.length) throw new Error('a trade listener with a buy-row part was attached after the first buy');
    const buySql = this.buyStatement.sql;
    const done = await this.db.transaction(async (tx) => {
      type Answer = { market_ok: boolean; balance_micro: bigint | null; position_id: string | null } & Record<string, unknown>;
      const bought = tx.query<Answer>(
        buySql,
        [
          ...buyParams({
            userId,
            marketId: order.marketId,
            tokenId: order.tokenId,
            amountMicro,
            quantityMicro: fill.quantityMicro,
            priceMicro: fill.priceMicro,
            outcome: order.outcome,
            at: now,
          }),
          ...parts.flatMap((p) => p.params(event)),
        ],
        parts.length > 0 ? 'buy_with_parts' : 'buy', // prepared once per connection (resting orders prepare the plain one as 'buy')
      );
      // A buy's event is known before its statement runs, so the hooks' statements are sent right behind it
      // (one round trip for both on a pipelined connection); PostgreSQL runs them after the buy, so they see it.
      // A refused buy rolls the transaction back and takes the hooks' writes with it. The hooks are always
      // awaited before this function returns or throws, so none of their statements can outlive the transaction.
      const hooked = this.hooks.afterTrade(tx, event, true);
      hooked.catch(() => {}); // awaited below; a failure arriving first must not count as unhandled meanwhile
      let row: Answer;
      try {
        row = (await bought)[0]!;
      } catch (err) {
        await hooked.catch(() => {});
        throw err;
      }
      // The hooks finish before anything is decided. A refused buy's reason is read in the same transaction,
      // behind them, and the rollback undoes whatever they wrote.
      await hooked;
      if (!row.market_ok) {
        await this.refuseIfClosed(order.marketId, tx);
        throw marketClosed('closed');
      }
      if (row.balance_micro === null || row.position_id === null) {
        const exists = await tx.query('SELECT 1 FROM users WHERE id = $1', [userId]);
        if (!exists[0]) throw new AppError('NOT_FOUND', 'Account not found.');
        throw new AppError('INSUFFICIENT_BALANCE', `Insufficient balance for a ${fromMicro(amountMicro)} dollar buy.`, {
          hint: 'Read get_balance and buy a smaller amount.',
        });
      }
      await this.hooks.afterBuyRow(tx, event, row);
      const result: BuyResult = {
        success: true,
        quantity: fromMicro(fill.quantityMicro),
        price: fromMicro(fill.priceMicro),
        totalCost: fromMicro(amountMicro),
        positionId: row.position_id,
        balance: fromMicro(row.balance_micro),
      };
      if (beforeCommit) await beforeCommit(tx, result);
      return result;
    });
    this.hooks.committed();
    return done;
  }

  async sell(userId: string, positionId: string, quantity: number | undefined, now: Date, beforeCommit?: BeforeCommit): Promise<SellResult> {
    const found = UUID.test(positionId)
      ? await this.db.query<{ token_id: string; is_closed: boolean; status: string }>(
          `SELECT p.token_id, p.is_closed, m.status FROM positions p JOIN markets m ON m.id = p.market_id WHERE p.id = $1 AND p.user_id = $2`,
          [positionId, userId],
        )
      : [];
    // Another account's position answers exactly like a missing one: nothing is revealed.
    if (!found[0]) throw new AppError('NOT_FOUND', `Position ${positionId} not found.`, { hint: 'List your positions with get_portfolio.' });
    if (found[0].is_closed) throw positionClosed();
    if (found[0].status !== 'active') throw marketClosed(found[0].status);
    const quote = await this.prices.live(found[0].token_id);

    const done = await this.db.transaction(async (tx) => {
      const { result } = await this.sellIn(tx, userId, positionId, quantity === undefined ? undefined : toMicro(quantity), quote.bidMicro, now);
      if (beforeCommit) await beforeCommit(tx, result);
      return result;
    });
    this.hooks.committed();
    return done;
  }

  /**
   * A sale inside the caller's transaction: the one fill path of sell_position and of sell orders. It locks the
   * account row, then the position; it sells only shares not reserved by resting sell orders, after first
   * releasing `releaseMicro` of the position's reservation (a resting sell order consuming its own shares).
   * `wanted` undefined sells the whole position. The caller runs hooks.committed() after its commit.
   */
  async sellIn(tx: Queryable, userId: string, positionId: string, wanted: Micro | undefined, bidMicro: Micro, now: Date, releaseMicro: Micro = 0n) {
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const rows = await tx.query<{
      quantity_micro: bigint;
      cost_micro: bigint;
      reserved_micro: bigint;
      is_closed: boolean;
      market_id: string;
      token_id: string;
      status: string;
    }>(
      `SELECT p.quantity_micro, p.cost_micro, p.reserved_micro, p.is_closed, p.market_id, p.token_id, m.status
       FROM positions p JOIN markets m ON m.id = p.market_id WHERE p.id = $1 AND p.user_id = $2 FOR UPDATE OF p`,
      [positionId, userId],
    );
    const pos = rows[0];
    if (!pos) throw new AppError('NOT_FOUND', `Position ${positionId} not found.`, { hint: 'List your positions with get_portfolio.' });
    if (pos.is_closed) throw positionClosed();
    if (pos.status !== 'active') throw marketClosed(pos.status);
    const reserved = pos.reserved_micro - releaseMicro;
    if (reserved < 0n) throw new Error(`position ${positionId} reserves ${pos.reserved_micro}, cannot release ${releaseMicro}`);
    const want = wanted ?? pos.quantity_micro;
    if (want <= 0n) throw new AppError('VALIDATION_ERROR', 'quantity must be greater than 0.');
    if (want > pos.quantity_micro) {
      throw new AppError('VALIDATION_ERROR', `quantity ${fromMicro(want)} exceeds the ${fromMicro(pos.quantity_micro)} shares held.`, {
        hint: 'Omit quantity to sell the whole position.',
      });
    }
    if (want > pos.quantity_micro - reserved) {
      throw new AppError('VALIDATION_ERROR', `quantity ${fromMicro(want)} exceeds the ${fromMicro(pos.quantity_micro - reserved)} shares available.`, {
        hint: `${fromMicro(reserved)} shares are reserved by resting sell orders; cancel them with cancel_order or sell fewer.`,
      });
    }
    const fill = sellFill({ quantityMicro: pos.quantity_micro, costMicro: pos.cost_micro }, want, bidMicro);
    const out = await tx.query<{ balance_micro: bigint }>(
      `WITH upd AS (
         UPDATE positions SET quantity_micro = quantity_micro - $3, cost_micro = cost_micro - $4, sold_micro = sold_micro + $3,
           realized_pnl_micro = realized_pnl_micro + $5, is_closed = $6, closed_at = CASE WHEN $6 THEN $7::timestamptz END, updated_at = $7,
           reserved_micro = reserved_micro - $13
         WHERE id = $2 RETURNING id
       ), credit AS (
         UPDATE users SET balance_micro = balance_micro + $8, last_active_at = $7 WHERE id = $1 AND EXISTS (SELECT 1 FROM upd) RETURNING balance_micro
       ), entry AS (
         INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at) SELECT $1, 'sell', $8, $9::text, $7 FROM credit
       ), journal AS (
         INSERT INTO trades (id, user_id, position_id, market_id, token_id, side, quantity_micro, price_micro, cash_micro, realized_pnl_micro, created_at)
         SELECT $9::uuid, $1, $2, $10, $11, 'SELL', $3, $12, $8, $5, $7 FROM credit
       )
       SELECT balance_micro FROM credit`,
      [
        userId,
        positionId,
        fill.quantityMicro.toString(),
        fill.costRemovedMicro.toString(),
        fill.realizedPnlMicro.toString(),
        fill.closes,
        now,
        fill.proceedsMicro.toString(),
        randomUUID(),
        pos.market_id,
        pos.token_id,
        fill.priceMicro.toString(),
        releaseMicro.toString(),
      ],
    );
    const result: SellResult = {
      success: true,
      quantitySold: fromMicro(fill.quantityMicro),
      price: fromMicro(fill.priceMicro),
      proceeds: fromMicro(fill.proceedsMicro),
      realizedPnl: fromMicro(fill.realizedPnlMicro),
      positionId,
      isClosed: fill.closes,
      balance: fromMicro(out[0]!.balance_micro),
    };
    await this.hooks.afterTrade(tx, {
      userId,
      side: 'SELL',
      marketId: pos.market_id,
      tokenId: pos.token_id,
      quantityMicro: fill.quantityMicro,
      cashMicro: fill.proceedsMicro,
      realizedPnlMicro: fill.realizedPnlMicro,
      priceMicro: fill.priceMicro,
      positionId,
      at: now,
    });
    return { result, fill };
  }

  /** What a buy of `amount` dollars or a sell of `quantity` shares would fill at now; changes nothing. */
  async quote(input: { side: 'BUY' | 'SELL'; tokenId: string; amount?: number; quantity?: number }) {
    const token = await this.tokenOf(input.tokenId, true); // fresh: the quote reports the market's status
    if (!token) throw new AppError('NOT_FOUND', `Token ${input.tokenId} not found.`, { hint: 'Use outcomeTokens[].tokenId from search_prediction_markets.' });
    const price = await this.prices.live(input.tokenId);
    const base = {
      side: input.side,
      tokenId: input.tokenId,
      marketId: token.market_id,
      outcome: token.outcome,
      marketStatus: token.status ?? 'active',
      priceAsOf: price.asOf.toISOString(),
      source: price.source,
    };
    if (input.side === 'BUY') {
      if (input.amount === undefined) throw new AppError('VALIDATION_ERROR', 'amount is required for a BUY quote.');
      const fill = buyFill(toMicro(input.amount), price.askMicro);
      return { ...base, price: fromMicro(fill.priceMicro), quantity: fromMicro(fill.quantityMicro), amount: fromMicro(fill.costMicro) };
    }
    if (input.quantity === undefined) throw new AppError('VALIDATION_ERROR', 'quantity is required for a SELL quote.');
    const q = toMicro(input.quantity);
    const proceeds = sellFill({ quantityMicro: q, costMicro: 0n }, q, price.bidMicro).proceedsMicro;
    return { ...base, price: fromMicro(price.bidMicro), quantity: fromMicro(q), amount: fromMicro(proceeds) };
  }

  async portfolio(userId: string) {
    const [rows, bal] = await Promise.all([
      this.db.query<{
        id: string;
        market_id: string;
        token_id: string;
        outcome: 'YES' | 'NO';
        quantity_micro: bigint;
        cost_micro: bigint;
        bought_micro: bigint;
        realized_pnl_micro: bigint;
        is_closed: boolean;
        created_at: Date;
        closed_at: Date | null;
        question: string;
        slug: string;
        price_micro: bigint | null;
        label: string | null;
      }>(
        // A position is in a mirrored market or in a community market (marked at its market maker's price).
        `SELECT p.id, p.market_id, p.token_id, p.outcome, p.quantity_micro, p.cost_micro, p.bought_micro, p.realized_pnl_micro, p.is_closed,
                p.created_at, p.closed_at, coalesce(m.question, c.question) AS question, coalesce(m.slug, c.slug) AS slug,
                coalesce(t.price_micro, o.price_micro) AS price_micro, o.label
         FROM positions p LEFT JOIN markets m ON m.id = p.market_id LEFT JOIN market_tokens t ON t.token_id = p.token_id
           LEFT JOIN community_outcomes o ON o.token_id = p.token_id AND t.token_id IS NULL
           LEFT JOIN community_markets c ON c.id = o.market_id
         WHERE p.user_id = $1 ORDER BY p.created_at DESC, p.id DESC`,
        [userId],
      ),
      this.db.query<{ balance_micro: bigint }>('SELECT balance_micro FROM users WHERE id = $1', [userId]),
    ]);
    let marketValue = 0n;
    let unrealized = 0n;
    let realized = 0n;
    const positions = rows.map((r) => {
      realized += r.realized_pnl_micro;
      const open = !r.is_closed;
      const mark = r.price_micro;
      const value = open && mark !== null ? (r.quantity_micro * mark) / MICRO : null;
      const upnl = value !== null ? value - r.cost_micro : null;
      if (value !== null) marketValue += value;
      if (upnl !== null) unrealized += upnl;
      return {
        id: r.id,
        marketId: r.market_id,
        marketSlug: r.slug,
        question: r.question,
        tokenId: r.token_id,
        outcome: r.outcome,
        ...(r.label !== null ? { outcomeLabel: r.label } : {}),
        quantity: fromMicro(r.quantity_micro),
        avgPrice: fromMicro(open ? avgPriceMicro({ quantityMicro: r.quantity_micro, costMicro: r.cost_micro }) : 0n),
        isClosed: r.is_closed,
        realizedPnl: fromMicro(r.realized_pnl_micro),
        createdAt: new Date(r.created_at).toISOString(),
        closedAt: r.closed_at ? new Date(r.closed_at).toISOString() : null,
        currentPrice: open && mark !== null ? fromMicro(mark) : null,
        marketValue: value !== null ? fromMicro(value) : null,
        unrealizedPnl: upnl !== null ? fromMicro(upnl) : null,
      };
    });
    const cash = bal[0]?.balance_micro ?? 0n;
    return {
      positions,
      balance: fromMicro(cash),
      totals: {
        cash: fromMicro(cash),
        marketValue: fromMicro(marketValue),
        equity: fromMicro(cash + marketValue),
        realizedPnl: fromMicro(realized),
        unrealizedPnl: fromMicro(unrealized),
      },
    };
  }

  /**
   * A token's market, that market's slug and the token's outcome: facts that do not change, so they are
   * remembered (bounded) and a buy skips a round trip. The market's status does change: on a remembered
   * token it is left to the buy statement, which trades only an active market.
   */
  private async tokenOf(tokenId: string, fresh = false): Promise<TokenFacts | undefined> {
    const known = fresh ? undefined : this.tokens.get(tokenId);
    if (known) return { ...known, cached: true };
    const rows = await this.db.query<TokenRow>(
      'SELECT t.market_id, m.slug, m.status, t.outcome FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE t.token_id = $1',
      [tokenId],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (this.tokens.size >= TOKEN_CACHE_SIZE) this.tokens.clear();
    this.tokens.set(tokenId, { market_id: row.market_id, slug: row.slug, outcome: row.outcome });
    return { ...row, cached: false };
  }

  private matches(token: TokenFacts, order: BuyOrder): boolean {
    return token.market_id === order.marketId && token.slug === order.marketSlug && token.outcome === order.outcome;
  }

  private async refuseIfClosed(marketId: string, q: Queryable = this.db): Promise<void> {
    const rows = await q.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [marketId]);
    if (rows[0] && rows[0].status !== 'active') throw marketClosed(rows[0].status);
  }
}

export function positionClosed(): AppError {
  return new AppError('POSITION_CLOSED', 'This position is already closed.', { hint: 'List open positions with get_portfolio.' });
}

export type { Micro };
