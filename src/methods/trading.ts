import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { Balance, Dollars, Probability, QuoteSize, SaleResult, ShareQuantity, SpendAmount, DeprecatedTradeForecast, TradeProbability } from './common-schemas';
import { communityBuy, tradeIntent } from './trade-forecast';
import { isCommunityToken } from '../domain/community/community-trading-service';
import { aliased } from './aliases';
import { BatchError, itemError } from './orders';
import { HISTORY_PERIODS, HISTORY_TIMEFRAMES } from '../domain/portfolio/history-rules';

const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Optional idempotency key (JSON-RPC and MCP; on REST send the Idempotency-Key header). A retry with the same key and body returns the original result and never trades twice; kept 24 hours.',
  );

const Outcome = z.enum(['YES', 'NO']).describe('Side: YES or NO.');

const MONEY_NOTE =
  "Amounts and shares are exact to 6 decimals (micro-units); a buy by amount receives the shares each level's price allows, floored (floor(amount / price) at one level), sale proceeds round half up.";

export const paperTrade = defineMethod({
  name: 'paper_trade',
  toolset: 'trading',
  defaultTool: true,
  area: 'Trading',
  summary: 'Buy shares of an outcome at the live price',
  brief:
    "Buys YES or NO shares of a market, walking the venue's asks from the best, sized by amount (dollars) or shares, paid from available cash. Preview with quote_trade. Counts against the trade rate limit.",
  description:
    "Buys the YES or NO token of a market, opening or adding to your position: the order walks the venue's asks (get_order_book) " +
    'level by level, and price is the average of the levels taken. Sized by amount (dollars to spend, fee included) or shares ' +
    '(costing shares × price plus the fee), paid from available cash (get_balance). What you took of a book snapshot stays taken ' +
    'for you, so split orders price no better; more than the book shows is refused. ' +
    `${MONEY_NOTE} Get the market's ids and outcomeTokens[].tokenId from search_prediction_markets; quote_trade shows the price, slippage and fee first. ` +
    "A community market's outcome (its id, slug and outcomeTokens[].tokenId from get_community_market, outcome YES) buys from its market maker. " +
    'Errors: INSUFFICIENT_BALANCE, INSUFFICIENT_DEPTH, MARKET_CLOSED, VALIDATION_ERROR (400); NOT_FOUND (404); PRICE_UNAVAILABLE (503, nothing traded); RATE_LIMITED.',
  auth: 'key',
  limit: 'trade',
  idempotent: true,
  input: z
    .object({
      marketId: z.string().min(1).max(200).describe('Market.id.'),
      marketSlug: z.string().min(1).max(300).describe('Market.slug; must match marketId.'),
      tokenId: z.string().min(1).max(200).describe('outcomeTokens[].tokenId of the market, matching outcome.'),
      outcome: Outcome,
      amount: SpendAmount.optional().describe('Dollars to spend, at most 6 decimals. Send amount or shares, exactly one.'),
      shares: ShareQuantity.optional().describe(
        'Shares to buy, at most 6 decimals; their cost (shares × live ask) at most 1,000,000. Send amount or shares, exactly one.',
      ),
      probability: TradeProbability,
      forecast: DeprecatedTradeForecast,
      idempotencyKey: IdempotencyKey,
    })
    .refine((v) => (v.amount === undefined) !== (v.shares === undefined), {
      path: ['amount'],
      message: 'send exactly one of amount (dollars to spend) or shares (shares to buy)',
    }),
  output: z.object({
    success: z.boolean().describe('True when the trade executed.'),
    quantity: z.number().describe('Shares bought.'),
    price: Probability.describe('Fill price per share: the volume-weighted average of the ask levels taken.'),
    totalCost: Dollars.describe("Dollars spent (equals amount), the venue's fee included."),
    positionId: z.string().describe('The position opened or extended; sell it with sell_position.'),
    balance: Balance.describe('Your balance after the trade.'),
  }),
  rest: { method: 'POST', path: '/api/trade' },
  annotations: { title: 'Paper trade (buy)', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['INSUFFICIENT_BALANCE', 'INSUFFICIENT_DEPTH', 'MARKET_CLOSED', 'NOT_FOUND', 'CONFLICT', 'PRICE_UNAVAILABLE', 'RATE_LIMITED'],
  examples: [
    {
      input: {
        marketId: 'sim-0001',
        marketSlug: 'will-it-rain-in-london-tomorrow',
        tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
        outcome: 'YES',
        amount: 50,
      },
      output: { success: true, quantity: 80.645161, price: 0.62, totalCost: 50, positionId: '2b0c8f7e-4a55-4c1e-9d5b-0d7a1e3f6c21', balance: 950 },
    },
  ],
  handler: async (ctx, input) => {
    // A community market's outcome token: its pool is the venue (buy_community_shares is the deprecated alias of this).
    if (isCommunityToken(input.tokenId)) {
      const { marketId, marketSlug, tokenId, outcome, amount, shares } = input;
      const probability = aliased('probability', input.probability, 'forecast', input.forecast);
      const buy = communityBuy(ctx, 'paper_trade', tokenId, probability === undefined ? undefined : { probability });
      const done = await ctx.services.communityTrading.buy(
        buy.userId,
        { tokenId, ...(amount !== undefined ? { amount } : { shares: shares! }), market: { id: marketId, slug: marketSlug, outcome } },
        buy.now,
        buy.then,
        await buy.forecast,
      );
      return {
        success: done.success,
        quantity: done.quantity,
        price: done.price,
        totalCost: done.totalCost,
        positionId: done.positionId,
        balance: done.balance,
      };
    }
    const trade = tradeIntent(ctx, 'paper_trade', input, input.marketId);
    return ctx.services.trading.buy(trade.userId, trade.order, trade.now, trade.then, await trade.forecast);
  },
});

const Position = z.object({
  id: z.string().describe('Position ID; used by sell_position.'),
  marketId: z.string().describe('Market ID.'),
  marketSlug: z.string().describe('Market slug.'),
  question: z.string().describe('The market question.'),
  tokenId: z.string().describe('Token held.'),
  outcome: Outcome.describe('YES or NO. A community market share is a YES share of its outcome label (it pays 1 if that label wins).'),
  outcomeLabel: z.string().optional().describe('For a community market position: the outcome label held (absent for mirrored markets).'),
  quantity: z.number().min(0).describe('Shares held (0 once closed).'),
  avgPrice: Probability.describe('Average entry price of the shares held (0 once closed).'),
  isClosed: z.boolean().describe('True once fully sold or settled at resolution.'),
  realizedPnl: Dollars.describe('Realized profit and loss of this position so far.'),
  createdAt: z.iso.datetime().describe('When the position opened.'),
  closedAt: z.iso.datetime().nullable().describe('When it closed, or null.'),
  currentPrice: Probability.nullable().describe('Mark price (last mirrored mid) of an open position; null when closed.'),
  marketValue: Dollars.nullable().describe('quantity × currentPrice for an open position; null when closed.'),
  unrealizedPnl: Dollars.nullable().describe('marketValue − cost basis for an open position; null when closed.'),
});

export const getPortfolio = defineMethod({
  name: 'get_portfolio',
  toolset: 'portfolio',
  defaultTool: true,
  area: 'Trading',
  summary: 'List your positions, balance and totals',
  brief:
    'All your positions, newest first, open ones marked at the last mid (market value, unrealized PnL), with your cash and totals (equity, realized and unrealized PnL). Free.',
  description:
    'All your open and closed positions, newest first, with mark price, market value and unrealized PnL of open ones (marked at the last ' +
    'mirrored mid price), plus your cash balance and totals (cash, market value, equity, realized and unrealized PnL). Free to call.',
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    positions: z.array(Position).describe('Positions, newest first.'),
    balance: Balance,
    totals: z
      .object({
        cash: Dollars.describe('Cash balance.'),
        marketValue: Dollars.describe('Sum of open positions marked at the current price (a community position at its market maker’s price).'),
        poolFunding: Dollars.describe(
          'What your funding of the community markets you created is worth until they settle: each pool’s cash less its holders’ shares at the pool price (what returns to you if prices hold); 0 when you created none.',
        ),
        equity: Dollars.describe('cash + marketValue + poolFunding.'),
        realizedPnl: Dollars.describe('Realized PnL over all positions.'),
        unrealizedPnl: Dollars.describe('Unrealized PnL of open positions.'),
      })
      .describe('Portfolio totals.'),
  }),
  rest: { method: 'GET', path: '/api/positions' },
  annotations: { title: 'Portfolio', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx) => ctx.services.trading.portfolio(requirePrincipal(ctx).userId),
});

export const getPortfolioHistory = defineMethod({
  name: 'get_portfolio_history',
  toolset: 'portfolio',
  area: 'Trading',
  summary: 'Your equity, cash and positions value over time (the equity curve)',
  brief:
    'Your equity curve: equity, cash and positionsValue over period 1d, 1w (default), 1m or all, hourly or daily points, with profitLoss against the first point. Free.',
  description:
    'Your equity (cash + positionsValue, marked as get_portfolio marks them, community positions and the funding of your own community markets included), cash and positionsValue over a period ending now, with ' +
    'profitLoss and profitLossPct against the first point. period 1d, 1w (default), 1m or all; timeframe 1h or 1d between points ' +
    '(default 1h up to 1w, else 1d; 1h is not served for all). Points are hourly snapshots; the last is live. Free to call. ' +
    'Errors: VALIDATION_ERROR (400).',
  auth: 'key',
  limit: 'api',
  input: z.object({
    period: z.enum(HISTORY_PERIODS).default('1w').describe('1d, 1w (default), 1m or all.'),
    timeframe: z.enum(HISTORY_TIMEFRAMES).optional().describe('1h or 1d between points; default 1h for 1d and 1w, 1d for 1m and all.'),
  }),
  output: z.object({
    period: z.enum(HISTORY_PERIODS).describe('The period served.'),
    timeframe: z.enum(HISTORY_TIMEFRAMES).describe('The spacing of the points served.'),
    baseValue: Dollars.describe('Equity of the first point: what profitLoss is measured against.'),
    points: z
      .array(
        z
          .object({
            time: z.iso.datetime().describe('When the account stood so: the snapshot hour (UTC), or now for the live point.'),
            equity: Dollars.describe('cash + positionsValue: get_portfolio’s equity at that time.'),
            cash: Dollars.describe('Cash balance.'),
            positionsValue: Dollars.describe(
              'Open positions marked as get_portfolio marks them (mirrored mid, community market maker price) plus poolFunding, the unsettled funding of community markets you created.',
            ),
            profitLoss: Dollars.describe('equity − baseValue.'),
            profitLossPct: z.number().nullable().describe('profitLoss / baseValue as a fraction (0.05 = +5 %), 6 decimals; null when baseValue is 0.'),
            live: z.boolean().describe('True for the last point, computed at request time; false for stored hourly snapshots.'),
          })
          .describe('The account at one time.'),
      )
      .min(1)
      .describe('Oldest first; the last one is live.'),
  }),
  rest: { method: 'GET', path: '/api/portfolio/history' },
  annotations: { title: 'Portfolio history', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: { period: '1d', timeframe: '1h' },
      output: {
        period: '1d',
        timeframe: '1h',
        baseValue: 1000,
        points: [
          { time: '2026-11-22T09:00:00.000Z', equity: 1000, cash: 1000, positionsValue: 0, profitLoss: 0, profitLossPct: 0, live: false },
          {
            time: '2026-11-22T10:00:00.000Z',
            equity: 1004.032258,
            cash: 950,
            positionsValue: 54.032258,
            profitLoss: 4.032258,
            profitLossPct: 0.004032,
            live: false,
          },
          {
            time: '2026-11-22T10:25:13.000Z',
            equity: 1002.41935,
            cash: 950,
            positionsValue: 52.41935,
            profitLoss: 2.41935,
            profitLossPct: 0.002419,
            live: true,
          },
        ],
      },
    },
  ],
  handler: async (ctx, input) => ctx.services.portfolioHistory.history(requirePrincipal(ctx).userId, input, ctx.clock.now()),
});

export const sellPosition = defineMethod({
  name: 'sell_position',
  toolset: 'trading',
  defaultTool: true,
  area: 'Trading',
  summary: 'Sell all or part of a position at the live price',
  brief:
    "Sells shares of one of your positions (any venue's) walking the bids from the best (omit quantity to close it); returns realizedPnl. Shares reserved by resting sell orders cannot be sold.",
  description:
    "Sells `quantity` shares of one of your positions (omit quantity to close it), walking the venue's bids; price is their average, " +
    "the proceeds credited are after the venue's fee (a community " +
    'position sells to its market maker); realizedPnl = proceeds − cost basis of the shares sold. Shares reserved by resting sell orders ' +
    `cannot be sold. ${MONEY_NOTE} Errors: VALIDATION_ERROR, POSITION_CLOSED, MARKET_CLOSED, INSUFFICIENT_DEPTH (400); NOT_FOUND (404); ` +
    'PRICE_UNAVAILABLE (503, nothing sold); RATE_LIMITED.',
  auth: 'key',
  limit: 'sell',
  idempotent: true,
  input: z.object({
    id: z.string().min(1).max(100).describe('Position.id, from get_portfolio.'),
    quantity: ShareQuantity.optional().describe('Shares to sell, at most 6 decimals; omit to sell all.'),
    idempotencyKey: IdempotencyKey,
  }),
  output: z.object({
    success: z.boolean().describe('True when the sale executed.'),
    quantitySold: z.number().describe('Shares sold.'),
    price: Probability.describe('Fill price per share: the volume-weighted average of the bid levels taken.'),
    ...SaleResult,
  }),
  rest: { method: 'POST', path: '/api/positions/:id/sell' },
  annotations: { title: 'Sell a position', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['POSITION_CLOSED', 'MARKET_CLOSED', 'INSUFFICIENT_DEPTH', 'NOT_FOUND', 'CONFLICT', 'PRICE_UNAVAILABLE', 'RATE_LIMITED'],
  examples: [
    {
      input: { id: '2b0c8f7e-4a55-4c1e-9d5b-0d7a1e3f6c21', quantity: 40 },
      output: {
        success: true,
        quantitySold: 40,
        price: 0.65,
        proceeds: 26,
        realizedPnl: 1.2,
        positionId: '2b0c8f7e-4a55-4c1e-9d5b-0d7a1e3f6c21',
        isClosed: false,
        balance: 976,
      },
    },
  ],
  handler: async (ctx, input) => {
    const userId = requirePrincipal(ctx).userId;
    // A community market position sells back to its market maker (sell_community_shares adds a price limit).
    if (await ctx.services.communityTrading.holds(userId, input.id))
      return ctx.services.communityTrading.sell(userId, input.id, input.quantity, undefined, ctx.clock.now(), ctx.idempotency?.complete, 'position');
    return ctx.services.trading.sell(userId, input.id, input.quantity, ctx.clock.now(), ctx.idempotency?.complete);
  },
});

const ClosedAbout = {
  positionId: z.string().describe('Position.id.'),
  marketId: z.string().describe('Its market.'),
  tokenId: z.string().describe('Token held.'),
  outcome: Outcome,
};

export const closePosition = defineMethod({
  name: 'close_position',
  toolset: 'trading',
  area: 'Trading',
  summary: "Close all your open positions, or one market's, at the market (each result on its own)",
  brief:
    "Sells every open position at the live bid, or only one market's (marketId), each on its own; cancels resting sells on what it closes. results[i] is { ok: true, ... } or { ok: false, error }. One sell call of the rate limit per position.",
  description:
    'Sells every share of your open positions at the live bid, or only those in one market (marketId: id or slug). Resting sell orders ' +
    'on a closed position are cancelled with it (cancelledOrders); resting buys stay. Each position on its own: one refused does not stop ' +
    'the others; results[i] is { ok: true, ...sale } or { ok: false, error: { code, error } }. One sell call of the rate limit per ' +
    'position. Errors: NOT_FOUND (404); RATE_LIMITED.',
  auth: 'key',
  limit: 'sell',
  input: z.object({
    marketId: z.string().min(1).max(300).optional().describe("Only this market's positions (id or slug); omit for all."),
  }),
  output: z.object({
    results: z
      .array(
        z
          .discriminatedUnion('ok', [
            z
              .object({
                ok: z.literal(true).describe('Closed.'),
                ...ClosedAbout,
                quantitySold: z.number().describe('Shares sold: the whole holding.'),
                price: Probability.describe('Fill price per share (the live bid, or the average of a community sale).'),
                proceeds: SaleResult.proceeds,
                realizedPnl: SaleResult.realizedPnl,
                balance: SaleResult.balance,
                cancelledOrders: z.array(z.string()).describe('IDs of your resting sell orders on it that were cancelled to close it.'),
              })
              .describe('A position closed.'),
            z.object({ ok: z.literal(false).describe('Not closed.'), ...ClosedAbout, error: BatchError }).describe('A position left open, unchanged.'),
          ])
          .describe('One position.'),
      )
      .describe('One result per open position, oldest first.'),
    count: z.number().int().min(0).describe('How many positions this call closed.'),
  }),
  rest: { method: 'POST', path: '/api/positions/close' },
  annotations: { title: 'Close positions', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  errors: ['NOT_FOUND', 'RATE_LIMITED'],
  examples: [
    {
      input: { marketId: 'sim-0001' },
      output: {
        results: [
          {
            ok: true,
            positionId: '2b0c8f7e-4a55-4c1e-9d5b-0d7a1e3f6c21',
            marketId: 'sim-0001',
            tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
            outcome: 'YES',
            quantitySold: 80.645161,
            price: 0.65,
            proceeds: 52.419355,
            realizedPnl: 2.419355,
            balance: 1002.419355,
            cancelledOrders: [],
          },
        ],
        count: 1,
      },
    },
  ],
  handler: async (ctx, input) => {
    const userId = requirePrincipal(ctx).userId;
    const now = ctx.clock.now();
    const results = [];
    for (const [i, p] of (await ctx.services.trading.openPositions(userId, input.marketId)).entries()) {
      const about = { positionId: p.id, marketId: p.marketId, tokenId: p.tokenId, outcome: p.outcome };
      try {
        // The call itself paid for the first position; each further one pays its own.
        if (i > 0) await ctx.services.limiter.consume('sell', `user:${userId}`, ctx.call.ip);
        const sale = p.community
          ? { ...(await ctx.services.communityTrading.sell(userId, p.id, undefined, undefined, now, undefined, 'position')), cancelledOrders: [] }
          : await ctx.services.trading.close(userId, p.id, now);
        const { quantitySold, price, proceeds, realizedPnl, balance, cancelledOrders } = sale;
        results.push({ ok: true as const, ...about, quantitySold, price, proceeds, realizedPnl, balance, cancelledOrders });
      } catch (err) {
        results.push({ ok: false as const, ...about, error: itemError(ctx, err, 'closing a position failed', { positionId: p.id }) });
      }
    }
    return { results, count: results.filter((r) => r.ok).length };
  },
});

export const quoteTrade = defineMethod({
  name: 'quote_trade',
  toolset: 'trading',
  defaultTool: true,
  area: 'Trading',
  summary: 'Preview a buy or sell at the live price (changes nothing)',
  brief:
    "Previews a BUY of amount dollars or a SELL of shares of a token walking the venue's book: average price, shares, dollars, worst level, slippage, fee and price age. Changes nothing; free.",
  description:
    "What a BUY of `amount` dollars or a SELL of `shares` shares would fill at now, walking the venue's book as paper_trade and " +
    'sell_position do: price (the average of the levels taken), shares, dollars (fee included), best and worst level, slippage, fee ' +
    'and price age. With your key, what you already took of this book snapshot is left out. A community market outcome token ' +
    "(cm-…) is quoted on its market maker: price is the fill's average, bestPrice the price now, worstPrice the price after, no fee. Read-only and free. " +
    'Errors: NOT_FOUND (unknown token), INSUFFICIENT_DEPTH (400, the book shows less; the message says how much), PRICE_UNAVAILABLE (503).',
  auth: 'optional',
  limit: 'api',
  input: z.object({
    ...QuoteSize,
    tokenId: z.string().min(1).max(200).describe('Token to quote.'),
  }),
  output: z.object({
    side: z.enum(['BUY', 'SELL']).describe('The side quoted.'),
    tokenId: z.string().describe('The token quoted.'),
    marketId: z.string().describe('Its market.'),
    outcome: Outcome,
    outcomeLabel: z.string().optional().describe("A community market's outcome label; absent for mirrored markets."),
    marketStatus: z.string().describe('active, closed or resolved; only active markets trade.'),
    price: Probability.describe('Fill price per share right now.'),
    shares: z.number().describe('Shares bought (BUY) or sold (SELL).'),
    quantity: z.number().meta({ deprecated: true }).describe('Deprecated (read shares): shares bought (BUY) or sold (SELL).'),
    amount: Dollars.describe('Dollars spent, fee included (BUY), or received after the fee (SELL).'),
    priceAsOf: z.iso.datetime().describe('When the venue quoted this price.'),
    source: z.string().describe("Price source: simulated, polymarket (mirrored on a delay), or community (a community market's market maker)."),
    bestPrice: Probability.describe('The best level walked: the ask (BUY) or bid (SELL).'),
    worstPrice: Probability.describe('The worst level reached.'),
    slippage: z.number().min(0).describe('|price − bestPrice|, against you.'),
    fee: Dollars.describe("The venue's fee in dollars, within amount: feeRateBps × min(p, 1 − p) a share, rounded up."),
    feeRateBps: z.number().int().min(0).describe("The venue's fee rate in basis points."),
    levels: z
      .array(z.object({ price: Probability.describe('The level price.'), shares: z.number().describe('Shares taken at it.') }))
      .describe('The book levels the order takes, best first.'),
  }),
  rest: { method: 'POST', path: '/api/trade/quote' },
  annotations: { title: 'Quote a trade', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  errors: ['NOT_FOUND', 'INSUFFICIENT_DEPTH', 'PRICE_UNAVAILABLE'],
  handler: async (ctx, input) => {
    const { shares, quantity, ...rest } = input;
    const sized = { ...rest, quantity: aliased('shares', shares, 'quantity', quantity) };
    // A community market's outcome token is quoted on its pool (quote_community_trade is the deprecated alias of this).
    if (isCommunityToken(input.tokenId)) {
      const q = await ctx.services.communityTrading.quote(sized);
      return {
        side: q.side,
        tokenId: q.tokenId,
        marketId: q.marketId,
        outcome: 'YES' as const,
        outcomeLabel: q.outcome,
        marketStatus: q.marketStatus,
        price: q.averagePrice,
        shares: q.quantity,
        quantity: q.quantity,
        amount: q.amount,
        priceAsOf: ctx.clock.now().toISOString(),
        source: 'community',
        bestPrice: q.priceBefore,
        worstPrice: q.priceAfter,
        slippage: Math.round(Math.abs(q.averagePrice - q.priceBefore) * 1e6) / 1e6,
        fee: 0,
        feeRateBps: 0,
        levels: q.quantity > 0 ? [{ price: q.averagePrice, shares: q.quantity }] : [],
      };
    }
    const q = await ctx.services.trading.quote(sized, ctx.principal?.userId);
    return { ...q, shares: q.quantity };
  },
});

export const listTrades = defineMethod({
  name: 'list_trades',
  toolset: 'portfolio',
  area: 'Trading',
  summary: 'Your trade history: buys, sells and settlements, newest first',
  brief:
    'Your fills, newest first: buys, sells and settlements, each with market, outcome, shares, price, cash and realizedPnl. Filter by marketId; pass nextCursor as cursor for the next page. Free.',
  description:
    'Your own fills, newest first, a page at a time: buys (cash = dollars spent), sells (cash = proceeds) and settlements (cash = payout: ' +
    '1 per winning share, 0.5 per share of a voided market), each with market, token, outcome, shares, price and realizedPnl (null on ' +
    'buys). Filter by marketId; pass nextCursor as cursor for the next page (null: the last). Free to call. Errors: VALIDATION_ERROR (400).',
  auth: 'key',
  limit: 'api',
  input: z.object({
    limit: z.number().int().min(1).max(100).default(50).describe('Trades per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
    marketId: z.string().min(1).max(200).optional().describe('Only trades in this market (Market.id).'),
  }),
  output: z.object({
    trades: z
      .array(
        z
          .object({
            id: z.string().describe('Trade ID.'),
            kind: z.enum(['buy', 'sell', 'settlement']).describe('buy, sell, or settlement (the position paid out when its market resolved).'),
            marketId: z.string().describe('Market ID.'),
            marketSlug: z.string().describe('Market slug.'),
            question: z.string().describe('The market question.'),
            tokenId: z.string().describe('Token traded.'),
            outcome: Outcome,
            shares: z.number().min(0).describe('Shares bought, sold or settled.'),
            quantity: z.number().min(0).meta({ deprecated: true }).describe('Deprecated (read shares): shares bought, sold or settled.'),
            price: Probability.describe('Price per share: the fill price, or the settlement value (1 won, 0 lost, 0.5 void).'),
            cash: z.number().min(0).describe('Dollars moved: the cost of a buy, the proceeds of a sale, the payout of a settlement.'),
            amount: z.number().min(0).meta({ deprecated: true }).describe('Deprecated (read cash): dollars moved by the fill.'),
            realizedPnl: Dollars.nullable().describe('Profit or loss this sale or settlement realized; null on buys.'),
            createdAt: z.iso.datetime().describe('When it happened.'),
          })
          .describe('One fill.'),
      )
      .describe('This page of trades, newest first.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/trades' },
  annotations: { title: 'Trade history', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: { limit: 2 },
      output: {
        trades: [
          {
            id: '9d2f7c1a-0b3e-4f6a-8c5d-1e2f3a4b5c6d',
            kind: 'sell',
            marketId: 'sim-0001',
            marketSlug: 'will-it-rain-in-london-tomorrow',
            question: 'Will it rain in London tomorrow?',
            tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
            outcome: 'YES',
            shares: 40,
            quantity: 40,
            price: 0.65,
            cash: 26,
            amount: 26,
            realizedPnl: 1.2,
            createdAt: '2026-11-22T10:05:00.000Z',
          },
          {
            id: '4c8e1b2a-7d6f-4a5e-9b3c-2d1e0f9a8b7c',
            kind: 'buy',
            marketId: 'sim-0001',
            marketSlug: 'will-it-rain-in-london-tomorrow',
            question: 'Will it rain in London tomorrow?',
            tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
            outcome: 'YES',
            shares: 80.645161,
            quantity: 80.645161,
            price: 0.62,
            cash: 50,
            amount: 50,
            realizedPnl: null,
            createdAt: '2026-11-22T10:00:00.000Z',
          },
        ],
        nextCursor: 'eyJzIjoibmV3ZXN0IiwiayI6IjIwMjYtMTEtMjIgMTA6MDA6MDArMDAiLCJpIjoiNGM4ZTFiMmEtN2Q2Zi00YTVlLTliM2MtMmQxZTBmOWE4YjdjIn0',
      },
    },
  ],
  handler: async (ctx, input) => {
    const page = await ctx.services.tradeHistory.list(requirePrincipal(ctx).userId, input);
    return { ...page, trades: page.trades.map((t) => ({ ...t, shares: t.quantity, cash: t.amount })) };
  },
});
