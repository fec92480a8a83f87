import type { ForecastFacts, ForecastVenue } from './forecast-rules';

/**
 * How a forecast record joins its account's hash chain, in SQL: one statement (recordSql), whether the forecast comes
 * alone (submit_forecast) or with a trade's intent (run in the trade's transaction once the trade is written). The chain head has a row of its own (recordSql).
 */

/**
 * The market's open flag and mid price(s) at this instant, as an integer array and as its canonical JSON text. A mirrored
 * market's mid is the quoted one (`quoted`: a boolean and a bigint parameter, ForecastFacts.quotedMidMicro) when the
 * service has live prices, else the last synced one.
 */
function midsSql(venue: ForecastVenue, market: string, at: string, quoted: [string, string]): string {
  const mid = `(CASE WHEN ${quoted[0]}::boolean THEN ${quoted[1]}::bigint ELSE t.price_micro END)`;
  return venue === 'mirrored'
    ? `SELECT mk.status = 'active' AS open, ARRAY[${mid}] AS mids, '[' || coalesce(${mid}::text, 'null') || ']' AS mids_json
    FROM markets mk LEFT JOIN market_tokens t ON t.market_id = mk.id AND t.outcome = 'YES' WHERE mk.id = ${market}`
    : `SELECT c.status = 'active' AND c.end_date > ${at} AS open, array_agg(o.price_micro ORDER BY o.idx) AS mids,
      '[' || string_agg(coalesce(o.price_micro::text, 'null'), ',' ORDER BY o.idx) || ']' AS mids_json
    FROM community_markets c JOIN community_outcomes o ON o.market_id = c.id WHERE c.id = ${market}::text::uuid
      -- The quote's parameters, typed and unused: a community market's mids are its market maker's own live prices.
      AND (${quoted[0]}::boolean OR ${quoted[1]}::bigint IS NULL OR true) GROUP BY c.id`;
}

/** The two parameters midsSql's `quoted` names: whether a quote was taken, and its YES mid (micro). */
const quotedParams = (f: ForecastFacts): [boolean, string | null] => [
  f.quotedMidMicro !== undefined,
  f.quotedMidMicro === undefined || f.quotedMidMicro === null ? null : f.quotedMidMicro.toString(),
];

/**
 * The hash of the record that follows a head (`head`, `seq`: SQL for the previous record's hash and seq): sha256 (hex)
 * of the canonical payload the caller built around the three chain fields (payloadAround: four texts, parameters
 * `$first` to `$first + 3`), with the mids' JSON text `mids` in its slot. Used by recordSql only.
 */
function nextHash(first: number, mids: string, head: string, seq: string): string {
  const [a, b, c, d] = [0, 1, 2, 3].map((i) => `$${first + i}::text`);
  return `encode(sha256(convert_to(${a} || ${mids} || ${b} || coalesce('"' || ${head} || '"', 'null') || ${c} || (${seq} + 1)::text || ${d}, 'UTF8')), 'hex')`;
}

const COLUMNS = 'id, user_id, seq, market_id, venue, source, probabilities_micro, mids_micro, rationale, created_at, prev_hash, hash';

/**
 * A forecast, one statement: the account's chain head (`forecast_chain_heads`, migration 1700000000077) advanced — its
 * first record creates it — only when the market is open and the probabilities match its outcomes, and the record
 * inserted from it. Nothing is written otherwise. The head's row lock orders an account's records, and the head read
 * from the locked row is the latest even when the statement waited for it. Parameters: $1 id, $2 user, $3 market,
 * $4 venue, $5 source, $6 probabilities µ, $7 rationale, $8 time, $9..$12 the payload around the chain fields, $13/$14
 * the quoted mid (midsSql).
 */
export const recordSql = (venue: ForecastVenue) => `
  WITH m AS (${midsSql(venue, '$3', '$8', ['$13', '$14'])}),
  link AS (
    INSERT INTO forecast_chain_heads AS s (user_id, forecast_seq, forecast_head, forecast_prev_hash)
    SELECT $2, 1, ${nextHash(9, 'm.mids_json', 'NULL::text', '0')}, NULL FROM m WHERE m.open AND cardinality(m.mids) = cardinality($6::bigint[])
    ON CONFLICT (user_id) DO UPDATE SET forecast_seq = s.forecast_seq + 1, forecast_prev_hash = s.forecast_head,
      forecast_head = ${nextHash(9, '(SELECT mids_json FROM m)', 's.forecast_head', 's.forecast_seq')}
    RETURNING s.forecast_seq, s.forecast_head AS forecast_hash, s.forecast_prev_hash AS forecast_prev)
  INSERT INTO forecasts (${COLUMNS})
  SELECT $1, $2, link.forecast_seq, $3, $4, $5, $6::bigint[], m.mids, $7, $8, link.forecast_prev, link.forecast_hash
  FROM link, m RETURNING *`;

/** recordSql's parameters in their order. */
export const recordParams = (f: ForecastFacts, around: readonly string[]): unknown[] => [
  f.id,
  f.userId,
  f.marketId,
  f.venue,
  f.source,
  f.probabilitiesMicro.map(String),
  f.rationale,
  f.createdAt,
  ...around,
  ...quotedParams(f),
];
