import { z } from 'zod';
import type { AnyMethod } from '../../src/registry/method';
import type { AnyStream } from '../../src/registry/stream';
import type { Random } from './random';

/**
 * The methods an agent can call to read during a replay run: every registry method marked read-only that a run's key
 * can reach. A run key is an API key (src/auth/run-keys.ts), so it reaches every method but the browser session's
 * (auth 'session'). Derived from the registry, so a new read method is probed without a change here.
 */
export function runReachableReads(methods: readonly AnyMethod[]): AnyMethod[] {
  return methods.filter((m) => m.annotations.readOnlyHint === true && m.auth !== 'session');
}

/** The streams a run key can open: every one (streams are reads, public or keyed; a run key's stream is its run's). */
export function runReachableStreams(streams: readonly AnyStream[]): AnyStream[] {
  return streams.filter((s) => s.auth === 'public' || s.auth === 'key');
}

/**
 * Read methods that cannot answer with data in a run, each with its reason: the probe still calls them (their errors are
 * scanned too), but does not expect a success. Any other reachable read must answer with data at least once an episode.
 */
export const NO_DATA_IN_A_RUN: Readonly<Record<string, string>> = {
  get_community_market: 'a run has no community market: creating one takes a browser session, which a run key is not',
  quote_community_trade: 'a run has no community market to quote (as get_community_market)',
  list_webhook_deliveries: 'the probe creates no webhook in a run (a webhook’s deliveries go out of the process)',
};

/** What the probe has seen of the run so far: what an input may name. */
export interface Known {
  runId: string;
  accountId: string;
  clockMs: number;
  startMs: number;
  markets: Array<{ id: string; slug: string; tokens: string[] }>;
  /** Markets the catalog lists later than the clock, and their tokens: a reader asks for them too. */
  unborn: Array<{ id: string; slug: string; tokens: string[] }>;
  orders: string[];
  positions: string[];
  newsMarkets: string[];
  suites: string[];
  /** The last nextCursor each method answered, to page on. */
  cursors: Map<string, string>;
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  pattern?: string;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  deprecated?: boolean;
  anyOf?: JsonSchema[];
};

const schemaCache = new Map<string, { properties: Record<string, JsonSchema>; required: string[] }>();

function inputSchemaOf(method: AnyMethod): { properties: Record<string, JsonSchema>; required: string[] } {
  let s = schemaCache.get(method.name);
  if (!s) {
    const json = z.toJSONSchema(method.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, JsonSchema>; required?: string[] };
    s = { properties: json.properties ?? {}, required: json.required ?? [] };
    schemaCache.set(method.name, s);
  }
  return s;
}

/** Which id a field named `id` means, by method (the only field name the methods use for several kinds of thing). */
const ID_KIND: Readonly<Record<string, 'order' | 'account' | 'webhook' | 'position'>> = {
  get_order: 'order',
  get_agent_reputation: 'account',
  list_webhook_deliveries: 'webhook',
};

const HOUR = 3_600_000;

/**
 * A random input for a read method: each field by its name (what it names is taken from what the run has shown, and now
 * and then from the markets the catalog lists later, to ask for the future), else by its JSON Schema (enums, numbers in
 * range, booleans). Optional fields are sent half of the time; deprecated ones never. Times are drawn around the clock,
 * later ones included: a reader that asks for the future must still be answered from the past.
 */
export function randomInput(method: AnyMethod, known: Known, rnd: Random): Record<string, unknown> {
  const { properties, required } = inputSchemaOf(method);
  const market = () => (known.unborn.length > 0 && rnd.chance(0.1) ? rnd.pick(known.unborn) : known.markets.length > 0 ? rnd.pick(known.markets) : undefined);
  const input: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema.deprecated || name === 'idempotencyKey') continue;
    if (!required.includes(name) && !rnd.chance(0.5)) continue;
    const value = fieldValue(method.name, name, schema, known, rnd, market);
    if (value !== undefined) input[name] = value;
  }
  return coherent(method.name, input, known, rnd);
}

function fieldValue(
  methodName: string,
  name: string,
  schema: JsonSchema,
  known: Known,
  rnd: Random,
  market: () => Known['markets'][number] | undefined,
): unknown {
  switch (name) {
    case 'marketId':
      return market()?.id;
    case 'marketSlug':
    case 'slug':
      return market()?.slug;
    case 'idOrSlug': {
      const m = market();
      return m && (rnd.chance(0.5) ? m.id : m.slug);
    }
    case 'tokenId': {
      const m = market();
      return m && rnd.pick(m.tokens);
    }
    case 'q': {
      // A word of a market's slug: search finds it (or, a tenth of the time, a later market's).
      const m = market();
      return (
        m &&
        rnd.pick(
          m.slug
            .split('-')
            .filter((w) => w.length > 3 && !/^\d+$/.test(w))
            .concat(['will']),
        )
      );
    }
    case 'runId':
      return known.runId;
    case 'userId':
      return known.accountId;
    case 'suite':
      return rnd.pick(known.suites);
    case 'cursor':
      return known.cursors.get(methodName);
    case 'since':
    case 'until':
      // From a day before the run's start to a week past its clock.
      return new Date(rnd.int(known.startMs - 24 * HOUR, known.clockMs + 7 * 24 * HOUR)).toISOString();
    case 'id': {
      const kind = ID_KIND[methodName];
      if (kind === 'order' && known.orders.length > 0) return rnd.pick(known.orders);
      if (kind === 'account') return known.accountId;
      return rnd.uuid();
    }
  }
  return bySchema(schema, rnd);
}

function bySchema(schema: JsonSchema, rnd: Random): unknown {
  if (schema.enum) return rnd.pick(schema.enum);
  if (schema.anyOf) return bySchema(rnd.pick(schema.anyOf), rnd);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
      return rnd.int(schema.minimum ?? 1, Math.min(schema.maximum ?? 100, (schema.minimum ?? 1) + 100));
    case 'number':
      return Math.round(rnd.int(1, 50_000)) / 100;
    case 'boolean':
      return rnd.chance(0.5);
    case 'array':
      return schema.items ? Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => bySchema(schema.items!, rnd)) : [];
    case 'string':
      if (schema.pattern?.startsWith('^(0|[1-9]')) return String(rnd.int(0, 50));
      return undefined;
  }
  return undefined;
}

/**
 * Inputs whose fields go together: a quote is a BUY with an amount or a SELL with shares, a book names a token or a
 * market and outcome, a market is named one way. Without these a random input is mostly a validation error.
 */
function coherent(methodName: string, input: Record<string, unknown>, known: Known, rnd: Random): Record<string, unknown> {
  if (methodName === 'quote_trade' || methodName === 'quote_community_trade') {
    const { tokenId } = input;
    return rnd.chance(0.7) ? { side: 'BUY', amount: rnd.int(1, 200), tokenId } : { side: 'SELL', shares: rnd.int(1, 200), tokenId };
  }
  if (methodName === 'get_order_book') {
    const m = known.markets.length > 0 ? rnd.pick(known.markets) : undefined;
    if (!m) return input;
    return rnd.chance(0.6) ? { tokenId: rnd.pick(m.tokens) } : { marketId: m.id, outcome: rnd.pick(['YES', 'NO']) };
  }
  if (methodName === 'get_market_odds') {
    const { idOrSlug, marketId, marketSlug } = input;
    const one = [idOrSlug !== undefined && { idOrSlug }, marketId !== undefined && { marketId }, marketSlug !== undefined && { marketSlug }].filter(Boolean);
    return (one[0] as Record<string, unknown> | undefined) ?? (known.markets.length > 0 ? { idOrSlug: rnd.pick(known.markets).id } : input);
  }
  if (methodName === 'list_news' && typeof input.since === 'string' && typeof input.until === 'string' && input.since > input.until) {
    return { ...input, since: input.until, until: input.since };
  }
  return input;
}
