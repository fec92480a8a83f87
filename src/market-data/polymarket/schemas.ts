import { z } from 'zod';

/**
 * The upstream shapes we rely on, validated record by record. Gamma sends `outcomes`, `outcomePrices`
 * and `clobTokenIds` as JSON-encoded strings (sometimes as arrays); prices arrive as strings or numbers.
 * Only the fields we store are checked: everything else passes through untouched.
 */

const jsonStringArray = z.union([
  z.array(z.union([z.string(), z.number()])),
  z.string().transform((s, ctx) => {
    try {
      const v: unknown = JSON.parse(s);
      if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v as Array<string | number>;
    } catch {
      // fall through to the issue below
    }
    ctx.addIssue({ code: 'custom', message: 'not a JSON-encoded array of strings' });
    return z.NEVER;
  }),
]);

const stringish = z.union([z.string(), z.number()]).transform(String);
const numberish = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d*\.?\d+(e[-+]?\d+)?$/i)
    .transform(Number),
]);
const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'not a date')
  .transform((s) => new Date(s));

const GammaTag = z.object({ label: z.string().nullish(), slug: z.string().nullish() }).loose();
const GammaEvent = z.object({ category: z.string().nullish(), tags: z.array(GammaTag).nullish() }).loose();

export const GammaMarket = z
  .object({
    id: stringish.pipe(z.string().min(1).max(100)),
    question: z.string().trim().min(1).max(1000),
    slug: z.string().trim().min(1).max(300),
    description: z.string().nullish(),
    category: z.string().nullish(),
    image: z.string().nullish(),
    icon: z.string().nullish(),
    volume: numberish.nullish().catch(null),
    volumeNum: z.number().nullish().catch(null),
    volume24hr: numberish.nullish().catch(null),
    openInterest: numberish.nullish().catch(null),
    lastTradePrice: numberish.nullish().catch(null),
    orderPriceMinTickSize: numberish.nullish().catch(null),
    orderMinSize: numberish.nullish().catch(null),
    endDate: isoDate.nullish().catch(null),
    createdAt: isoDate.nullish().catch(null),
    startDate: isoDate.nullish().catch(null),
    closedTime: z.string().nullish(),
    active: z.boolean().nullish(),
    closed: z.boolean().nullish(),
    archived: z.boolean().nullish(),
    outcomes: jsonStringArray.pipe(z.array(z.union([z.string(), z.number()]).transform(String)).length(2)),
    outcomePrices: jsonStringArray.pipe(z.array(z.union([z.string(), z.number()])).length(2)),
    clobTokenIds: jsonStringArray.pipe(z.array(stringish.pipe(z.string().regex(/^\d{1,100}$/))).length(2)),
    umaResolutionStatus: z.string().nullish(),
    bestBid: numberish.nullish().catch(null),
    bestAsk: numberish.nullish().catch(null),
    tags: z.array(GammaTag).nullish().catch(null),
    events: z.array(GammaEvent).nullish().catch(null),
  })
  .loose();
export type GammaMarket = z.infer<typeof GammaMarket>;

/** A keyset page: `{ markets, next_cursor }`; the records inside are validated one by one. */
export const GammaKeysetPage = z.object({
  markets: z.array(z.unknown()),
  next_cursor: z.string().nullish(),
});

const Level = z.object({ price: z.union([z.string(), z.number()]), size: z.union([z.string(), z.number()]).optional() }).loose();

export const ClobBook = z
  .object({
    asset_id: stringish.optional(),
    timestamp: z.union([z.string(), z.number()]).optional(),
    bids: z.array(Level).default([]),
    asks: z.array(Level).default([]),
  })
  .loose();

export const ClobPrice = z.object({ price: z.union([z.string(), z.number()]) }).loose();

/** `/midpoint` has answered both `mid` and `mid_price`. */
export const ClobMidpoint = z
  .object({ mid: z.union([z.string(), z.number()]).optional(), mid_price: z.union([z.string(), z.number()]).optional() })
  .loose()
  .refine((m) => m.mid !== undefined || m.mid_price !== undefined, 'no mid or mid_price');

export const ClobHistory = z.object({
  history: z.array(z.unknown()),
});

export const ClobHistoryPoint = z.object({ t: numberish, p: numberish });
