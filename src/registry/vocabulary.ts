/**
 * One vocabulary (issue 34 item 2; docs/glossary.md): the names a field with a known meaning must not use, each with
 * the glossary name to use instead. The registry test (test/registry/vocabulary.test.ts) walks every method's input
 * and output schema against this list; an old name survives only as a field marked `deprecated: true` (an alias kept
 * for one version) or where the SPEC itself fixes it (SPEC_FIXED).
 */

/** A name with a glossary name instead: `use` is what to write, `why` the concept. */
export interface Synonym {
  use: string;
  why: string;
}

export const SYNONYMS: Readonly<Record<string, Synonym>> = {
  // Average prices: one name, `avgPrice` (the SPEC's Position.avgPrice).
  avgFillPrice: { use: 'avgPrice', why: 'an average price per share is avgPrice' },
  averagePrice: { use: 'avgPrice', why: 'an average price per share is avgPrice' },
  maxAveragePrice: { use: 'maxAvgPrice', why: 'a bound on an average price is maxAvgPrice / minAvgPrice' },
  minAveragePrice: { use: 'minAvgPrice', why: 'a bound on an average price is maxAvgPrice / minAvgPrice' },
  // Shares vs dollars: a field never means both.
  size: { use: 'amount (dollars to spend, BUY) or shares (shares to buy or sell)', why: 'one field never means dollars for one side and shares for the other' },
  filledSize: { use: 'filledCash or filledShares', why: 'one field never means dollars for one side and shares for the other' },
  quantity: { use: 'shares', why: 'a count of shares is shares (the SPEC keeps quantity where it names it)' },
  // Dollars a trade record moved: cash (as in events and filledCash); `amount` is what a caller asks to spend.
  // Paging: one cursor / nextCursor pair.
  afterSeq: { use: 'cursor', why: 'a list is paged by cursor / nextCursor' },
  lastSeq: { use: 'nextCursor', why: 'a list is paged by cursor / nextCursor' },
  nextFromSeq: { use: 'nextCursor', why: 'a list is paged by cursor / nextCursor' },
  pageToken: { use: 'cursor', why: 'a list is paged by cursor / nextCursor' },
  nextPageToken: { use: 'nextCursor', why: 'a list is paged by cursor / nextCursor' },
  after: { use: 'cursor', why: 'a list is paged by cursor / nextCursor' },
  offset: { use: 'cursor', why: 'a list is paged by cursor / nextCursor' },
  page: { use: 'cursor', why: 'a list is paged by cursor / nextCursor' },
  // Prices: price (0..1, per share), limitPrice for an order's bound.
  fillPrice: { use: 'price', why: 'the price of a fill is price' },
  // Times: <event>At, ISO 8601.
  created: { use: 'createdAt', why: 'a timestamp is <event>At' },
  timestamp: { use: 'createdAt (or another <event>At)', why: 'a timestamp is <event>At' },
  // Lifecycles: markets have a status, your own objects (orders, webhooks, deliveries, replays) a state (checked by value
  // in the test); an HTTP status code is httpStatus.
  httpStatusCode: { use: 'httpStatus', why: "a receiver's HTTP status code is httpStatus" },
};

/**
 * Where the SPEC (the contract) fixes a name the list above would otherwise refuse: `<method>.<input|output>:<path>`,
 * with `[]` for an array's items. The community methods that answer in paper_trade's and sell_position's shapes keep
 * those shapes' names.
 */
export const SPEC_FIXED: ReadonlySet<string> = new Set([
  'get_portfolio.output:positions[].quantity', // Position.quantity
  'paper_trade.output:quantity', // POST /api/trade 200: quantity (shares bought)
  'buy_community_shares.output:quantity', // paper_trade's result shape
  'sell_position.input:quantity', // POST /api/positions/{id}/sell body
  'sell_community_shares.input:quantity', // sell_position's input
]);

/** The statuses a market has (the SPEC's Community market status, and a mirrored market's): `status` holds only these. */
export const MARKET_STATUSES: ReadonlySet<string> = new Set(['active', 'closed', 'resolved', 'all']);

/** Keys that are data, not field names: get_replay's figures are keyed by get_benchmark_leaderboard's metric values. */
export const DATA_KEYS: ReadonlySet<string> = new Set(['log_score', 'max_drawdown']);

/**
 * The stated probability (docs/glossary.md, "Stated probability"): what a caller believes, recorded as a forecast. One
 * name: `probability` for the chance that YES resolves (a mirrored market), `probabilities` for one chance per outcome (a
 * community market; `[P(YES)]` where a mirrored forecast is shown as a list). `forecast` / `forecasts` name the record
 * (the object submit_forecast answers, a list of them) or a count of them, never the number itself.
 */
export const STATED_PROBABILITY = { one: 'probability', perOutcome: 'probabilities' } as const;

/** Names the stated probability once had: a number 0..1 (or a list of them) under one of these is a second name. */
export const RETIRED_PROBABILITY_NAMES: ReadonlySet<string> = new Set(['forecast', 'forecasts', 'statedProbability', 'yourProbability', 'chance']);

/**
 * One shape for a calibration bin (a row of a reliability table), on every method: the bin's edges `binLow` (inclusive)
 * and `binHigh` (exclusive; the last bin includes 1), its count `n`, then `meanForecast` and `observedFrequency`. An
 * object carrying any bin edge carries all three of BIN_FIELDS and none of RETIRED_BIN_FIELDS (except as deprecated).
 */
export const BIN_FIELDS = ['binLow', 'binHigh', 'n'] as const;
export const RETIRED_BIN_FIELDS: ReadonlySet<string> = new Set(['lower', 'upper', 'count', 'bucketLow', 'bucketHigh', 'lo', 'hi']);

/** When a deprecated field was announced (RFC 9745 `Deprecation`) and when it goes (RFC 8594 `Sunset`), UTC dates. */
export interface Deprecation {
  since: string;
  sunset: string;
}

// Each batch: announced on the day its alias was made, gone at least 90 days later.
const ISSUE_19: Deprecation = { since: '2026-11-25', sunset: '2027-03-01' };
const ISSUE_34: Deprecation = { since: '2026-11-28', sunset: '2027-03-01' };
const ISSUE_51: Deprecation = { since: '2026-12-06', sunset: '2027-06-01' };
const ISSUE_50: Deprecation = { since: '2026-12-06', sunset: '2027-06-01' };

/**
 * Every deprecated method's dates, by its name (a method is deprecated by `deprecated: { use }` in its definition: a
 * venue alias of one method that tells the venue from the market, issue 50 item 2). docs/glossary.md lists each.
 */
export const DEPRECATED_METHODS: Readonly<Record<string, Deprecation>> = {
  quote_community_trade: ISSUE_50,
  buy_community_shares: ISSUE_50,
  sell_community_shares: ISSUE_50,
};

/**
 * Every deprecated field's dates, by its old name (a field is deprecated by `.meta({ deprecated: true })` on its
 * schema; the test holds every such field to a row here, and docs/glossary.md lists each with its dates). An answer
 * that still carries one says so in `Deprecation` and `Sunset` headers; `Prefer: strict-vocabulary` answers without.
 */
export const DEPRECATIONS: Readonly<Record<string, Deprecation>> = {
  idOrSlug: ISSUE_19,
  size: ISSUE_34,
  filledSize: ISSUE_34,
  avgFillPrice: ISSUE_34,
  quantity: ISSUE_34,
  averagePrice: ISSUE_34,
  maxAveragePrice: ISSUE_34,
  minAveragePrice: ISSUE_34,
  amount: ISSUE_34,
  afterSeq: ISSUE_34,
  lastSeq: ISSUE_34,
  nextFromSeq: ISSUE_34,
  status: ISSUE_34,
  forecast: ISSUE_51,
  forecasts: ISSUE_51,
  lower: ISSUE_51,
  upper: ISSUE_51,
  count: ISSUE_51,
};
