import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The first search function (migration 8 replaces it; its down() puts this one back). */
export const SEARCH_MARKETS_V1 = `
      CREATE FUNCTION search_markets(query tsquery) RETURNS TABLE (
        id text, slug text, question text, category text, image_url text, volume double precision, end_date timestamptz,
        status text, winner text, source text, yes_token text, yes_label text, yes_price bigint, no_token text, no_label text, no_price bigint)
      LANGUAGE plpgsql STABLE
      SET plan_cache_mode = force_generic_plan
      AS $$
      DECLARE ids text[];
      BEGIN
        ids := ARRAY(
          SELECT t.id FROM (
            SELECT m.id, m.volume, m.search_tsv FROM markets m WHERE m.status = 'active'
            ORDER BY m.volume DESC NULLS LAST, m.id LIMIT 2500
          ) t
          WHERE t.search_tsv @@ query ORDER BY t.volume DESC NULLS LAST, t.id LIMIT 8);
        IF cardinality(ids) < 8 THEN
          ids := ARRAY(
            SELECT m.id FROM markets m WHERE m.status = 'active' AND m.search_tsv @@ query
            ORDER BY coalesce(m.volume, -1) DESC, m.id LIMIT 8);
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

/**
 * Search and sync support for the market mirror:
 * - search_tsv: the question and category as 'simple' lexemes (no stemming, so a prefix of a word the
 *   user is still typing matches), kept by PostgreSQL itself as a generated column, behind a GIN index;
 * - a partial index of active markets by volume that carries search_tsv, so a common word is answered
 *   by walking the most traded markets in order (an index-only scan) instead of sorting every match;
 * - search_markets(query): the search plan (see src/market-data/market-search.ts), in PL/pgSQL so
 *   its plans are prepared once per connection instead of planned on every search;
 * - a trigram index on the question for the fallback when no word matches (typos);
 * - market_sync_state: when each feed last synced, so a second process can see a fresh sync and skip.
 */
export class MarketSearch1700000000003 implements MigrationInterface {
  name = 'MarketSearch1700000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await q.query(`
      ALTER TABLE markets ADD COLUMN search_tsv tsvector
        GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, question || ' ' || coalesce(category, ''))) STORED`);
    await q.query('CREATE INDEX markets_search_tsv_idx ON markets USING gin (search_tsv)');
    await q.query(`CREATE INDEX markets_active_volume_idx ON markets (volume DESC NULLS LAST, id) INCLUDE (search_tsv) WHERE status = 'active'`);
    // Pass 1 walks the 2500 most traded active markets and stops at 8 matches: a word common enough to
    // matter is answered here without sorting. Only when it finds fewer (a rarer word) does pass 2 take
    // the GIN index, whose few matches are cheap to sort. If the 8 best matches by volume lie within the
    // 2500 most traded markets, pass 1 is exactly the answer; otherwise pass 2 is. Generic plans: the
    // plan shape is the point, and it does not depend on the words. The columns are MarketViewRow's
    // (src/market-data/market-view.ts): what a market on the wire needs, with its YES and NO tokens.
    await q.query(SEARCH_MARKETS_V1);
    await q.query('CREATE INDEX markets_question_trgm_idx ON markets USING gin (question gin_trgm_ops)');
    await q.query(`CREATE INDEX markets_unresolved_idx ON markets (source, end_date) WHERE status <> 'resolved'`);
    await q.query(`
      CREATE TABLE market_sync_state (
        feed text PRIMARY KEY,
        last_started_at timestamptz,
        last_success_at timestamptz,
        last_error text,
        last_error_at timestamptz,
        markets integer,
        skipped integer
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE market_sync_state');
    await q.query('DROP FUNCTION search_markets(tsquery)');
    await q.query('DROP INDEX markets_unresolved_idx');
    await q.query('DROP INDEX markets_question_trgm_idx');
    await q.query('DROP INDEX markets_active_volume_idx');
    await q.query('DROP INDEX markets_search_tsv_idx');
    await q.query('ALTER TABLE markets DROP COLUMN search_tsv');
  }
}
