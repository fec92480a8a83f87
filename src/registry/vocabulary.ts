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
