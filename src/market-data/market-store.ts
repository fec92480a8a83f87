import type { Database, Queryable } from '../db/database';
import type { Logger } from '../logger';
import type { PriceChange } from '../domain/trading/price-service';
import type { FeedMarket, FeedSource } from './feed';
import type { PriceBroadcast, PriceTick } from './price-broadcast';

export interface ApplyResult {
  written: number;
  /** Left out because they clash with what the mirror already holds (a slug or token of another market). */
  conflicts: number;
  /** Markets that got their one 'resolved' event in this call. */
  resolved: string[];
  /** Tokens of active markets whose bid, ask or price this call changed (or that were stale or new): what resting orders are checked against. */
  changed: PriceChange[];
}

export interface SyncState {
  last_started_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  markets: number | null;
  skipped: number | null;
}

const dedupe = (markets: FeedMarket[]): FeedMarket[] => {
  const byId = new Map<string, FeedMarket>();
  const slugs = new Set<string>();
  for (const m of markets) {
    if (byId.has(m.id) || slugs.has(m.slug)) continue;
    byId.set(m.id, m);
    slugs.add(m.slug);
  }
  return [...byId.values()];
};

/**
 * Writes validated feed markets into the mirror in set-based statements (one per table, whatever the
 * batch size). A resolved market flips to status 'resolved' and gets exactly one market_events row in
 * the same statement, guarded by status and UNIQUE (market_id, type), so a replayed sync or a second
 * process can never emit it twice. A resolved market never goes back to active.
 */
export class MarketStore {
  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    /** PRICE_MAX_AGE_S: a price older than this was not tradable, so rewriting it is a price change. */
    private readonly staleAfterS = 120,
    /** Where changed prices are announced (the price streams of every process). */
    private readonly broadcast?: PriceBroadcast,
  ) {}

  async apply(source: FeedSource, input: FeedMarket[], now: Date): Promise<ApplyResult> {
    if (input.length === 0) return { written: 0, conflicts: 0, resolved: [], changed: [] };
    return this.db.transaction(async (tx) => {
      const markets = await this.withoutConflicts(tx, dedupe(input));
      if (markets.length === 0) return { written: 0, conflicts: input.length, resolved: [], changed: [] };
      await this.upsertMarkets(tx, source, markets, now);
      const { changed, ticks } = await this.upsertTokens(tx, source, markets, now);
      // Announced on commit only: a rolled-back sync publishes nothing.
      if (this.broadcast && ticks.length) await this.broadcast.publish(tx, ticks);
      await this.recordSnapshots(tx, markets);
      const resolved = await this.resolve(
        tx,
        markets.filter((m) => m.status === 'resolved' && m.winner),
        now,
      );
      return { written: markets.length, conflicts: input.length - markets.length, resolved, changed };
    });
  }

  /** Drops records whose slug belongs to another market, or whose token ids differ from the ones stored. */
  private async withoutConflicts(tx: Queryable, markets: FeedMarket[]): Promise<FeedMarket[]> {
    const slugOwners = await tx.query<{ id: string; slug: string }>('SELECT id, slug FROM markets WHERE slug = ANY($1::text[])', [markets.map((m) => m.slug)]);
    const slugOwner = new Map(slugOwners.map((r) => [r.slug, r.id]));
    const tokens = await tx.query<{ token_id: string; market_id: string; outcome: string }>(
      'SELECT token_id, market_id, outcome FROM market_tokens WHERE market_id = ANY($1::text[]) OR token_id = ANY($2::text[])',
      [markets.map((m) => m.id), markets.flatMap((m) => m.tokens.map((t) => t.tokenId))],
    );
    const byMarket = new Map<string, Map<string, string>>();
    const tokenOwner = new Map<string, string>();
    for (const t of tokens) {
      if (!byMarket.has(t.market_id)) byMarket.set(t.market_id, new Map());
      byMarket.get(t.market_id)!.set(t.outcome, t.token_id);
      tokenOwner.set(t.token_id, t.market_id);
    }
    return markets.filter((m) => {
      const owner = slugOwner.get(m.slug);
      const stored = byMarket.get(m.id);
      const clash =
        (owner !== undefined && owner !== m.id) ||
        m.tokens.some(
          (t) => (stored?.has(t.outcome) && stored.get(t.outcome) !== t.tokenId) || (tokenOwner.has(t.tokenId) && tokenOwner.get(t.tokenId) !== m.id),
        );
      if (clash) this.log.warn('skipped upstream market that clashes with the mirror', { id: m.id, slug: m.slug });
      return !clash;
    });
  }

  private async upsertMarkets(tx: Queryable, source: FeedSource, markets: FeedMarket[], now: Date): Promise<void> {
    const iso = (d: Date | null) => (d ? d.toISOString() : null);
    const micro = (v: bigint | null | undefined) => (v === null || v === undefined ? null : v.toString());
    await tx.query(
      `INSERT INTO markets (id, slug, question, description, category, image_url, volume, end_date, status, source, created_at, updated_at,
         volume_24h, open_interest, last_trade_price_micro, tick_size_micro, min_order_shares)
       SELECT x.id, x.slug, x.question, x.description, x.category, x.image_url, x.volume, x.end_date, x.status, $10, coalesce(x.created_at, $11), $11,
         x.volume_24h, x.open_interest, x.last_trade_price_micro, x.tick_size_micro, x.min_order_shares
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::timestamptz[], $9::text[], $12::timestamptz[],
           $13::float8[], $14::float8[], $15::bigint[], $16::bigint[], $17::float8[])
         AS x(id, slug, question, description, category, image_url, volume, end_date, status, created_at,
           volume_24h, open_interest, last_trade_price_micro, tick_size_micro, min_order_shares)
       ON CONFLICT (id) DO UPDATE SET
         slug = EXCLUDED.slug, question = EXCLUDED.question, description = EXCLUDED.description, category = EXCLUDED.category,
         image_url = EXCLUDED.image_url, volume = EXCLUDED.volume, end_date = EXCLUDED.end_date,
         status = CASE WHEN markets.status = 'resolved' THEN 'resolved' ELSE EXCLUDED.status END,
         volume_24h = EXCLUDED.volume_24h, open_interest = EXCLUDED.open_interest, last_trade_price_micro = EXCLUDED.last_trade_price_micro,
         tick_size_micro = EXCLUDED.tick_size_micro, min_order_shares = EXCLUDED.min_order_shares,
         updated_at = EXCLUDED.updated_at
       WHERE (markets.slug, markets.question, markets.description, markets.category, markets.image_url, markets.volume, markets.end_date, markets.status,
           markets.volume_24h, markets.open_interest, markets.last_trade_price_micro, markets.tick_size_micro, markets.min_order_shares)
         IS DISTINCT FROM (EXCLUDED.slug, EXCLUDED.question, EXCLUDED.description, EXCLUDED.category, EXCLUDED.image_url, EXCLUDED.volume, EXCLUDED.end_date,
           CASE WHEN markets.status = 'resolved' THEN 'resolved' ELSE EXCLUDED.status END,
           EXCLUDED.volume_24h, EXCLUDED.open_interest, EXCLUDED.last_trade_price_micro, EXCLUDED.tick_size_micro, EXCLUDED.min_order_shares)`,
      [
        markets.map((m) => m.id),
        markets.map((m) => m.slug),
        markets.map((m) => m.question),
        markets.map((m) => m.description),
        markets.map((m) => m.category),
        markets.map((m) => m.imageUrl),
        markets.map((m) => m.volume),
        markets.map((m) => iso(m.endDate)),
        // 'resolved' is set only by resolve() below, which also emits the event.
        markets.map((m) => (m.status === 'resolved' ? 'closed' : m.status)),
        source,
        now.toISOString(),
        markets.map((m) => iso(m.createdAt)),
        markets.map((m) => m.stats?.volume24h ?? null),
        markets.map((m) => m.stats?.openInterest ?? null),
        markets.map((m) => micro(m.stats?.lastTradePriceMicro)),
        markets.map((m) => micro(m.stats?.tickSizeMicro)),
        markets.map((m) => m.stats?.minOrderShares ?? null),
      ],
    );
  }

  /**
   * Upserts the tokens' prices. `old` reads the rows as they were before this statement (every part of one statement
   * sees the same snapshot). Returns two views of what moved: `changed`, the tokens of active markets whose book moved,
   * that were new, or whose price was older than staleAfterS (so an order resting while prices were stale is checked
   * again) — what resting orders are checked against; and `ticks`, the existing tokens whose price, bid or ask changed
   * — what the price streams announce.
   */
  private async upsertTokens(tx: Queryable, source: FeedSource, markets: FeedMarket[], now: Date): Promise<{ changed: PriceChange[]; ticks: PriceTick[] }> {
    const tokens = markets.flatMap((m) => m.tokens.map((t) => ({ ...t, marketId: m.id, at: m.asOf, active: m.status === 'active' })));
    const str = (v: bigint | null) => (v === null ? null : v.toString());
    const rows = await tx.query<{
      token_id: string;
      market_id: string;
      price_micro: bigint;
      bid_micro: bigint | null;
      ask_micro: bigint | null;
      price_at: Date;
      cross_check: boolean;
      moved: boolean;
    }>(
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::timestamptz[], $9::bool[])
           AS x(token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at, active)
       ), old AS (
         SELECT t.token_id, t.price_micro, t.bid_micro, t.ask_micro, t.price_at FROM market_tokens t WHERE t.token_id = ANY($1::text[])
       ), up AS (
         INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
         SELECT token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at FROM x
         ON CONFLICT (token_id) DO UPDATE SET
           label = EXCLUDED.label, price_micro = EXCLUDED.price_micro, bid_micro = EXCLUDED.bid_micro, ask_micro = EXCLUDED.ask_micro, price_at = EXCLUDED.price_at
         WHERE market_tokens.market_id = EXCLUDED.market_id
         RETURNING token_id, market_id, price_micro, bid_micro, ask_micro, price_at
       ), y AS (
         SELECT up.*,
           (old.price_micro, old.bid_micro, old.ask_micro) IS DISTINCT FROM (up.price_micro, up.bid_micro, up.ask_micro) AS differs,
           old.token_id IS NOT NULL AS existed, old.price_at AS old_at, x.active
         FROM up JOIN x ON x.token_id = up.token_id LEFT JOIN old ON old.token_id = up.token_id
       ), z AS (
         SELECT y.*, (active AND price_micro IS NOT NULL AND (NOT existed OR old_at < $10::timestamptz OR differs)) AS cross_check, (existed AND differs AND price_micro IS NOT NULL) AS moved FROM y
       )
       SELECT token_id, market_id, price_micro, bid_micro, ask_micro, price_at, cross_check, moved FROM z WHERE cross_check OR moved`,
      [
        tokens.map((t) => t.tokenId),
        tokens.map((t) => t.marketId),
        tokens.map((t) => t.outcome),
        tokens.map((t) => t.label),
        tokens.map((t) => str(t.priceMicro)),
        tokens.map((t) => str(t.bidMicro)),
        tokens.map((t) => str(t.askMicro)),
        tokens.map((t) => t.at.toISOString()),
        tokens.map((t) => t.active),
        new Date(now.getTime() - this.staleAfterS * 1000).toISOString(),
      ],
    );
    const micro = (v: bigint | null) => (v === null ? null : BigInt(v));
    return {
      changed: rows
        .filter((r) => r.cross_check)
        .map((r) => ({
          tokenId: r.token_id,
          bidMicro: BigInt(r.bid_micro ?? r.price_micro),
          askMicro: BigInt(r.ask_micro ?? r.price_micro),
          asOf: new Date(r.price_at),
          source,
        })),
      ticks: rows
        .filter((r) => r.moved)
        .map((r) => ({
          tokenId: r.token_id,
          marketId: r.market_id,
          priceMicro: BigInt(r.price_micro),
          bidMicro: micro(r.bid_micro),
          askMicro: micro(r.ask_micro),
          at: new Date(r.price_at),
        })),
    };
  }

  /** One point per token per sync, at the venue's time to the second: the mirror's own price history. */
  private async recordSnapshots(tx: Queryable, markets: FeedMarket[]): Promise<void> {
    const tokens = markets.filter((m) => m.status === 'active').flatMap((m) => m.tokens.map((t) => ({ id: t.tokenId, price: t.priceMicro, at: m.asOf })));
    if (tokens.length === 0) return;
    await tx.query(
      `INSERT INTO price_snapshots (token_id, t, price_micro)
       SELECT x.token_id, date_trunc('second', x.t), x.price_micro FROM unnest($1::text[], $2::timestamptz[], $3::bigint[]) AS x(token_id, t, price_micro)
       ON CONFLICT DO NOTHING`,
      [tokens.map((t) => t.id), tokens.map((t) => t.at.toISOString()), tokens.map((t) => t.price.toString())],
    );
  }

  private async resolve(tx: Queryable, markets: FeedMarket[], now: Date): Promise<string[]> {
    if (markets.length === 0) return [];
    const rows = await tx.query<{ market_id: string }>(
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS x(id, winner, resolved_at)
       ), flipped AS (
         UPDATE markets m SET status = 'resolved', winner = x.winner, resolved_at = x.resolved_at, updated_at = $4
         FROM x WHERE m.id = x.id AND m.status <> 'resolved'
         RETURNING m.id, m.winner
       )
       INSERT INTO market_events (market_id, type, winner)
       SELECT id, 'resolved', winner FROM flipped
       ON CONFLICT (market_id, type) DO NOTHING
       RETURNING market_id`,
      [markets.map((m) => m.id), markets.map((m) => m.winner), markets.map((m) => (m.resolvedAt ?? now).toISOString()), now.toISOString()],
    );
    return rows.map((r) => r.market_id);
  }

  /** Markets of this source the mirror still holds as unresolved but the venue no longer lists. */
  async unlisted(source: FeedSource, listed: string[], limit: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT id FROM markets WHERE source = $1 AND status <> 'resolved' AND NOT (id = ANY($2::text[]))
       ORDER BY end_date NULLS LAST, id LIMIT $3`,
      [source, listed, limit],
    );
    return rows.map((r) => r.id);
  }

  async syncState(feed: FeedSource): Promise<SyncState | null> {
    const rows = await this.db.query<SyncState>(
      'SELECT last_started_at, last_success_at, last_error, last_error_at, markets, skipped FROM market_sync_state WHERE feed = $1',
      [feed],
    );
    return rows[0] ?? null;
  }

  async recordSyncStart(feed: FeedSource, now: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO market_sync_state (feed, last_started_at) VALUES ($1, $2) ON CONFLICT (feed) DO UPDATE SET last_started_at = EXCLUDED.last_started_at`,
      [feed, now.toISOString()],
    );
  }

  async recordSyncSuccess(feed: FeedSource, now: Date, markets: number, skipped: number): Promise<void> {
    await this.db.query('UPDATE market_sync_state SET last_success_at = $2, markets = $3, skipped = $4 WHERE feed = $1', [
      feed,
      now.toISOString(),
      markets,
      skipped,
    ]);
  }

  async recordSyncFailure(feed: FeedSource, now: Date, error: string): Promise<void> {
    await this.db.query('UPDATE market_sync_state SET last_error = $2, last_error_at = $3 WHERE feed = $1', [feed, error.slice(0, 500), now.toISOString()]);
  }
}
