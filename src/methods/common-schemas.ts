import { z } from 'zod';

/** Schemas shared by several methods' declarations. */
export const Email = z.email().max(254);

export const Balance = z
  .number()
  .min(0)
  .describe('Cash balance in virtual dollars, exact to 6 decimals (it includes what resting buy orders reserve; see get_balance.available).');

export const Dollars = z.number().describe('Virtual dollars, exact to 6 decimals.');

export const Probability = z.number().min(0).max(1).describe('Implied probability, 0..1.');

/** Decimals the ledger keeps for dollars and shares: integer micro-units (src/domain/money/micro.ts). */
export const LEDGER_DECIMALS = 6;

/** Largest share quantity a caller may send: far beyond any holding, and still exact in micro-units. */
const MAX_SHARES = 1_000_000_000_000;

/**
 * Whether a wire number is exactly a decimal of at most LEDGER_DECIMALS places: rounding it to that many
 * places gives back the same number. (Not zod's multipleOf: its float check lets 1e-7 through, and JSON
 * Schema validators' own multipleOf refuses plain values such as 0.3.)
 */
const keepsLedgerPrecision = (v: number) => Number(v.toFixed(LEDGER_DECIMALS)) === v;
const PRECISION_MESSAGE = `at most ${LEDGER_DECIMALS} decimal places: the ledger keeps micro-units and refuses, never rounds, finer amounts`;

/** Dollars a caller asks to spend: > 0, at most 1,000,000, at most 6 decimals (a finer amount is refused). */
export const SpendAmount = z.number().gt(0).max(1_000_000).refine(keepsLedgerPrecision, PRECISION_MESSAGE);

/** Shares a caller asks to sell: > 0, at most 6 decimals (a finer quantity is refused). */
export const ShareQuantity = z.number().gt(0).max(MAX_SHARES).refine(keepsLedgerPrecision, PRECISION_MESSAGE);

export const DisplayName = z
  .string()
  .refine((s) => s.trim().length >= 2 && s.trim().length <= 20, 'must be 2 to 20 characters')
  .describe('Public display name, 2 to 20 characters.');

/** The idempotency key of a state-changing call, beside the Idempotency-Key header (JSON-RPC and MCP carry no headers per call). */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Optional idempotency key (JSON-RPC and MCP; on REST send the Idempotency-Key header). A retry with the same key and body returns the original result and never acts twice; kept 24 hours.',
  );

/** A stated probability (issue 33): 0..1 with at most 6 decimals, stored exactly in micro-units (a finer one is refused). */
export const ForecastProbability = z.number().min(0).max(1).refine(keepsLedgerPrecision, 'at most 6 decimal places');

/** Control characters other than a line break (U+000A). */
const hasControl = (s: string) => [...s].some((c) => (c < ' ' && c !== '\n') || c === '\u007f');

/** A forecast's optional short rationale: one line or a few, no control characters but line breaks. */
export const ForecastRationale = z
  .string()
  .max(280)
  .refine((s) => !hasControl(s), 'no control characters (line breaks are allowed)')
  // A lone UTF-16 surrogate is not Unicode text: RFC 8785, which the record's hash is taken over, has no spelling for it.
  .refine((s) => !/\p{Cs}/u.test(s), 'no unpaired surrogate code units')
  .optional()
  .describe('Short rationale, public with the forecast once the market closes.');

/** The optional stated probability a mirrored trade or order carries (docs/glossary.md, "Stated probability"). */
export const TradeProbability = ForecastProbability.optional().describe('Your probability that YES resolves, recorded as a stated forecast with the trade.');

/** The name the stated probability had on a mirrored trade or order, kept one version. */
export const DeprecatedTradeForecast = ForecastProbability.optional()
  .meta({ deprecated: true })
  .describe('Deprecated (send probability): your probability that YES resolves, recorded as a forecast with the trade.');

/** The size of a quoted trade, on every venue: a BUY spends `amount` dollars, a SELL sells `shares` shares. */
export const QuoteSize = {
  side: z.enum(['BUY', 'SELL']).describe('BUY (spend amount dollars) or SELL (sell shares).'),
  amount: SpendAmount.optional().describe('Dollars to spend, for a BUY; at most 6 decimals.'),
  shares: ShareQuantity.optional().describe('Shares to sell, for a SELL; at most 6 decimals.'),
  quantity: ShareQuantity.optional().meta({ deprecated: true }).describe('Deprecated (send shares): shares to sell, for a SELL.'),
};

/** What a sale answers beside its price and shares, on every venue. */
export const SaleResult = {
  proceeds: Dollars.describe('Dollars credited.'),
  realizedPnl: Dollars.describe('Realized PnL of this sale.'),
  positionId: z.string().describe('The position sold from.'),
  isClosed: z.boolean().describe('True when this sale closed the position.'),
  balance: Balance.describe('Your balance after the sale.'),
};
