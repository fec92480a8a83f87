import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { ForecastProbability, ForecastRationale, IdempotencyKey, Probability } from './common-schemas';

const Hash = z.string().regex(/^[0-9a-f]{64}$/);

const Forecast = z
  .object({
    id: z.string().describe('Forecast ID.'),
    userId: z.string().describe('The account that stated it.'),
    seq: z.number().int().min(1).describe("Its place in the account's chain: 1 for the first forecast, then 2, 3, ..."),
    marketId: z.string().describe('The market: a mirrored market id or a community market id.'),
    venue: z.enum(['mirrored', 'community']).describe('mirrored (a binary YES/NO market) or community (a user-created market).'),
    source: z
      .enum(['stated', 'paper_trade', 'place_order', 'buy_community_shares'])
      .describe('Where it was stated: submit_forecast (stated) or the trade or order that carried it.'),
    probability: Probability.nullable().describe('Mirrored market: the probability that YES resolves; null for a community market.'),
    probabilities: z
      .array(Probability)
      .describe('Mirrored: [the probability of YES]; community: one per outcome, in the market’s outcome order (they sum to 1).'),
    mids: z
      .array(Probability.nullable())
      .describe(
        "The market's mid price(s) the service stamped when it was stated, in the order of probabilities: the YES token's last mid of a " +
          "mirrored market, each outcome's market-maker price of a community market (after the trade that carried it); null where none was known.",
      ),
    rationale: z.string().nullable().describe('The short rationale given, or null.'),
    createdAt: z.iso.datetime().describe('When it was stated (the service’s clock).'),
    current: z.boolean().describe("True for the account's newest forecast on this market; earlier ones are kept, superseded."),
    marketClosed: z.boolean().describe('True once the market has closed (from then on the forecast is public).'),
    prevHash: Hash.nullable().describe("sha256 (hex) of the account's previous forecast record; null for the first."),
    hash: Hash.describe('sha256 (hex) of this record’s canonical payload (RFC 8785 JSON; docs/benchmark.md, "Stated forecasts").'),
  })
  .describe('A stated forecast: immutable, stamped with the time and the market’s mid(s), hash-chained per account.');

const Chain = z
  .object({
    userId: z.string().describe('The account whose chain this is.'),
    head: Hash.nullable().describe('Hash of its newest forecast (all of its forecasts, public or not); null before the first.'),
    length: z.number().int().min(0).describe('How many forecasts the account has stated in all.'),
  })
  .describe("The account's forecast chain: its head commits to every forecast, including those not yet public.");

const EXAMPLE = {
  id: '5d2c7a8e-0b8f-4a51-9f57-2b8f2f6f9a10',
  userId: '0f1e2d3c-4b5a-4968-8776-655443322110',
  seq: 3,
  marketId: 'sim-0001',
  venue: 'mirrored' as const,
  source: 'stated' as const,
  probability: 0.7,
  probabilities: [0.7],
  mids: [0.62],
  rationale: 'Forecast models agree on rain.',
  createdAt: '2026-11-25T10:00:00.000Z',
  current: true,
  marketClosed: false,
  prevHash: '9f2b6c1d0e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9001122334',
  hash: '3c1d2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f',
};

export const submitForecast = defineMethod({
  name: 'submit_forecast',
  toolset: 'benchmark',
  area: 'Forecasting',
  summary: 'State your probability for a market without trading',
  brief:
    'Records your probability for an open market without trading: probability (of YES) for a mirrored market, or probabilities per outcome (summing to 1) for a community one, with an optional rationale. Stamped with the mid; private until the market closes.',
  description:
    "Records your forecast for an open market: probability (that YES resolves) for a mirrored market, or probabilities (one per outcome, summing to 1) for a community market, with an optional short rationale. The time and the market's mid price are stamped; your newest forecast is the current one. Forecasts are immutable, hash-chained per account and private until the market closes (then list_forecasts shows them). A trade can state one too (forecast on paper_trade and place_order). Errors: VALIDATION_ERROR, MARKET_CLOSED (400); NOT_FOUND (404); RATE_LIMITED.",
  auth: 'key',
  limit: 'trade',
  idempotent: true,
  input: z.object({
    marketId: z.string().min(1).max(200).describe('Market.id of a mirrored or a community market.'),
    probability: ForecastProbability.optional().describe('Mirrored market: the probability that YES resolves, 0..1, at most 6 decimals.'),
    probabilities: z
      .array(ForecastProbability)
      .min(2)
      .max(10)
      .optional()
      .describe('Community market: one probability per outcome, in its outcome order, summing to exactly 1.'),
    rationale: ForecastRationale,
    idempotencyKey: IdempotencyKey,
  }),
  output: z.object({ forecast: Forecast, chain: Chain }),
  rest: { method: 'POST', path: '/api/forecasts' },
  annotations: { title: 'Submit a forecast', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['MARKET_CLOSED', 'NOT_FOUND', 'RATE_LIMITED'],
  examples: [
    {
      input: { marketId: 'sim-0001', probability: 0.7, rationale: 'Forecast models agree on rain.' },
      output: { forecast: EXAMPLE, chain: { userId: EXAMPLE.userId, head: EXAMPLE.hash, length: 3 } },
    },
  ],
  handler: async (ctx, input) => {
    const { idempotencyKey: _ignored, marketId, ...stated } = input;
    return ctx.services.forecasts.submit(requirePrincipal(ctx).userId, marketId, stated, ctx.clock.now(), ctx.idempotency?.complete);
  },
});

export const listForecasts = defineMethod({
  name: 'list_forecasts',
  toolset: 'benchmark',
  area: 'Forecasting',
  summary: 'List your forecasts (or the public ones of another account), newest first',
  brief:
    "Your forecasts, newest first, with stamped mids and hash chain; or, with userId, another account's on closed markets only. Filter by marketId; pass nextCursor as cursor for the next page. Free.",
  description:
    'Your stated forecasts, newest first, each with its stamped mid(s), whether it is current, its hash and prevHash, and your chain’s ' +
    'head. With userId, another account’s forecasts, but only on markets that have closed: a forecast on an open market is never ' +
    'shown to anyone else. Optional marketId keeps one market’s. Pass nextCursor as cursor for the next page ' +
    '(null on the last). Free to call. Errors: VALIDATION_ERROR (400) for a bad limit or cursor; NOT_FOUND (404) for a malformed userId.',
  auth: 'key',
  limit: 'api',
  input: z.object({
    userId: z.string().min(1).max(100).optional().describe("Another trader's user ID: their forecasts on closed markets only. Omit for yours."),
    marketId: z.string().min(1).max(200).optional().describe('Only forecasts on this market.'),
    limit: z.number().int().min(1).max(100).default(50).describe('Forecasts per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    forecasts: z.array(Forecast).describe('Forecasts, newest first.'),
    chain: Chain,
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/forecasts' },
  annotations: { title: 'List forecasts', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  examples: [{ input: { limit: 1 }, output: { forecasts: [EXAMPLE], chain: { userId: EXAMPLE.userId, head: EXAMPLE.hash, length: 3 }, nextCursor: null } }],
  handler: async (ctx, input) => ctx.services.forecasts.list(requirePrincipal(ctx).userId, input, ctx.clock.now()),
});
