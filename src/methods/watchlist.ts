import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { ForecastProbability, Probability } from './common-schemas';

// A threshold is a probability the ledger can hold exactly (at most 6 decimals), as a forecast is.
const Threshold = ForecastProbability;

const PriceAlert = z
  .object({
    above: Probability.nullable().describe('Fires once when the YES price is at or above this; null when not set.'),
    aboveFiredAt: z.iso.datetime().nullable().describe('When the above alert fired; it stays quiet until set again. Null while armed or unset.'),
    below: Probability.nullable().describe('Fires once when the YES price is at or below this; null when not set.'),
    belowFiredAt: z.iso.datetime().nullable().describe('When the below alert fired; it stays quiet until set again. Null while armed or unset.'),
  })
  .describe("A watched market's price alert on its YES price (mid), each side optional.");

const WatchedMarket = z
  .object({
    marketId: z.string().describe('Market ID, as paper_trade and get_market_odds take it.'),
    slug: z.string().describe('Market slug; its page is /markets/{slug}.'),
    question: z.string().describe('The question the market resolves.'),
    status: z.enum(['active', 'closed', 'resolved']).describe('active trades; closed awaits resolution; resolved has a winner.'),
    yesPrice: Probability.nullable().describe('The last mirrored YES price (implied probability); null when the market has none.'),
    watchedAt: z.iso.datetime().describe('When it was added to the watchlist.'),
    alert: PriceAlert,
  })
  .describe('A market on your watchlist, with its price alert.');

const ALERT_NOTE =
  'An alert fires once, at the first price change with the YES mid at or beyond its threshold, as a price_alert notification and ' +
  'account event; setting it again re-arms it.';

export const watchMarket = defineMethod({
  name: 'watch_market',
  toolset: 'markets',
  area: 'Markets',
  summary: 'Add a market to your watchlist, optionally with a price alert',
  brief:
    'Adds a market to your watchlist (or updates it) with optional price alerts alertAbove / alertBelow on the YES mid, each firing once as a notification and event; null clears one. The watchlist size is limited. Free.',
  description: `Adds a market (marketId or marketSlug) to your watchlist, or updates its entry, with a price alert: alertAbove and/or alertBelow on the YES price; null clears a side, an omitted side stays. ${ALERT_NOTE} A watchlist holds at most WATCHLIST_MAX_MARKETS markets (default 100). Free to call. Errors: NOT_FOUND (404); CONFLICT (409, the watchlist is full); VALIDATION_ERROR (400).`,
  auth: 'key',
  limit: 'api',
  input: z
    .object({
      marketId: z.string().min(1).max(200).optional().describe('Market.id of the market to watch.'),
      marketSlug: z.string().min(1).max(300).optional().describe('Market.slug; send either or both, of the same market.'),
      alertAbove: Threshold.nullable().optional().describe('Alert at a YES price at or above this; null clears, omit keeps.'),
      alertBelow: Threshold.nullable().optional().describe('Alert at a YES price at or below this; null clears, omit keeps.'),
    })
    .refine((v) => v.marketId !== undefined || v.marketSlug !== undefined, { message: 'Send marketId or marketSlug.', path: ['marketId'] }),
  output: z.object({
    market: WatchedMarket,
    added: z.boolean().describe('True when the market was not on the watchlist before this call.'),
  }),
  rest: { method: 'POST', path: '/api/watchlist' },
  annotations: { title: 'Watch a market', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async (ctx, input) => ctx.services.watchlist.watch(requirePrincipal(ctx).userId, input, ctx.clock.now()),
});

export const unwatchMarket = defineMethod({
  name: 'unwatch_market',
  toolset: 'markets',
  area: 'Markets',
  summary: 'Remove a market from your watchlist',
  brief: 'Removes a market and its price alert from your watchlist. Free.',
  description: 'Removes a market from your watchlist, with its price alert. Free to call. Errors: NOT_FOUND (404) when the market is not on your watchlist.',
  auth: 'key',
  limit: 'api',
  input: z.object({ marketId: z.string().min(1).max(200).describe('Market ID (Market.id) of the watched market.') }),
  output: z.object({ success: z.boolean().describe('Always true.') }),
  rest: { method: 'DELETE', path: '/api/watchlist/:marketId' },
  annotations: { title: 'Unwatch a market', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => {
    await ctx.services.watchlist.unwatch(requirePrincipal(ctx).userId, { marketId: input.marketId });
    return { success: true };
  },
});

export const listWatchlist = defineMethod({
  name: 'list_watchlist',
  toolset: 'markets',
  area: 'Markets',
  summary: 'Your watchlist: watched markets with their prices and alerts',
  brief: 'Your watched markets, most recently added first, each with its last YES price and its price alert (thresholds, when fired). Free.',
  description:
    'The markets on your watchlist, most recently added first, each with its last mirrored YES price and its price alert (thresholds and ' +
    `when each fired). ${ALERT_NOTE} Free to call.`,
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({ markets: z.array(WatchedMarket).describe('Watched markets, most recently added first.') }),
  rest: { method: 'GET', path: '/api/watchlist' },
  annotations: { title: 'Watchlist', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx) => ({ markets: await ctx.services.watchlist.list(requirePrincipal(ctx).userId) }),
});
