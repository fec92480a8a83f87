import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal, type MethodContext } from '../registry/context';
import { AppError, toAppError } from '../errors/app-error';
import { tradeIntent } from './trade-forecast';
import { Dollars, IdempotencyKey, Probability, ShareQuantity, SpendAmount, DeprecatedTradeForecast, TradeProbability } from './common-schemas';

const STATES = ['open', 'partially_filled', 'filled', 'cancelled', 'expired', 'rejected'] as const;

const OrderId = z.string().min(1).max(100).describe('Order.id, from place_order or list_orders.');

export const Order = z
  .object({
    id: z.string().describe('Order ID.'),
    clientOrderId: z.string().nullable().describe('Your clientOrderId, or null.'),
    marketId: z.string().describe('Market of the token.'),
    tokenId: z.string().describe('Outcome token traded.'),
    outcome: z.enum(['YES', 'NO']).describe('YES or NO token.'),
    side: z.enum(['BUY', 'SELL']).describe('BUY or SELL.'),
    limitPrice: Probability.describe('Worst price accepted: a buy pays at most this, a sell receives at least this.'),
    amount: Dollars.nullable().describe('Dollars to spend (a BUY by amount); else null.'),
    shares: z.number().nullable().describe('Shares to sell or to buy; null for a BUY by amount.'),
    size: z.number().meta({ deprecated: true }).describe("Deprecated (read amount or shares): the size in the order's unit."),
    timeInForce: z.enum(['GTC', 'GTD', 'IOC', 'FOK']).describe('How long the order lives.'),
    expiresAt: z.iso.datetime().nullable().describe('When a GTD order expires; null otherwise.'),
    state: z.enum(STATES).describe('open (resting), partially_filled, filled, cancelled, expired or rejected.'),
    filledSize: z.number().min(0).meta({ deprecated: true }).describe('Deprecated (read filledCash or filledShares): part of size filled, in its unit.'),
    filledShares: z.number().min(0).describe('Shares bought or sold so far.'),
    filledCash: Dollars.min(0).describe('Dollars spent (buy) or received (sell) so far.'),
    avgPrice: Probability.nullable().describe('Average fill price per share: filledCash / filledShares; null before any fill.'),
    avgFillPrice: Probability.nullable().meta({ deprecated: true }).describe('Deprecated (read avgPrice): filledCash / filledShares; null before any fill.'),
    reservedCash: Dollars.min(0).describe('Cash this resting buy holds (by shares: unfilled shares × limitPrice, rounded up); 0 once not open.'),
    reservedShares: z.number().min(0).describe('Shares this resting sell holds (0 once it is no longer open).'),
    reason: z.string().nullable().describe('Why it was cancelled, expired or rejected; null otherwise.'),
    createdAt: z.iso.datetime().describe('When it was placed.'),
    updatedAt: z.iso.datetime().describe('Its last change.'),
  })
  .describe('A limit order.');

const EXAMPLE_ORDER = {
  id: '0b6f6a52-57d4-4c4f-9a0e-6f8b4f0c2d11',
  clientOrderId: 'my-order-1',
  marketId: 'sim-0001',
  tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
  outcome: 'YES' as const,
  side: 'BUY' as const,
  limitPrice: 0.55,
  amount: 50,
  shares: null,
  size: 50,
  timeInForce: 'GTC' as const,
  expiresAt: null,
  state: 'open' as const,
  filledSize: 0,
  filledShares: 0,
  filledCash: 0,
  avgPrice: null,
  avgFillPrice: null,
  reservedCash: 50,
  reservedShares: 0,
  reason: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

/** place_order's input: also each order of a place_orders batch (without idempotencyKey). */
export const PlaceOrderInput = z.object({
  tokenId: z.string().min(1).max(200).describe('outcomeTokens[].tokenId of a market.'),
  side: z.enum(['BUY', 'SELL']).describe('BUY buys shares with dollars; SELL sells shares you hold.'),
  limitPrice: z.number().gt(0).max(1).describe('Price per share, at most 6 decimals.'),
  amount: SpendAmount.optional().describe('BUY only: dollars to spend, at most 6 decimals. Send amount or shares, not both.'),
  shares: ShareQuantity.optional().describe('Shares to sell (SELL) or buy (BUY), at most 6 decimals. Send amount or shares, not both.'),
  size: SpendAmount.optional()
    .meta({ deprecated: true })
    .describe('Deprecated (send amount for a BUY, shares for a SELL): dollars to spend (BUY) or shares to sell (SELL).'),
  timeInForce: z.enum(['GTC', 'GTD', 'IOC', 'FOK']).default('GTC').describe('GTC (default), GTD (needs expiresAt), IOC or FOK.'),
  expiresAt: z.iso.datetime().optional().describe('GTD only: when the order expires (in the future).'),
  clientOrderId: z.string().min(1).max(64).optional().describe('Your own id, unique per account; a repeat returns the first order.'),
  probability: TradeProbability.describe(
    'Your probability that YES resolves, recorded as a stated forecast with the order (not if refused, rejected or repeated).',
  ),
  forecast: DeprecatedTradeForecast,
  idempotencyKey: IdempotencyKey,
});

/**
 * The size of an order and its unit, from the one field the caller sent: amount (dollars to spend, a BUY only), shares
 * (shares to sell, or to buy), or the deprecated size (its side's own unit: dollars of a BUY, shares of a SELL).
 * Refuses none, two, or amount on a SELL.
 */
export function orderSize(input: { side: 'BUY' | 'SELL'; amount?: number; shares?: number; size?: number }): { size: number; sizedBy: 'amount' | 'shares' } {
  const sent = (['amount', 'shares', 'size'] as const).filter((k) => input[k] !== undefined);
  if (sent.length !== 1)
    throw new AppError(
      'VALIDATION_ERROR',
      `send exactly one of amount (dollars to spend, BUY) or shares (shares to buy or sell); got ${sent.length ? sent.join(' and ') : 'neither'}.`,
    );
  if (input.side === 'SELL' && input.amount !== undefined)
    throw new AppError('VALIDATION_ERROR', 'a SELL order is sized by shares (shares to sell), not amount.', { hint: 'Send shares.' });
  if (input.shares !== undefined) return { size: input.shares, sizedBy: 'shares' };
  if (input.amount !== undefined) return { size: input.amount, sizedBy: 'amount' };
  return { size: input.size!, sizedBy: input.side === 'BUY' ? 'amount' : 'shares' };
}

/**
 * The new total size of an amended order, in the unit it was placed in (`sizedBy`), from the one field the caller sent:
 * amount for an order sized by amount, shares for one sized in shares, or the deprecated size (in its unit).
 */
export function amendedSize(input: { amount?: number; shares?: number; size?: number }, sizedBy: 'amount' | 'shares'): number {
  const sent = (['amount', 'shares', 'size'] as const).filter((k) => input[k] !== undefined);
  if (sent.length !== 1) throw new AppError('VALIDATION_ERROR', `send at most one of amount or shares; got ${sent.join(' and ')}.`);
  if (sizedBy === 'shares' && input.amount !== undefined)
    throw new AppError('VALIDATION_ERROR', 'this order is sized by shares, not amount.', { hint: 'Send shares: the new total shares, filled part included.' });
  if (sizedBy === 'amount' && input.shares !== undefined)
    throw new AppError('VALIDATION_ERROR', 'this order is sized by amount (dollars to spend), not shares.', {
      hint: 'Send amount: the new total dollars, filled part included. To buy a number of shares, place a BUY with shares.',
    });
  return (input.amount ?? input.shares ?? input.size)!;
}

/** An order input with its size and unit, as the order service takes it. */
function sized<T extends { side: 'BUY' | 'SELL'; amount?: number; shares?: number; size?: number }>(
  input: T,
): Omit<T, 'amount' | 'shares' | 'size'> & { size: number; sizedBy: 'amount' | 'shares' } {
  const { amount: _a, shares: _s, size: _z, ...rest } = input;
  return { ...rest, ...orderSize(input) };
}

/** place_order's output. */
export const PlacedOrder = z.object({ order: Order });

export const placeOrder = defineMethod({
  name: 'place_order',
  toolset: 'orders',
  defaultTool: true,
  area: 'Trading',
  summary: 'Place a limit order (buy or sell) that fills now or rests until the price reaches it',
  brief:
    'Places a limit order on an outcome token: BUY by amount (dollars) or shares at most limitPrice, SELL shares at least limitPrice. The part the live price reaches fills now; the rest rests (GTC, GTD) or is cancelled (IOC); FOK is all or none. Reserves cash or shares.',
  description:
    'Places a limit order on one outcome token. BUY: amount = dollars to spend, or shares = shares to buy, limitPrice = highest price; SELL: shares to sell, limitPrice = lowest price. What the live price already reaches fills now (on Polymarket, no more than the book shows). The rest: GTC rests until filled or cancelled, GTD until expiresAt, IOC is cancelled; FOK fills whole or not at all. A resting order reserves its cash (a BUY by shares: shares × limitPrice, rounded up to the micro-dollar; what a fill costs less is released) or shares and fills when a price crosses its limit; order.* account events follow it. A repeated clientOrderId returns the first order. Errors: INSUFFICIENT_BALANCE, VALIDATION_ERROR, MARKET_CLOSED (400); NOT_FOUND (404); PRICE_UNAVAILABLE (503, IOC/FOK); RATE_LIMITED.',
  auth: 'key',
  limit: 'trade',
  idempotent: true,
  input: PlaceOrderInput,
  output: PlacedOrder,
  rest: { method: 'POST', path: '/api/orders' },
  annotations: { title: 'Place a limit order', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['INSUFFICIENT_BALANCE', 'MARKET_CLOSED', 'NOT_FOUND', 'PRICE_UNAVAILABLE', 'RATE_LIMITED'],
  examples: [
    {
      input: { tokenId: EXAMPLE_ORDER.tokenId, side: 'BUY', limitPrice: 0.55, amount: 50, timeInForce: 'GTC', clientOrderId: 'my-order-1' },
      output: { order: EXAMPLE_ORDER },
    },
  ],
  handler: async (ctx, input) => {
    const placing = tradeIntent(ctx, 'place_order', sized(input), null);
    return { order: await ctx.services.orders.place(placing.userId, placing.order, placing.now, placing.then, await placing.forecast) };
  },
});

export const cancelOrder = defineMethod({
  name: 'cancel_order',
  toolset: 'orders',
  defaultTool: true,
  area: 'Trading',
  summary: 'Cancel one of your resting orders',
  brief:
    'Cancels one of your open orders and releases what it reserved (cash of a buy, shares of a sell). Only an open order can be; get_order shows its state.',
  description:
    'Cancels an open order and releases what it reserved (cash of a buy, shares of a sell). Errors: NOT_FOUND (404, no such order of yours); ' +
    'CONFLICT (409) when it is no longer open (filled, cancelled, expired or rejected): read it with get_order.',
  auth: 'key',
  limit: 'trade',
  input: z.object({ id: OrderId }),
  output: z.object({ order: Order }),
  rest: { method: 'POST', path: '/api/orders/:id/cancel' },
  annotations: { title: 'Cancel an order', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
  handler: async (ctx, input) => ({ order: await ctx.services.orders.cancel(requirePrincipal(ctx).userId, input.id, ctx.clock.now()) }),
});

export const replaceOrder = defineMethod({
  name: 'replace_order',
  toolset: 'orders',
  area: 'Trading',
  summary: "Amend a resting order's limit price and/or size, keeping its id",
  brief:
    'Amends an open order in place: new limitPrice, new total size (in its original unit), or both; keeps its id and expiry. Its reservation is adjusted exactly; if cash or shares fall short nothing changes. May fill at once if it now crosses.',
  description:
    'Amends one of your open orders in place: a new limitPrice, a new total size (in the unit it was placed in: amount or shares, filled part ' +
    'included), or both. It keeps its id, clientOrderId, time in force and expiry; its reservation is adjusted exactly, and if cash or ' +
    'shares do not cover the new one nothing changes. An amended order that now crosses fills as a new order would. Writes order.replaced. ' +
    'Errors: VALIDATION_ERROR, INSUFFICIENT_BALANCE, MARKET_CLOSED (400); NOT_FOUND (404); CONFLICT (409, no longer open); RATE_LIMITED.',
  auth: 'key',
  limit: 'trade',
  idempotent: true,
  input: z.object({
    id: OrderId,
    limitPrice: PlaceOrderInput.shape.limitPrice.optional().describe('New price per share, at most 6 decimals; omit to keep.'),
    amount: SpendAmount.optional().describe('Order sized by amount: new total dollars, filled part included (above filledCash); omit to keep.'),
    shares: ShareQuantity.optional().describe('Order sized by shares: new total shares, filled part included (above filledShares); omit to keep.'),
    size: SpendAmount.optional()
      .meta({ deprecated: true })
      .describe('Deprecated (send amount or shares, as the order was placed): the new total in the order’s unit, filled part included.'),
    idempotencyKey: IdempotencyKey,
  }),
  output: PlacedOrder,
  rest: { method: 'POST', path: '/api/orders/:id/replace' },
  annotations: { title: 'Amend an order', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['INSUFFICIENT_BALANCE', 'MARKET_CLOSED', 'NOT_FOUND', 'CONFLICT', 'PRICE_UNAVAILABLE', 'RATE_LIMITED'],
  examples: [
    {
      input: { id: EXAMPLE_ORDER.id, limitPrice: 0.52, amount: 80 },
      output: { order: { ...EXAMPLE_ORDER, limitPrice: 0.52, amount: 80, size: 80, reservedCash: 80, updatedAt: '2026-11-25T10:05:00.000Z' } },
    },
  ],
  handler: async (ctx, input) => {
    const userId = requirePrincipal(ctx).userId;
    // A new size is read in the unit the order was placed in, which only the order knows.
    const resizing = input.amount !== undefined || input.shares !== undefined || input.size !== undefined;
    const size = resizing ? amendedSize(input, (await ctx.services.orders.get(userId, input.id)).amount === null ? 'shares' : 'amount') : undefined;
    return {
      order: await ctx.services.orders.replace(userId, input.id, { limitPrice: input.limitPrice, size }, ctx.clock.now(), ctx.idempotency?.complete),
    };
  },
});

export const getOrder = defineMethod({
  name: 'get_order',
  toolset: 'orders',
  area: 'Trading',
  summary: 'Read one of your orders',
  brief: 'One of your orders with its state, fills and reservation. Free.',
  description: 'One order of yours with its state, fills and reservation. Free to call. Errors: NOT_FOUND (404).',
  auth: 'key',
  limit: 'api',
  input: z.object({ id: OrderId }),
  output: z.object({ order: Order }),
  rest: { method: 'GET', path: '/api/orders/:id' },
  annotations: { title: 'Get an order', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => ({ order: await ctx.services.orders.get(requirePrincipal(ctx).userId, input.id) }),
});

export const listOrders = defineMethod({
  name: 'list_orders',
  toolset: 'orders',
  defaultTool: true,
  area: 'Trading',
  summary: 'List your orders, newest first',
  brief: 'Your orders, newest first, optionally in one state (open = resting); pass nextCursor as cursor for the next page. Free.',
  description:
    'Your orders, newest first, optionally only those in one state (open for the resting ones). Pass nextCursor as ' +
    'cursor for the next page (null on the last). Free to call. Errors: VALIDATION_ERROR (400) for a bad state, limit or cursor.',
  auth: 'key',
  limit: 'api',
  input: z.object({
    state: z.enum(STATES).optional().describe('Only orders in this state.'),
    limit: z.number().int().min(1).max(100).default(50).describe('Orders per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    orders: z.array(Order).describe('Orders, newest first.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/orders' },
  annotations: { title: 'List orders', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => ctx.services.orders.list(requirePrincipal(ctx).userId, input),
});

/** Orders one place_orders call may carry. */
export const MAX_BATCH_ORDERS = 20;

export const BatchError = z
  .object({
    code: z.string().describe('The stable error code place_order would answer (INSUFFICIENT_BALANCE, NOT_FOUND, VALIDATION_ERROR…).'),
    error: z.string().describe('What went wrong, in words.'),
    hint: z.string().optional().describe('What to do about it, when there is advice.'),
  })
  .describe('Why this order was refused; nothing of it was placed.');

/** One refused item of a call that answers each item on its own (place_orders, close_position): its error body; an internal failure is logged. */
export function itemError(ctx: MethodContext, err: unknown, logged: string, about: Record<string, unknown>): z.infer<typeof BatchError> {
  const e = toAppError(err);
  if (e.code === 'INTERNAL') ctx.log.error(logged, { ...about, error: err instanceof Error ? err.message : String(err) });
  return { code: e.code, error: e.message, ...(e.hint ? { hint: e.hint } : {}) };
}

export const placeOrders = defineMethod({
  name: 'place_orders',
  toolset: 'orders',
  area: 'Trading',
  summary: `Place up to ${MAX_BATCH_ORDERS} limit orders in one call, each on its own`,
  brief: `Places up to ${MAX_BATCH_ORDERS} limit orders, each as place_order would, each on its own: results[i] answers orders[i] with { ok: true, order } or { ok: false, error }. One trade call of the rate limit per order. Give each a clientOrderId to retry safely.`,
  description:
    `Places 1..${MAX_BATCH_ORDERS} limit orders, each exactly as place_order would, in input order, each on its own: one refused does not ` +
    'stop or undo the others. results[i] answers orders[i]: { ok: true, order } or { ok: false, error: { code, error } }. A malformed ' +
    'batch is refused whole with VALIDATION_ERROR naming orders.<i>. Costs one trade call of the rate limit per order (beyond it: ' +
    'RATE_LIMITED in that result). Not idempotent as a whole: give each order a clientOrderId so a retried batch places nothing twice.',
  auth: 'key',
  limit: 'trade',
  input: z.object({
    orders: z
      .array(PlaceOrderInput.omit({ idempotencyKey: true }).strict().describe("One order, place_order's input (without idempotencyKey)."))
      .min(1)
      .max(MAX_BATCH_ORDERS)
      .describe(`The orders, 1..${MAX_BATCH_ORDERS}, placed in this order.`),
  }),
  output: z.object({
    results: z
      .array(
        z
          .discriminatedUnion('ok', [
            z.object({ ok: z.literal(true).describe('Placed.'), order: Order }).describe('The order as place_order answers it (any state, rejected included).'),
            z.object({ ok: z.literal(false).describe('Refused.'), error: BatchError }).describe('A refused order.'),
          ])
          .describe('The result of the order at the same index.'),
      )
      .describe('One result per order, in input order.'),
  }),
  rest: { method: 'POST', path: '/api/orders/batch' },
  annotations: { title: 'Place several limit orders', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  errors: ['RATE_LIMITED'],
  examples: [
    {
      input: {
        orders: [
          { tokenId: EXAMPLE_ORDER.tokenId, side: 'BUY', limitPrice: 0.55, amount: 50, timeInForce: 'GTC', clientOrderId: 'my-order-1' },
          { tokenId: 'no-such-token', side: 'BUY', limitPrice: 0.5, amount: 10, timeInForce: 'GTC' },
        ],
      },
      output: {
        results: [
          { ok: true, order: EXAMPLE_ORDER },
          {
            ok: false,
            error: { code: 'NOT_FOUND', error: 'Token no-such-token not found.', hint: 'Use outcomeTokens[].tokenId from search_prediction_markets.' },
          },
        ],
      },
    },
  ],
  handler: async (ctx, input) => {
    const userId = requirePrincipal(ctx).userId;
    const results = [];
    for (const [i, one] of input.orders.entries()) {
      try {
        // The call itself paid for the first order; each further one pays its own.
        if (i > 0) await ctx.services.limiter.consume('trade', `user:${userId}`, ctx.call.ip);
        const placing = tradeIntent(ctx, 'place_order', sized(one), null);
        results.push({
          ok: true as const,
          order: await ctx.services.orders.place(placing.userId, placing.order, placing.now, placing.then, await placing.forecast),
        });
      } catch (err) {
        results.push({ ok: false as const, error: itemError(ctx, err, 'batch order failed', { index: i }) });
      }
    }
    return { results };
  },
});

export const cancelAllOrders = defineMethod({
  name: 'cancel_all_orders',
  toolset: 'orders',
  area: 'Trading',
  summary: "Cancel all your resting orders, or one market's",
  brief:
    "Cancels all your open orders, or one market's (marketId), releasing their reservations; returns the ids cancelled and their count. Safe to repeat. One trade call of the rate limit.",
  description:
    'Cancels every open (resting or partly filled) order of yours, or only those of one market (marketId), oldest first, each as ' +
    'cancel_order does: its reservation (cash of a buy, shares of a sell) is released exactly and an order.cancelled event is written. ' +
    'Answers the ids cancelled and their count; an order that filled or was cancelled meanwhile is not among them. Safe to repeat: a ' +
    'second call finds nothing open and answers count 0. Costs one trade call of the rate limit. Errors: NOT_FOUND (404) for an unknown ' +
    'marketId; RATE_LIMITED.',
  auth: 'key',
  limit: 'trade',
  input: z.object({
    marketId: z.string().min(1).max(300).optional().describe("Only this market's orders (id or slug); omit for all."),
  }),
  output: z.object({
    cancelled: z.array(z.string()).describe('IDs of the orders this call cancelled, oldest first.'),
    count: z.number().int().min(0).describe('How many orders were cancelled (0 when none was open).'),
  }),
  rest: { method: 'POST', path: '/api/orders/cancel-all' },
  annotations: { title: 'Cancel all orders', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND', 'RATE_LIMITED'],
  examples: [{ input: { marketId: 'sim-0001' }, output: { cancelled: [EXAMPLE_ORDER.id], count: 1 } }],
  handler: async (ctx, input) => {
    const cancelled = await ctx.services.orders.cancelAll(requirePrincipal(ctx).userId, ctx.clock.now(), input.marketId);
    return { cancelled, count: cancelled.length };
  },
});
