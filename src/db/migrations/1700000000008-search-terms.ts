import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEARCH_MARKETS_V1 } from './1700000000003-market-search';

/**
 * How many active markets hold each search lexeme, so search can pick its cheapest road:
 * - search_terms: lexeme → number of active markets holding it, and search_terms_state: how many active
 *   markets there were and when; both rewritten by refresh_search_terms(), which the sync leader calls
 *   after a sync when they are older than ten minutes (src/market-data/market-service.ts). Only costs
 *   depend on them, never results, so a stale count is harmless.
 * - search_markets(query, whole, prefixes): the first version's two passes, steered by those counts.
 *   Its slow cases were rare combinations: the walk over the 2,500 most traded markets read them all
 *   and found fewer than 8, and then, for a rare word with a common prefix ("turkish the", "usdt wil"),
 *   the GIN scan merged the posting lists of every lexeme starting with "the" (tens of thousands of
 *   markets) to find a few hundred. Now the walk is skipped when even the rarest term cannot put 8
 *   matches in it, and the GIN index is asked for the rarest term alone, with the whole query checked on
 *   its rows (ts_match_vq is @@ as a plain function, which no index can serve), when that reads less.
 *   Without counts (a fresh mirror) it behaves exactly as before. Every road returns the same rows.
 */
const SEARCH_MARKETS_V2 = `
CREATE FUNCTION search_markets(query tsquery, whole text[], prefixes text[]) RETURNS TABLE (
  id text, slug text, question text, category text, image_url text, volume double precision, end_date timestamptz,
  status text, winner text, source text, yes_token text, yes_label text, yes_price bigint, no_token text, no_label text, no_price bigint)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  ids text[];
  n_active integer;
  narrow tsquery;
  narrow_docs bigint;
  all_docs bigint := 0;
  est float8;
  d bigint;
  w text;
BEGIN
  SELECT s.active_markets INTO n_active FROM search_terms_state s;
  IF n_active > 0 THEN
    est := n_active;
    FOREACH w IN ARRAY coalesce(whole, '{}') LOOP
      d := coalesce((SELECT t.docs FROM search_terms t WHERE t.lexeme = w), 0);
      all_docs := all_docs + d;
      est := est * least(d, n_active) / n_active;
      IF narrow_docs IS NULL OR d < narrow_docs THEN narrow_docs := d; narrow := to_tsquery('simple', quote_literal(w)); END IF;
    END LOOP;
    -- A prefix's count is the sum over the lexemes it starts (an upper bound: a market may hold several).
    FOREACH w IN ARRAY coalesce(prefixes, '{}') LOOP
      d := coalesce((SELECT sum(t.docs) FROM search_terms t WHERE t.lexeme >= w AND t.lexeme < w || chr(1114111)), 0);
      all_docs := all_docs + d;
      est := est * least(d, n_active) / n_active;
      IF narrow_docs IS NULL OR d < narrow_docs THEN narrow_docs := d; narrow := to_tsquery('simple', quote_literal(w) || ':*'); END IF;
    END LOOP;
  END IF;
  -- No more markets match than hold the rarest term: if those would put fewer than 8 among the 2,500 most
  -- traded, the walk would read all 2,500 for nothing. (Not est: the words people type together occur
  -- together, so est is often far too low.)
  IF narrow IS NULL OR narrow_docs * 2500 >= 8 * n_active THEN
    ids := ARRAY(
      SELECT t.id FROM (
        SELECT m.id, m.volume, m.search_tsv FROM markets m WHERE m.status = 'active'
        ORDER BY m.volume DESC NULLS LAST, m.id LIMIT 2500
      ) t
      WHERE t.search_tsv @@ query ORDER BY t.volume DESC NULLS LAST, t.id LIMIT 8);
  END IF;
  IF ids IS NULL OR cardinality(ids) < 8 THEN
    -- GIN reads the posting lists of every term (a prefix: of every lexeme it starts), then the rows that
    -- match them all (est: the markets matching every term, were the terms independent); a row costs
    -- about 25 posting entries. Reading the rarest term's rows alone and checking the rest on each row
    -- is cheaper when the other terms' lists are long (a common prefix).
    IF narrow IS NOT NULL AND narrow_docs * 26 < all_docs + est * 25 THEN
      ids := ARRAY(
        SELECT m.id FROM markets m WHERE m.status = 'active' AND m.search_tsv @@ narrow AND ts_match_vq(m.search_tsv, query)
        ORDER BY coalesce(m.volume, -1) DESC, m.id LIMIT 8);
    ELSE
      ids := ARRAY(
        SELECT m.id FROM markets m WHERE m.status = 'active' AND m.search_tsv @@ query
        ORDER BY coalesce(m.volume, -1) DESC, m.id LIMIT 8);
    END IF;
  END IF;
  RETURN QUERY
    SELECT m.id, m.slug, m.question, m.category, m.image_url, m.volume, m.end_date, m.status, m.winner, m.source,
      y.token_id, y.label, y.price_micro, n.token_id, n.label, n.price_micro
    FROM unnest(ids) WITH ORDINALITY AS h(market_id, ord)
    JOIN markets m ON m.id = h.market_id
    LEFT JOIN market_tokens y ON y.market_id = m.id AND y.outcome = 'YES'
    LEFT JOIN market_tokens n ON n.market_id = m.id AND n.outcome = 'NO'
    ORDER BY h.ord;
END
$$`;

const REFRESH_SEARCH_TERMS = `
CREATE FUNCTION refresh_search_terms(p_now timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  DELETE FROM search_terms;
  INSERT INTO search_terms (lexeme, docs)
    SELECT word, ndoc FROM ts_stat($q$SELECT search_tsv FROM markets WHERE status = 'active'$q$);
  SELECT count(*) INTO n FROM markets WHERE status = 'active';
  INSERT INTO search_terms_state (singleton, active_markets, refreshed_at) VALUES (true, n, p_now)
    ON CONFLICT (singleton) DO UPDATE SET active_markets = EXCLUDED.active_markets, refreshed_at = EXCLUDED.refreshed_at;
  RETURN n;
END
$$`;

export class SearchTerms1700000000008 implements MigrationInterface {
  name = 'SearchTerms1700000000008';

  async up(q: QueryRunner): Promise<void> {
    // "C" order, so a prefix's lexemes are one contiguous range of the primary key.
    await q.query(`CREATE TABLE search_terms (lexeme text COLLATE "C" PRIMARY KEY, docs integer NOT NULL)`);
    await q.query(`
      CREATE TABLE search_terms_state (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        active_markets integer NOT NULL,
        refreshed_at timestamptz NOT NULL
      )`);
    await q.query(REFRESH_SEARCH_TERMS);
    await q.query('DROP FUNCTION search_markets(tsquery)');
    await q.query(SEARCH_MARKETS_V2);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION search_markets(tsquery, text[], text[])');
    await q.query(SEARCH_MARKETS_V1);
    await q.query('DROP FUNCTION refresh_search_terms(timestamptz)');
    await q.query('DROP TABLE search_terms_state');
    await q.query('DROP TABLE search_terms');
  }
}
