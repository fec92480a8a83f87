import { z } from 'zod';
import { isCommunityToken } from '../domain/community/community-trading-service';
import { defineMethod } from '../registry/method';
import { fieldsInput } from '../registry/fields';
import { Probability } from './common-schemas';
import { INTERVALS } from '../market-data/price-history';
import { LIST_STATUSES, MARKET_SORTS } from '../market-data/market-listing';
import { SEARCH_LIMIT } from '../market-data/market-search';
import { SPARKLINE_POINTS } from '../market-data/market-moves';

const OutcomeToken = z
  .object({
    outcome: z.enum(['YES', 'NO']).describe('Side of this token: YES or NO. Send it as `outcome` when trading.'),
    label: z.string().describe("The venue's own label for the outcome: Yes, No, or a name such as a team."),
    tokenId: z.string().nullable().describe('Order-book token ID; send it as `tokenId` when trading.'),
  })
  .describe('A tradeable outcome of a market and its token.');

const MarketFields = {
  id: z.string().describe('Market ID; send it as `marketId` when trading.'),
  slug: z.string().describe('URL slug; the market page is /markets/{slug}. Send it as `marketSlug` when trading.'),
  question: z.string().describe('The question the market resolves.'),
  category: z.string().nullable().describe('Category such as Politics, Sports or Crypto, when known.'),
  imageUrl: z.string().nullable().describe('Image of the market, when the venue has one.'),
  outcomeTokens: z.array(OutcomeToken).describe('The YES and NO tokens.'),
  yesPrice: Probability.optional().describe('Implied probability of YES (the YES mid price), 0..1.'),
  noPrice: Probability.optional().describe('Implied probability of NO, 0..1 (YES + NO = 1 up to the spread).'),
  volume: z.number().nullable().describe('Dollars traded on the source market (on the simulated venue: simulated dollars).'),
  endDate: z.string().nullable().describe('When trading ends (ISO 8601), when known.'),
  status: z.enum(['active', 'closed', 'resolved']).describe('active trades; closed has ended and awaits resolution; resolved has a winner.'),
  winner: z.enum(['YES', 'NO', 'VOID']).nullable().describe('The resolution once resolved (VOID pays 0.5 per share), else null.'),
  source: z.enum(['simulated', 'polymarket']).describe('Where the market comes from.'),
  simulated: z.boolean().describe('True for markets of the built-in simulated venue: not a real market. Its page is /markets/{slug}.'),
};

const Market = z.object(MarketFields).describe('A binary market as mirrored by this service.');

/** The venue's trading figures (get_market_odds): each null where the venue does not state it. */
const MarketStatsFields = {
  volume24h: z.number().nullable().describe('Venue dollars traded in 24 h.'),
  openInterest: z.number().nullable().describe('Venue dollars in open positions.'),
  lastTradePrice: Probability.nullable().describe("YES price of the venue's last trade."),
  tickSize: z.number().nullable().describe("The venue's price step (not required here)."),
  minOrderShares: z.number().nullable().describe("The venue's smallest order in shares (not required here)."),
};

/** A market as list_markets answers it: with its 24 h move, and on request the path behind it. */
const ListedMarket = z
  .object({
    ...MarketFields,
    change24h: z
      .number()
      .min(-1)
      .max(1)
      .nullable()
      .describe(
        'How far the YES price moved over the last 24 hours (now minus then, in probability: 0.05 is five points up); measured from the ' +
          "mirror's snapshot at or before 24 h ago, else its first one since. Null when the market has no price history.",
      ),
    sparkline: z
      .array(Probability)
      .max(SPARKLINE_POINTS)
      .optional()
      .describe(
        `Only with sparkline: true. The YES price once an hour over the last 24 hours, oldest first, the last one the current price (up to ${SPARKLINE_POINTS} points; ` +
          'hours before the first snapshot are left out).',
      ),
  })
  .describe('A binary market as mirrored by this service, with its 24 h move.');

const Quote = z
  .object({
    bid: z.number().nullable().describe('Best bid: what a sell fills at. Null when the market does not trade.'),
    ask: z.number().nullable().describe('Best ask: what a buy fills at. Null when the market does not trade.'),
    mid: z.number().nullable().describe('Midpoint: the implied probability.'),
  })
  .describe("One token's book.");

const exampleMarket = {
  id: 'sim-11420',
  slug: 'will-bitcoin-close-above-120-000-on-march-3-2027-11420',
  question: 'Will Bitcoin close above $120,000 on March 3, 2027?',
  category: 'Crypto',
  imageUrl: null,
  outcomeTokens: [
    { outcome: 'YES' as const, label: 'Yes', tokenId: '51327648290316470911803354280624419573921086438857301294677520004130000114201' },
    { outcome: 'NO' as const, label: 'No', tokenId: '82290417561023984470651122093388761200457399128045573106422081937750000114202' },
  ],
  yesPrice: 0.42,
  noPrice: 0.58,
  volume: 184230.5,
  endDate: '2027-03-03T00:00:00.000Z',
  status: 'active' as const,
  winner: null,
  source: 'simulated' as const,
  simulated: true,
};

const exampleStats = { volume24h: 6120.4, openInterest: 58110.25, lastTradePrice: 0.421, tickSize: 0.001, minOrderShares: 1 };

export const searchPredictionMarkets = defineMethod({
  name: 'search_prediction_markets',
  toolset: 'markets',
  defaultTool: true,
  area: 'Markets',
  summary: 'Search active markets by words in the question or category',
  brief:
    'Full-text search of active markets by question and category, highest volume first. Each market carries id, slug and outcomeTokens[].tokenId, which trading tools take. Prices are the last mirrored; get_market_odds reads live ones. Free.',
  description:
    'Full-text search over active markets by question and category (every word must match; partial words too), highest volume first, at most `limit` a page; pass nextCursor as cursor, with the same q, for the next page. Each market carries id, slug and outcomeTokens[].tokenId: what paper_trade needs. Prices are the last mirrored ones; get_market_odds reads live ones. fields (e.g. question,yesPrice) answers only those fields of each market, and id. Free to call. Errors: SERVICE_UNAVAILABLE (503); UPSTREAM_UNAVAILABLE (500).',
  auth: 'public',
  limit: 'api',
  input: z.object({
    q: z.string().max(200).describe('Words to find, at least 2 characters (a shorter q returns no markets).'),
    limit: z.number().int().min(1).max(SEARCH_LIMIT).default(SEARCH_LIMIT).describe('Most markets to return, by volume.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page (same q); omit for the first.'),
    fields: fieldsInput(Market),
  }),
  selectsFields: 'markets',
  output: z.object({
    markets: z.array(Market).max(SEARCH_LIMIT).describe('Matching active markets, highest volume first, at most `limit`.'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass as cursor, with the same q, for the next page; null on the last (a full last page may be followed by an empty one).'),
  }),
  rest: { method: 'GET', path: '/api/search' },
  annotations: { title: 'Search markets', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  errors: ['UPSTREAM_UNAVAILABLE'],
  examples: [{ input: { q: 'bitcoin', limit: 3 }, output: { markets: [exampleMarket], nextCursor: null } }],
  handler: async (ctx, input) => ctx.services.markets.search(input.q, input.limit, input.cursor),
});

export const listMarkets = defineMethod({
  name: 'list_markets',
  toolset: 'markets',
  area: 'Markets',
  summary: 'Browse markets page by page: most traded, ending soon, newest or biggest movers',
  brief:
    'Browses markets a page at a time, sorted by volume, ending, newest or change24h, filtered by category and status (active by default). sparkline: true adds 24 h of hourly prices. Pass nextCursor as cursor with the same filters. Free.',
  description:
    'Lists the mirrored markets a page at a time, sorted by volume (default), ending (soonest first), newest, or change24h (largest ' +
    '24 h move of the YES price; pages read minutes apart may repeat or skip a market). sparkline: true adds hourly YES prices over 24 h. ' +
    'Filter by category (as list_market_categories names it) and status (active by default, closed, resolved, all). Pass nextCursor as ' +
    "cursor, with the same filters and sort, for the next page (null: the last). Markets have search_prediction_markets' shape; " +
    'fields (e.g. question,yesPrice,change24h) answers only those fields of each market, and id: a scan with five fields ' +
    'costs about a third of the bytes. ' +
    'Free to call. Errors: VALIDATION_ERROR (400).',
  auth: 'public',
  limit: 'api',
  input: z.object({
    category: z.string().min(1).max(100).optional().describe('Only markets of this category (exact, case-sensitive), e.g. Crypto.'),
    status: z.enum(LIST_STATUSES).default('active').describe('active (default), closed, resolved, or all.'),
    sort: z
      .enum(MARKET_SORTS)
      .default('volume')
      .describe('volume (most traded first, default), ending (soonest first), newest, or change24h (largest 24 h move first).'),
    limit: z.number().int().min(1).max(80).default(20).describe('Markets per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
    sparkline: z.boolean().default(false).describe("Adds each market's hourly YES prices over the last 24 h."),
    fields: fieldsInput(ListedMarket),
  }),
  selectsFields: 'markets',
  output: z.object({
    markets: z.array(ListedMarket).describe('This page of markets, in the order asked for.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/markets' },
  annotations: { title: 'List markets', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  examples: [
    {
      input: { category: 'Crypto', sort: 'volume', limit: 1 },
      output: {
        markets: [{ ...exampleMarket, change24h: -0.03 }],
        nextCursor: 'eyJzIjoidm9sdW1lIiwiayI6IjE4NDIzMC41IiwiaSI6InNpbS0xMTQyMCJ9',
      },
    },
  ],
  handler: async (ctx, input) => ctx.services.markets.list(input),
});

export const listMarketCategories = defineMethod({
  name: 'list_market_categories',
  toolset: 'markets',
  defaultTool: true,
  area: 'Markets',
  summary: 'Categories of active markets, with how many each has',
  brief: "Every category with active markets and how many each has, most first: the values list_markets' category filter takes. Free.",
  description:
    'Every category that has active markets, with the number of active markets in it, most first. Use a category name as the ' +
    `category filter of list_markets. Free to call.`,
  auth: 'public',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    categories: z
      .array(
        z
          .object({
            category: z.string().describe('The category name, as list_markets filters by it.'),
            activeMarkets: z.number().int().min(1).describe('How many active markets it has.'),
          })
          .describe('A category and its count of active markets.'),
      )
      .describe('Categories, most active markets first.'),
  }),
  rest: { method: 'GET', path: '/api/markets/categories' },
  annotations: { title: 'Market categories', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  examples: [
    {
      input: {},
      output: {
        categories: [
          { category: 'Sports', activeMarkets: 412 },
          { category: 'Crypto', activeMarkets: 168 },
        ],
      },
    },
  ],
  handler: async (ctx) => ({ categories: await ctx.services.markets.categories() }),
});

export const getMarketOdds = defineMethod({
  name: 'get_market_odds',
  toolset: 'markets',
  defaultTool: true,
  area: 'Markets',
  summary: 'One market with its live YES/NO prices, bid/ask and status',
  brief:
    'One market by marketId or marketSlug with live YES/NO bid, ask and mid (mid = implied probability), price age, volume, end date and status. odds.live false means the last mirrored prices. Use it before trading. Free.',
  description:
    'Reads one market by marketId or marketSlug: live YES and NO prices (bid = what a sell fills at, ask = what a buy fills at, ' +
    'mid = implied probability), the price age, volume, end date and status (with the winner once resolved). Without a fresh live ' +
    'price, odds.live is false and the last mirrored prices are shown. Free to call. Errors: NOT_FOUND (404); VALIDATION_ERROR (400) ' +
    'when no identifier is given or the two name different markets.',
  auth: 'public',
  limit: 'api',
  input: z
    .object({
      marketId: z.string().min(1).max(200).optional().describe('Market.id.'),
      marketSlug: z.string().min(1).max(300).optional().describe('Market.slug.'),
      idOrSlug: z
        .string()
        .min(1)
        .max(300)
        .optional()
        .meta({ deprecated: true })
        .describe(
          'Deprecated as a named argument: send marketId or marketSlug. A market ID or slug; on REST it is the path segment of ' +
            '/api/markets/{idOrSlug}, which takes either.',
        ),
    })
    .refine((v) => v.marketId !== undefined || v.marketSlug !== undefined || v.idOrSlug !== undefined, {
      path: ['marketId'],
      message: 'send marketId or marketSlug (the market to read)',
    }),
  output: z.object({
    ...MarketFields,
    ...MarketStatsFields,
    description: z.string().nullable().describe('Resolution rules, as the venue states them.'),
    createdAt: z.string().describe('When the market was created (ISO 8601), or first mirrored.'),
    resolvedAt: z.string().nullable().describe('When it resolved (ISO 8601), else null.'),
    odds: z
      .object({
        yes: Quote.describe("The YES token's book."),
        no: Quote.describe("The NO token's book."),
        asOf: z.string().nullable().describe('When these prices were quoted (ISO 8601).'),
        ageSeconds: z.number().nullable().describe('Age of the prices in seconds.'),
        live: z.boolean().describe('True when quoted live from the venue just now; false for the last mirrored prices.'),
        source: z.enum(['simulated', 'polymarket', 'mirror']).describe('Who quoted them: the venue, or the local mirror.'),
      })
      .describe('Prices of both sides.'),
  }),
  rest: { method: 'GET', path: '/api/markets/:idOrSlug' },
  annotations: { title: 'Market odds', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  errors: ['NOT_FOUND'],
  examples: [
    {
      input: { marketSlug: exampleMarket.slug },
      output: {
        ...exampleMarket,
        ...exampleStats,
        description: 'Resolves YES if the BTC/USD daily close is above $120,000 on March 3, 2027; otherwise NO.',
        createdAt: '2026-10-01T08:00:00.000Z',
        resolvedAt: null,
        odds: {
          yes: { bid: 0.418, ask: 0.422, mid: 0.42 },
          no: { bid: 0.578, ask: 0.582, mid: 0.58 },
          asOf: '2026-11-22T10:00:00.000Z',
          ageSeconds: 0,
          live: true,
          source: 'simulated',
        },
      },
    },
  ],
  handler: async (ctx, input) => ctx.services.markets.odds(input),
});

export const getPriceHistory = defineMethod({
  name: 'get_price_history',
  toolset: 'markets',
  defaultTool: true,
  area: 'Markets',
  summary: 'Price history of a token over an interval',
  brief: 'Price points { t: Unix seconds, p: 0..1 } of one outcome token over an interval ending now: 1h, 6h, 1d, 1w (default), 1m or max. Free.',
  description:
    "Chronological { t, p } points (Unix seconds, price 0..1) of one outcome token over an interval ending now: 1h (a point a minute), 6h, 1d, 1w (hourly, default), 1m or max. A community market token answers every trade's price. Free to call. Errors: VALIDATION_ERROR (400); NOT_FOUND (404); UPSTREAM_UNAVAILABLE (500, the feed is down and the mirror has nothing).",
  auth: 'public',
  limit: 'api',
  input: z.object({
    tokenId: z.string().min(1).max(200).describe('Token ID (outcomeTokens[].tokenId).'),
    interval: z.enum(INTERVALS).default('1w').describe('One of 1h, 6h, 1d, 1w, 1m, max; default 1w.'),
  }),
  output: z.object({
    history: z
      .array(
        z
          .object({
            t: z.number().int().describe('Unix timestamp, seconds.'),
            p: Probability.describe('Price (implied probability), 0..1.'),
          })
          .describe('PricePoint'),
      )
      .describe('Points in chronological order.'),
    tokenId: z.string().describe('The token asked for.'),
    interval: z.enum(INTERVALS).describe('The interval served.'),
    resolutionSeconds: z.number().int().describe('Spacing of the points in seconds.'),
    source: z
      .enum(['simulated', 'polymarket', 'mirror', 'community'])
      .describe("Who supplied the points: the venue, the local mirror, or a community market's market maker."),
    simulated: z.boolean().describe('True for a market of the built-in simulated venue.'),
  }),
  rest: { method: 'GET', path: '/api/price-history' },
  annotations: { title: 'Price history', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  errors: ['NOT_FOUND', 'UPSTREAM_UNAVAILABLE'],
  examples: [
    {
      input: { tokenId: exampleMarket.outcomeTokens[0]!.tokenId, interval: '1h' },
      output: {
        history: [
          { t: 1795514400, p: 0.418 },
          { t: 1795514460, p: 0.42 },
        ],
        tokenId: exampleMarket.outcomeTokens[0]!.tokenId,
        interval: '1h',
        resolutionSeconds: 60,
        source: 'simulated',
        simulated: true,
      },
    },
  ],
  handler: async (ctx, input) =>
    isCommunityToken(input.tokenId)
      ? ctx.services.communityTrading.history(input.tokenId, input.interval, ctx.clock.now())
      : ctx.services.markets.history(input.tokenId, input.interval),
});

const BookLevel = z
  .object({
    price: Probability.describe('Price per share at this level, 0..1.'),
    shares: z.number().min(0).describe('Shares offered at this price.'),
  })
  .describe('One level of the book.');

export const getOrderBook = defineMethod({
  name: 'get_order_book',
  toolset: 'markets',
  defaultTool: true,
  area: 'Markets',
  summary: "One token's order book: price levels with their sizes, best first",
  brief:
    "The live order book of one outcome token (tokenId, or marketId and outcome): bids and asks as { price, shares }, best first. On Polymarket a fill never takes more than the book shows; the simulated venue's book is synthetic. Free.",
  description:
    "Reads the live book of one outcome token (tokenId, or marketId and outcome): bids and asks as { price, shares }, best first, with the best bid and ask and when quoted. On Polymarket these are the venue's levels, and a trade never takes more than they show at or better than its limit; the simulated venue's book is synthetic (synthetic: true; its fills take the whole order at the best price). Free to call. Errors: NOT_FOUND (404); PRICE_UNAVAILABLE (503, not trading or no fresh price); VALIDATION_ERROR (400).",
  auth: 'public',
  limit: 'api',
  input: z
    .object({
      tokenId: z.string().min(1).max(200).optional().describe('Token ID (outcomeTokens[].tokenId); or send marketId and outcome.'),
      marketId: z.string().min(1).max(200).optional().describe('Market ID (Market.id), with outcome, instead of tokenId.'),
      outcome: z.enum(['YES', 'NO']).optional().describe('YES or NO: which token of marketId.'),
    })
    .refine((v) => v.tokenId !== undefined || (v.marketId !== undefined && v.outcome !== undefined), {
      path: ['tokenId'],
      message: 'send tokenId, or marketId and outcome',
    }),
  output: z.object({
    tokenId: z.string().describe('The token read.'),
    marketId: z.string().describe('Its market.'),
    outcome: z.enum(['YES', 'NO']).describe('YES or NO token.'),
    source: z.enum(['simulated', 'polymarket']).describe('The venue that quoted it.'),
    synthetic: z
      .boolean()
      .describe("True when the venue publishes no depth (the simulated venue) and the levels are made from its bid, ask and the market's volume."),
    bids: z.array(BookLevel).describe('Bid levels, best (highest) first; empty when no levels could be read.'),
    asks: z.array(BookLevel).describe('Ask levels, best (lowest) first; empty when no levels could be read.'),
    bid: Probability.describe('Best bid: what a sell fills at now.'),
    ask: Probability.describe('Best ask: what a buy fills at now.'),
    mid: Probability.describe('Midpoint of bid and ask: the implied probability.'),
    asOf: z.iso.datetime().describe('When the venue quoted this book.'),
    ageSeconds: z.number().int().min(0).describe('Age of the quote in seconds.'),
  }),
  rest: { method: 'GET', path: '/api/book' },
  annotations: { title: 'Order book', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  errors: ['NOT_FOUND', 'PRICE_UNAVAILABLE'],
  examples: [
    {
      input: { tokenId: exampleMarket.outcomeTokens[0]!.tokenId },
      output: {
        tokenId: exampleMarket.outcomeTokens[0]!.tokenId,
        marketId: exampleMarket.id,
        outcome: 'YES',
        source: 'simulated',
        synthetic: true,
        bids: [
          { price: 0.418, shares: 184 },
          { price: 0.408, shares: 368 },
        ],
        asks: [
          { price: 0.422, shares: 184 },
          { price: 0.432, shares: 368 },
        ],
        bid: 0.418,
        ask: 0.422,
        mid: 0.42,
        asOf: '2026-11-22T10:00:00.000Z',
        ageSeconds: 0,
      },
    },
  ],
  handler: async (ctx, input) => ctx.services.markets.book(input),
});

const NewsItem = z
  .object({
    id: z.string().describe('News item ID, unique and stable (the same seed gives the same ID).'),
    marketId: z.string().describe('The market it is about (Market.id); send it as `marketId` to get_market_odds or paper_trade.'),
    question: z.string().describe("The market's question."),
    publishedAt: z.iso.datetime().describe('When the venue published it (ISO 8601); never later than now.'),
    headline: z.string().describe('One-line headline: the kind of story and the market question.'),
    body: z.string().describe('A short report: what happened and whether it raises or cuts the chances of YES (the size is not stated).'),
  })
  .describe('A news item the venue published about one of its markets.');

export const listNews = defineMethod({
  name: 'list_news',
  toolset: 'markets',
  area: 'Markets',
  summary: 'News about markets, newest first',
  brief:
    "News about markets, newest first, each naming its market and whether it raises or cuts YES's chances (a simulated venue with news only). Filter by marketId, since, until. Free.",
  description:
    "News about the markets, newest first: each item names its market and says whether it raises or cuts the chances of YES. Only the simulated venue with SIM_INFORMATION=on publishes news: each market's hidden probability moves with its news, the price catches up over hours, and the outcome is drawn from the hidden probability, so acting early is a skill. Otherwise the list is empty. Filter by marketId and by since (exclusive) and until (inclusive); pass nextCursor as cursor for the next page. Free to call. Errors: VALIDATION_ERROR (400).",
  auth: 'public',
  limit: 'api',
  input: z.object({
    marketId: z.string().min(1).max(200).optional().describe('Only news about this market (Market.id, e.g. sim-11420).'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only news published after this time (ISO 8601, exclusive).'),
    until: z.iso.datetime({ offset: true }).optional().describe('Only news published at or before this time (ISO 8601); never later than now.'),
    limit: z.number().int().min(1).max(100).default(20).describe('Items per page.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page; omit for the first.'),
  }),
  output: z.object({
    news: z.array(NewsItem).describe('This page of news items, newest first (by time, then id).'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/news' },
  annotations: { title: 'Market news', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  examples: [
    {
      input: { marketId: exampleMarket.id, limit: 1 },
      output: {
        news: [
          {
            id: `news-${exampleMarket.id}-3`,
            marketId: exampleMarket.id,
            question: exampleMarket.question,
            publishedAt: '2026-11-22T09:41:07.000Z',
            headline: `Inflows surge: ${exampleMarket.question}`,
            body: `Exchange and fund-flow data show a surge of inflows. Observers say this sharply raises the chances that "${exampleMarket.question}" resolves YES.`,
          },
        ],
        nextCursor: 'eyJzIjoibmV3cyIsImsiOiIxNzk1Njg2MDY3MDAwIiwiaSI6Im5ld3Mtc2ltLTExNDIwLTMifQ',
      },
    },
  ],
  handler: async (ctx, input) => ctx.services.markets.news(input),
});
