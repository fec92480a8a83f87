import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { fieldsInput } from '../registry/fields';
import { requirePrincipal } from '../registry/context';
import { Balance, Dollars, ForecastProbability, Probability, QuoteSize, SaleResult, ShareQuantity, SpendAmount } from './common-schemas';
import { communityBuy } from './trade-forecast';
import { aliased } from './aliases';
import { LIQUIDITY_DEFAULT, LIQUIDITY_MIN } from '../domain/community/community-market-service';

const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Optional idempotency key (JSON-RPC and MCP; on REST send the Idempotency-Key header). A retry with the same key and body returns the original result and never trades twice; kept 24 hours.',
  );

const OutcomeToken = z.object({
  tokenId: z.string().describe('Token ID of this outcome: what buy_community_shares, quote_community_trade and get_price_history take.'),
  outcome: z.string().describe('The outcome label.'),
  price: Probability.describe("The market maker's current price of one share (pays 1 if this outcome wins); the prices sum to 1."),
  shares: z.number().describe('Shares of this outcome held by traders now (what the market maker owes if it wins).'),
  holders: z.number().int().describe('Accounts holding an open position in this outcome now.'),
});

const CommunityMarket = z.object({
  id: z.string().describe('Community market ID.'),
  slug: z.string().describe('Slug; the market page is /community-markets/{slug}.'),
  question: z.string().describe('The question.'),
  description: z.string().describe('Resolution criteria.'),
  category: z.string().describe('Category.'),
  outcomes: z.array(z.string()).describe('Outcome labels.'),
  endDate: z.iso.datetime().describe('Close date.'),
  status: z.enum(['active', 'resolved']).describe('active or resolved. Trading stops at endDate even while active.'),
  creatorId: z.string().describe('User ID of the creator.'),
  featured: z.boolean().describe('Featured by the operators.'),
  imageUrl: z.string().nullable().describe('Image URL, if any.'),
  resolvedOutcome: z.string().nullable().describe('The winning label once resolved, or VOID.'),
  voidReason: z.string().nullable().describe("The creator's stated reason when they voided it (required to void before endDate); null otherwise."),
  createdAt: z.iso.datetime().describe('When it was created.'),
  outcomeTokens: z
    .array(OutcomeToken)
    .describe("One token per outcome with the market maker's price (empty for a market created before community markets traded)."),
  liquidity: Dollars.nullable().describe('Dollars the creator put into the market maker (its worst-case loss); null when it has none.'),
  poolCash: Dollars.nullable().describe(
    "Dollars the market maker holds now: the creator's liquidity plus what buyers paid, minus what sellers and winners received.",
  ),
  volume: Dollars.describe('Dollars traded so far (buys and sells).'),
  tradeCount: z.number().int().describe('Buys and sells so far.'),
  creatorTrades: z.boolean().describe('True when the creator has traded their own market (they also decide its resolution).'),
  creatorTradesNote: z
    .string()
    .describe(
      "The rule for the creator's own trades, in words: they move money like any trade but never count toward leaderboards, trader stats, XP, badges, challenges or the forecasting record.",
    ),
});

export const listCommunityMarkets = defineMethod({
  name: 'list_community_markets',
  toolset: 'community',
  area: 'Community markets',
  summary: 'List user-created markets',
  brief:
    'Lists user-created markets, newest first, each priced by its own market maker (LMSR) with outcomeTokens[] ids and prices. Filter by category, status, creator, featured. Trade with buy_community_shares. Free.',
  description:
    'Lists community markets (questions created by users, with their own outcome labels), newest first. Filters: category (or all), ' +
    'status (active by default, resolved, all), creator (a user ID), featured; pass nextCursor as cursor, with the same filters, for the next page. Each is priced by its own ' +
    "automated market maker (LMSR): outcomeTokens[] carries every outcome's token id and price; trade them with buy_community_shares. " +
    'fields (e.g. question,outcomeTokens) answers only those fields of each market, and id.',
  auth: 'public',
  limit: 'api',
  input: z.object({
    category: z.string().max(100).optional().describe('A category, or all.'),
    status: z.enum(['active', 'resolved', 'all']).default('active').describe('active (default), resolved or all.'),
    creator: z.string().max(100).optional().describe('Only markets created by this user ID.'),
    featured: z.boolean().default(false).describe('true limits to featured markets.'),
    limit: z.number().int().min(1).max(100).default(50).describe('Markets to return.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page (same filters); omit for the first.'),
    fields: fieldsInput(CommunityMarket),
  }),
  selectsFields: 'markets',
  output: z.object({
    markets: z.array(CommunityMarket).describe('Community markets, newest first.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/user-markets' },
  annotations: { title: 'Community markets', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => ctx.services.community.list(input),
});

export const getCommunityMarket = defineMethod({
  name: 'get_community_market',
  toolset: 'community',
  area: 'Community markets',
  summary: 'One user-created market',
  brief:
    'One community market by slug or id: question, outcome labels with price and token id, liquidity, volume, status and the winner once resolved. The odds read of a community market. Free.',
  description:
    "One community market by its slug (or id): question, outcome labels, the market maker's price and token id of each outcome " +
    '(outcomeTokens), liquidity, volume, whether the creator trades it, status and, once resolved, the winning label or VOID. This is the ' +
    'odds call of a community market. Its page, in HTML or markdown, is /community-markets/{slug}. Unknown → 404 NOT_FOUND.',
  auth: 'public',
  limit: 'api',
  input: z.object({ slug: z.string().min(1).max(200).describe('The community market slug, or its ID.') }),
  output: CommunityMarket,
  rest: { method: 'GET', path: '/api/user-markets/:slug' },
  annotations: { title: 'Community market', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => ctx.services.community.bySlug(input.slug),
});

export const createCommunityMarket = defineMethod({
  name: 'create_community_market',
  toolset: 'community',
  area: 'Community markets',
  summary: 'Create a community market (browser session)',
  brief:
    'Creates a community market you fund: question, 2..10 outcome labels, end date, and liquidity dollars from your cash (at most what its market maker can lose). Browser session only.',
  description:
    'Creates a community market owned by the signed-in person: question 10..200 characters, optional description (resolution criteria, ' +
    'max 1000), category, 2..10 distinct outcome labels of 1..50 characters, a future endDate. The market is priced by an LMSR market ' +
    `maker that you fund: liquidity dollars (default ${LIQUIDITY_DEFAULT}, at least ${LIQUIDITY_MIN}, at most your available cash: balance less what resting buy orders reserve) leave your balance now; ` +
    'that is the most the market maker can lose, and what is left of its cash returns to you when the market settles. Prices start ' +
    'uniform, or at openingProbabilities. Needs a browser session; API keys are not accepted. Errors: INSUFFICIENT_BALANCE, VALIDATION_ERROR.',
  auth: 'session',
  limit: 'api',
  input: z.object({
    question: z.string().trim().min(10).max(200).describe('The question, 10..200 characters.'),
    description: z.string().max(1000).optional().describe('Resolution criteria, at most 1000 characters.'),
    category: z.string().trim().min(1).max(100).describe('Category.'),
    outcomes: z.array(z.string().trim().min(1).max(50)).min(2).max(10).describe('2..10 outcome labels, each 1..50 characters.'),
    endDate: z.iso.datetime({ offset: true }).describe('Close date, ISO 8601, in the future.'),
    imageUrl: z.url().max(2000).optional().describe('Image URL.'),
    liquidity: SpendAmount.min(LIQUIDITY_MIN)
      .optional()
      .describe(
        `Dollars funding the market maker, at least ${LIQUIDITY_MIN}, at most your available cash (balance less what resting buy orders reserve); default ${LIQUIDITY_DEFAULT}.`,
      ),
    openingProbabilities: z
      .array(z.number().min(0.01).max(0.99))
      .min(2)
      .max(10)
      .optional()
      .describe('Opening price of each outcome, in the order of outcomes, each 0.01..0.99, summing to 1; default uniform.'),
  }),
  output: CommunityMarket,
  rest: { method: 'POST', path: '/api/user-markets' },
  annotations: { title: 'Create a community market', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['INSUFFICIENT_BALANCE'],
  handler: async (ctx, input) => ctx.services.community.create(requirePrincipal(ctx).userId, input, ctx.clock.now()),
});

export const resolveCommunityMarket = defineMethod({
  name: 'resolve_community_market',
  toolset: 'community',
  area: 'Community markets',
  summary: 'Resolve your community market (browser session)',
  brief:
    'Resolves your community market to one outcome label, or VOID with a reason (the only choice before its end date); every position settles. Browser session only.',
  description:
    'Resolves a community market you created to one of its outcome labels, or VOID; active → resolved, once. Before its endDate it can only ' +
    'be voided, with a reason (an outcome label then answers 409 CONFLICT, VOID without a reason 400 VALIDATION_ERROR); after endDate any ' +
    'outcome. Every open position then settles: 1 dollar per winning share, 0 per losing share; VOID pays each holder back what their ' +
    'shares cost (their average price). What is left in the market maker returns to you. Your own trades in your market never count toward ' +
    "your track record. Another person's market answers 404; an already resolved one 409 CONFLICT. Needs a browser session.",
  auth: 'session',
  limit: 'api',
  input: z.object({
    id: z.string().min(1).max(100).describe('Community market ID.'),
    outcome: z.string().min(1).max(50).describe("The winning outcome label (one of the market's outcomes), or VOID."),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'Why the market is voided, at most 500 characters: required with VOID before endDate, allowed with VOID only; shown on the market (voidReason).',
      ),
  }),
  output: CommunityMarket,
  rest: { method: 'POST', path: '/api/user-markets/:id/resolve' },
  annotations: { title: 'Resolve a community market', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async (ctx, input) => ctx.services.community.resolve(requirePrincipal(ctx).userId, input.id, input.outcome, ctx.clock.now(), input.reason),
});

const TRADE_NOTE = "The market's LMSR market maker prices every trade (each moves the price); a winning share pays 1 dollar; trading stops at endDate.";

const FillFigures = {
  avgPrice: Probability.describe('Average price per share of this fill (dollars ÷ shares).'),
  averagePrice: Probability.meta({ deprecated: true }).describe('Deprecated (read avgPrice): average price per share of this fill.'),
  priceAfter: Probability.describe("The outcome's price after this fill."),
};

export const quoteCommunityTrade = defineMethod({
  name: 'quote_community_trade',
  deprecated: { use: 'quote_trade' },
  toolset: 'community',
  area: 'Community markets',
  summary: 'Preview a community market buy or sell (changes nothing)',
  brief: 'Previews a community market BUY (amount) or SELL (quantity): shares, dollars, average price. Changes nothing.',
  description:
    `What a BUY of amount dollars or a SELL of quantity shares of a community market outcome would fill at now: shares, dollars, the ` +
    `average price, the price before and after, and the price impact (after − before). ${TRADE_NOTE} Read-only and free. ` +
    "Use the result's avgPrice as maxAvgPrice / minAvgPrice of the trade to be sure of the fill. Errors: NOT_FOUND (unknown token).",
  auth: 'optional',
  limit: 'api',
  input: z.object({
    ...QuoteSize,
    tokenId: z.string().min(1).max(200).describe('Outcome token (outcomeTokens[].tokenId of get_community_market).'),
  }),
  output: z.object({
    side: z.enum(['BUY', 'SELL']).describe('The side quoted.'),
    tokenId: z.string().describe('The token quoted.'),
    marketId: z.string().describe('Its community market.'),
    outcome: z.string().describe('Its outcome label.'),
    marketStatus: z.string().describe('active or resolved.'),
    shares: z.number().describe('Shares bought (BUY) or sold (SELL).'),
    quantity: z.number().meta({ deprecated: true }).describe('Deprecated (read shares): shares bought (BUY) or sold (SELL).'),
    amount: Dollars.describe('Dollars spent (BUY) or received (SELL).'),
    avgPrice: Probability.describe('amount ÷ shares.'),
    averagePrice: Probability.meta({ deprecated: true }).describe('Deprecated (read avgPrice): amount ÷ shares.'),
    priceBefore: Probability.describe("The outcome's price now."),
    priceAfter: Probability.describe("The outcome's price after the fill."),
    priceImpact: z.number().describe('priceAfter − priceBefore.'),
  }),
  rest: { method: 'POST', path: '/api/user-markets/quote' },
  annotations: { title: 'Quote a community market trade', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => {
    const { shares, quantity, ...rest } = input;
    const q = await ctx.services.communityTrading.quote({ ...rest, quantity: aliased('shares', shares, 'quantity', quantity) });
    return { ...q, shares: q.quantity, avgPrice: q.averagePrice };
  },
});

export const buyCommunityShares = defineMethod({
  name: 'buy_community_shares',
  deprecated: { use: 'paper_trade' },
  toolset: 'community',
  area: 'Community markets',
  summary: 'Buy shares of a community market outcome from its market maker',
  brief: 'Buys amount dollars of a community market outcome (by token id) from its market maker.',
  description: `Buys amount dollars of one outcome of a community market (by token id) from its market maker, opening or adding to your position (sell it with sell_community_shares). ${TRADE_NOTE} Optional maxAvgPrice refuses a buy that would average higher (PRICE_LIMIT_EXCEEDED, nothing changed). Errors: INSUFFICIENT_BALANCE, MARKET_CLOSED, PRICE_LIMIT_EXCEEDED, VALIDATION_ERROR (400); NOT_FOUND (404); RATE_LIMITED.`,
  auth: 'key',
  limit: 'trade',
  idempotent: true,
  input: z.object({
    tokenId: z.string().min(1).max(200).describe('Outcome token to buy (outcomeTokens[].tokenId of get_community_market).'),
    amount: SpendAmount.describe('Dollars to spend, at most 6 decimals.'),
    maxAvgPrice: Probability.optional().describe('Refuse the buy if its average price per share would be above this.'),
    maxAveragePrice: Probability.optional()
      .meta({ deprecated: true })
      .describe('Deprecated (send maxAvgPrice): refuse the buy if its average price per share would be above this.'),
    probabilities: z
      .array(ForecastProbability)
      .min(2)
      .max(10)
      .optional()
      .describe('Your probability of each outcome (in outcome order, summing to 1), recorded as a stated forecast with the buy.'),
    forecasts: z
      .array(ForecastProbability)
      .min(2)
      .max(10)
      .optional()
      .meta({ deprecated: true })
      .describe('Deprecated (send probabilities): your probability of each outcome, recorded as a forecast with the buy.'),
    idempotencyKey: IdempotencyKey,
  }),
  output: z.object({
    success: z.boolean().describe('True when the trade executed.'),
    marketId: z.string().describe('The community market.'),
    outcome: z.string().describe('The outcome label bought.'),
    quantity: z.number().describe('Shares bought.'),
    price: Probability.describe('Average price per share (same as avgPrice; the field name paper_trade uses).'),
    ...FillFigures,
    totalCost: Dollars.describe('Dollars spent (equals amount).'),
    positionId: z.string().describe('The position opened or extended.'),
    balance: Balance.describe('Your balance after the trade.'),
  }),
  rest: { method: 'POST', path: '/api/user-markets/trade' },
  annotations: { title: 'Buy community market shares', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['INSUFFICIENT_BALANCE', 'MARKET_CLOSED', 'PRICE_LIMIT_EXCEEDED', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
  handler: async (ctx, input) => {
    const { tokenId, amount } = input;
    const maxAveragePrice = aliased('maxAvgPrice', input.maxAvgPrice, 'maxAveragePrice', input.maxAveragePrice);
    const probabilities = aliased('probabilities', input.probabilities, 'forecasts', input.forecasts);
    const stated = probabilities === undefined ? undefined : { probabilities };
    const buy = communityBuy(ctx, 'buy_community_shares', tokenId, stated);
    return ctx.services.communityTrading.buy(
      buy.userId,
      { tokenId, amount, ...(maxAveragePrice !== undefined ? { maxAveragePrice } : {}) },
      buy.now,
      buy.then,
      await buy.forecast,
    );
  },
});

export const sellCommunityShares = defineMethod({
  name: 'sell_community_shares',
  deprecated: { use: 'sell_position' },
  toolset: 'community',
  area: 'Community markets',
  summary: 'Sell community market shares back to its market maker',
  brief: 'Sells shares of a community market position to its market maker (omit quantity to close it).',
  description: `Sells quantity shares of one of your community market positions back to its market maker (omit quantity to close it); realizedPnl = proceeds − cost basis. ${TRADE_NOTE} Optional minAvgPrice refuses a sale that would average lower (PRICE_LIMIT_EXCEEDED, nothing changed). Errors: VALIDATION_ERROR, POSITION_CLOSED, MARKET_CLOSED, PRICE_LIMIT_EXCEEDED (400); NOT_FOUND (404); RATE_LIMITED.`,
  auth: 'key',
  limit: 'sell',
  idempotent: true,
  input: z.object({
    id: z.string().min(1).max(100).describe('Your community market position: Position.id, from get_portfolio.'),
    quantity: ShareQuantity.optional().describe('Shares to sell; omit to sell the whole position.'),
    minAvgPrice: Probability.optional().describe('Refuse the sale if its average price per share would be below this.'),
    minAveragePrice: Probability.optional()
      .meta({ deprecated: true })
      .describe('Deprecated (send minAvgPrice): refuse the sale if its average price per share would be below this.'),
    idempotencyKey: IdempotencyKey,
  }),
  output: z.object({
    success: z.boolean().describe('True when the sale executed.'),
    quantitySold: z.number().describe('Shares sold.'),
    price: Probability.describe('Average price per share (same as avgPrice; the field name sell_position uses).'),
    ...FillFigures,
    ...SaleResult,
  }),
  rest: { method: 'POST', path: '/api/user-markets/positions/:id/sell' },
  annotations: { title: 'Sell community market shares', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['POSITION_CLOSED', 'MARKET_CLOSED', 'PRICE_LIMIT_EXCEEDED', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
  handler: async (ctx, input) => {
    const sold = await ctx.services.communityTrading.sell(
      requirePrincipal(ctx).userId,
      input.id,
      input.quantity,
      aliased('minAvgPrice', input.minAvgPrice, 'minAveragePrice', input.minAveragePrice),
      ctx.clock.now(),
      ctx.idempotency?.complete,
    );
    // The 'community' shape (the default) always carries both figures.
    return { ...sold, avgPrice: sold.avgPrice!, averagePrice: sold.averagePrice!, priceAfter: sold.priceAfter! };
  },
});
