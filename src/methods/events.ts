import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { defineStream } from '../registry/stream';
import { AppError } from '../errors/app-error';
import { ACCOUNT_EVENT_TYPES } from '../domain/events/account-events';
import { AccountEventPump } from '../domain/events/event-pump';
import { fromMicro } from '../domain/money/micro';
import type { PriceTick } from '../market-data/price-broadcast';
import { PRICE_TICK_INTERVAL_MS } from '../market-data/price-coalescer';
import { aliased } from './aliases';

/** A position in an account's event log: a decimal seq (0 = before the first event). */
export const Seq = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,18})$/, 'a decimal sequence number')
  .describe('Sequence number of an event of your account, as a decimal string (0 = before the first).');

/** One event of an account's log, the same object in list_events and in the data of GET /api/events. */
export const AccountEventSchema = z
  .object({
    seq: z.number().int().min(1).describe('Its sequence number in your account (from 1, no gaps); the SSE id, and the cursor to read on from, in decimal.'),
    type: z.enum(ACCOUNT_EVENT_TYPES).describe('What happened; the SSE event name.'),
    data: z
      .record(z.string(), z.unknown())
      .describe(
        'The details, by type. trade: marketId, tokenId, side (BUY/SELL), shares, price, cash, realizedPnl, positionId (sales). ' +
          'settlement: marketId, tokenId, shares, price (payout per share), cash (payout), realizedPnl, positionId, won (null when void). ' +
          'balance: balance, reserved, available (dollars, after the change). notification: id, kind, title, message, ref. ' +
          'order.*: the order (see get_order).',
      ),
    createdAt: z.iso.datetime().describe('When it happened.'),
  })
  .describe('An event of your account.');

export const listEvents = defineMethod({
  name: 'list_events',
  toolset: 'webhooks',
  area: 'Accounts',
  summary: "Read your account's events after a sequence number (polling)",
  brief:
    "Your account's ordered event log (orders, trades, settlements, notifications, balance changes), each with a seq that grows by one. Pass nextCursor as cursor to read on without gaps or repeats. Free.",
  description:
    "Your account's ordered event log (orders, trades, settlements, notifications, balance changes), each with a seq that grows by one. Pass nextCursor as cursor to read on: nothing is missed or repeated. To have events pushed, hold GET /api/events (Server-Sent Events) or register a webhook instead. Free to call. Errors: VALIDATION_ERROR (400).",
  auth: 'key',
  limit: 'api',
  input: z.object({
    cursor: Seq.optional().describe('Return events after this seq: the nextCursor of your previous call; omit (or "0") to read from the start.'),
    afterSeq: Seq.optional().meta({ deprecated: true }).describe('Deprecated (send cursor): return events after this seq.'),
    limit: z.number().int().min(1).max(200).default(100).describe('Most events to return.'),
    types: z
      .array(z.enum(ACCOUNT_EVENT_TYPES))
      .min(1)
      .max(ACCOUNT_EVENT_TYPES.length)
      .optional()
      .describe('Only events of these types (on REST: types=trade,balance); default every type.'),
  }),
  output: z.object({
    events: z.array(AccountEventSchema).describe('Events after cursor, oldest first.'),
    nextCursor: z.string().describe('Seq of the last event returned (cursor when none): pass it as cursor next time. Never null: the log goes on.'),
    lastSeq: z.string().meta({ deprecated: true }).describe('Deprecated (read nextCursor): the same value.'),
    hasMore: z.boolean().describe('True when more events follow right away: call again with nextCursor.'),
  }),
  rest: { method: 'GET', path: '/api/user/events' },
  annotations: { title: 'List account events', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: { cursor: '41', limit: 2 },
      output: {
        events: [
          {
            seq: 42,
            type: 'trade',
            data: { marketId: 'sim-0001', tokenId: 'sim-0001-yes', side: 'BUY', shares: 200, price: 0.5, cash: 100, realizedPnl: 0 },
            createdAt: '2026-11-25T10:00:00.000Z',
          },
          { seq: 43, type: 'balance', data: { balance: 900, reserved: 0, available: 900 }, createdAt: '2026-11-25T10:00:00.000Z' },
        ],
        nextCursor: '43',
        lastSeq: '43',
        hasMore: false,
      },
    },
  ],
  handler: async (ctx, input) => {
    const userId = requirePrincipal(ctx).userId;
    const after = aliased('cursor', input.cursor, 'afterSeq', input.afterSeq) ?? '0';
    const rows = await ctx.services.events.after(userId, BigInt(after), input.limit + 1, input.types);
    const events = rows.slice(0, input.limit);
    const last = events.at(-1);
    const next = last ? String(last.seq) : after;
    return { events, nextCursor: next, lastSeq: next, hasMore: rows.length > input.limit };
  },
});

/** Events read from the log per query when a stream catches up (a slow client holds at most one page in memory). */
const STREAM_PAGE = 100;

export const streamEvents = defineStream({
  kind: 'stream',
  name: 'stream_events',
  area: 'Accounts',
  summary: "Your account's events, pushed as they happen (Server-Sent Events)",
  description:
    "Server-Sent Events of your account's event log, as list_events returns it: each event has id = its seq, event = its type " +
    '(trade, balance, settlement, notification, order.*) and data = the event as JSON ({seq, type, data, createdAt}). Without ' +
    'Last-Event-ID the stream starts with the events after connecting; with Last-Event-ID (header, or ?lastEventId=) it first sends ' +
    'every event after that seq (lastEventId=0: from the start), so a client that reconnects misses nothing and receives nothing twice. ' +
    'A comment line (": ping") every 15 seconds keeps idle connections open. A client that stops reading is disconnected after 30 ' +
    'seconds and resumes with Last-Event-ID. Authenticate with Authorization: Bearer <API key or access token>, or the browser ' +
    'session cookie. At most 5 streams per account at once (429 RATE_LIMITED beyond). Events are written in the transaction ' +
    'of the change, so what the stream says has committed.',
  auth: 'key',
  limit: 'api',
  input: z.object({
    lastEventId: Seq.optional().describe('Resume after this seq (the Last-Event-ID header takes precedence); omit to start now.'),
    types: z
      .array(z.enum(ACCOUNT_EVENT_TYPES))
      .min(1)
      .max(ACCOUNT_EVENT_TYPES.length)
      .optional()
      .describe('Only events of these types (types=trade,balance); default every type.'),
  }),
  event: AccountEventSchema,
  eventTypes: ACCOUNT_EVENT_TYPES,
  resumable: true,
  perCaller: (config) => config.EVENT_STREAMS_PER_ACCOUNT,
  path: '/api/events',
  errors: ['RATE_LIMITED'],
  open: async (ctx, input, sink) => {
    const userId = requirePrincipal(ctx).userId;
    const { events, eventFeed } = ctx.services;
    // A replay run's feed listens from its first stream on; before the log is read, so no commit slips between.
    await eventFeed.ready();
    const after = input.lastEventId !== undefined ? BigInt(input.lastEventId) : await events.latest(userId);
    const pump = new AccountEventPump({ log: events, feed: eventFeed }, userId, after, sink, {
      pageSize: STREAM_PAGE,
      types: input.types,
      onError: (err) => {
        // The log could not be read (database trouble): the client reconnects with Last-Event-ID and catches up.
        ctx.log.warn('event stream ended by a failed read', { error: err instanceof Error ? err.message : String(err) });
        sink.end();
      },
    });
    pump.start();
  },
});

/** Ids of tokens or markets in a query string: at most 100, each 1..200 characters. */
const IdList = z.array(z.string().min(1).max(200)).min(1).max(100);

export const PriceEventSchema = z
  .object({
    tokenId: z.string().describe('The outcome token.'),
    marketId: z.string().describe('Its market.'),
    price: z.number().min(0).max(1).describe('Its price (midpoint), as the mirror holds it or a live quote gave it.'),
    bid: z.number().min(0).max(1).nullable().describe('Best bid, or null when the venue shows none.'),
    ask: z.number().min(0).max(1).nullable().describe('Best ask, or null when the venue shows none.'),
    at: z.iso.datetime().describe("The venue's time of this price."),
  })
  .describe('A price of one token.');

const tickJson = (t: PriceTick) => ({
  tokenId: t.tokenId,
  marketId: t.marketId,
  price: fromMicro(t.priceMicro),
  bid: t.bidMicro === null ? null : fromMicro(t.bidMicro),
  ask: t.askMicro === null ? null : fromMicro(t.askMicro),
  at: t.at.toISOString(),
});

export const streamPrices = defineStream({
  kind: 'stream',
  name: 'stream_prices',
  area: 'Markets',
  summary: 'Prices of chosen tokens or markets, pushed when they change (Server-Sent Events)',
  description:
    'Server-Sent Events of price changes for up to 100 tokens (?tokens=a,b) and/or markets (?markets=id-or-slug,…; every token of ' +
    'each). First one `price` event per token with its current price as the mirror holds it, then one each time the service learns a ' +
    'different one, in any of its processes: a live quote (read by get_market_odds, get_order_book, a trade or a resting order) whose ' +
    'bid or ask moved, or the market sync storing a new price, bid or ask (data: {tokenId, marketId, price, bid, ask, at}). ' +
    `Coalesced per token: at most one event every ${PRICE_TICK_INTERVAL_MS} ms; the first change after a quiet spell is sent at once, ` +
    `changes inside the ${PRICE_TICK_INTERVAL_MS} ms replace one another and the latest is sent when they end, so the last price of a ` +
    "burst always arrives. `at` is the venue's time of that price; a price older than one already sent is skipped. Prices are " +
    'state, not a log: there are no ids to resume from; a reconnecting client starts with the current prices again. A client too ' +
    'slow to read gets only the latest price of each token. Public, no key needed; at most 20 streams per IP address. Errors: ' +
    'VALIDATION_ERROR (neither tokens nor markets, or too many), NOT_FOUND (a token or market the mirror does not hold).',
  auth: 'public',
  limit: 'api',
  input: z.object({
    tokens: IdList.optional().describe('Token ids (outcomeTokens[].tokenId), comma-separated, at most 100.'),
    markets: IdList.optional().describe('Market ids or slugs, comma-separated, at most 100: every token of each.'),
  }),
  event: PriceEventSchema,
  eventTypes: ['price'],
  resumable: false,
  perCaller: (config) => config.PRICE_STREAMS_PER_IP,
  path: '/api/markets/stream',
  errors: ['NOT_FOUND', 'RATE_LIMITED'],
  open: async (ctx, input, sink) => {
    const tokens = input.tokens ?? [];
    const markets = input.markets ?? [];
    if (tokens.length + markets.length === 0)
      throw new AppError('VALIDATION_ERROR', 'Name at least one token (?tokens=) or market (?markets=).', {
        hint: 'Take tokenIds from outcomeTokens[] of search_prediction_markets.',
      });
    const { priceBroadcast } = ctx.services;
    // A replay run's broadcast listens from its first stream on; before the prices are read, so no sync slips between.
    await priceBroadcast.ready();
    const found = await priceBroadcast.current(tokens, markets);
    const missing = [
      ...tokens.filter((id) => !found.some((t) => t.tokenId === id)),
      ...markets.filter((id) => !found.some((t) => t.marketId === id || t.slug === id)),
    ];
    if (missing.length)
      throw new AppError('NOT_FOUND', `Not in the mirror: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? '…' : ''}.`, {
        hint: 'Use ids from search_prediction_markets (tokenId of outcomeTokens[], market id or slug).',
      });
    if (found.length > 200) throw new AppError('VALIDATION_ERROR', `These name ${found.length} tokens; a stream takes at most 200.`);
    // Latest tick per token not yet written: a slow client gets the newest price of each, never an unbounded queue.
    const pending = new Map<string, PriceTick>();
    let flushing = false;
    const flush = async () => {
      if (flushing) return;
      flushing = true;
      try {
        while (pending.size && !sink.closed) {
          const [id, tick] = pending.entries().next().value as [string, PriceTick];
          pending.delete(id);
          if (!sink.send({ event: 'price', data: tickJson(tick) })) await sink.drained();
        }
      } finally {
        flushing = false;
      }
    };
    const push = (t: PriceTick) => {
      pending.set(t.tokenId, t);
      void flush();
    };
    const ids = found.map((t) => t.tokenId);
    // Ended when prices may have been missed for good: the client reconnects and starts from the current prices.
    const unsubscribe = priceBroadcast.subscribe(ids, push, () => sink.end());
    sink.onClose(unsubscribe);
    for (const t of found) push(t);
  },
});
