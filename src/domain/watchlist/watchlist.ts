import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { fromMicro, toMicro } from '../money/micro';

/** An alert threshold as a caller sets it: a probability, null to clear, undefined to keep the one set. */
export type Threshold = number | null | undefined;

export interface WatchInput {
  marketId?: string;
  marketSlug?: string;
  alertAbove?: Threshold;
  alertBelow?: Threshold;
}

export interface PriceAlertView {
  /** The YES price at or above which it fires; null when none is set. */
  above: number | null;
  /** When the above alert fired (it stays quiet until set again); null while armed or unset. */
  aboveFiredAt: string | null;
  below: number | null;
  belowFiredAt: string | null;
}

export interface WatchedMarket {
  marketId: string;
  slug: string;
  question: string;
  status: 'active' | 'closed' | 'resolved';
  yesPrice: number | null;
  watchedAt: string;
  alert: PriceAlertView;
}

interface EntryRow {
  market_id: string;
  slug: string;
  question: string;
  status: WatchedMarket['status'];
  yes_price: bigint | null;
  created_at: Date;
  alert_above_micro: bigint | null;
  above_fired_at: Date | null;
  alert_below_micro: bigint | null;
  below_fired_at: Date | null;
}

const SELECT_ENTRIES = `SELECT w.market_id, m.slug, m.question, m.status, y.price_micro AS yes_price, w.created_at,
    w.alert_above_micro, w.above_fired_at, w.alert_below_micro, w.below_fired_at
  FROM watchlist_entries w JOIN markets m ON m.id = w.market_id
  LEFT JOIN market_tokens y ON y.market_id = m.id AND y.outcome = 'YES'`;

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
const prob = (micro: bigint | null) => (micro === null ? null : fromMicro(BigInt(micro)));

function toView(r: EntryRow): WatchedMarket {
  return {
    marketId: r.market_id,
    slug: r.slug,
    question: r.question,
    status: r.status,
    yesPrice: prob(r.yes_price),
    watchedAt: new Date(r.created_at).toISOString(),
    alert: { above: prob(r.alert_above_micro), aboveFiredAt: iso(r.above_fired_at), below: prob(r.alert_below_micro), belowFiredAt: iso(r.below_fired_at) },
  };
}

const notWatched = (ref: string) =>
  new AppError('NOT_FOUND', `Market ${ref} is not on your watchlist.`, { hint: 'list_watchlist shows the markets you watch.' });

/**
 * The markets an account watches and their price alerts (watch_market, unwatch_market, list_watchlist). Every
 * statement on watchlist_entries lives here and in price-alerts.ts, which fires the alerts.
 */
export class Watchlist {
  constructor(
    private readonly db: Database,
    private readonly maxMarkets: number,
  ) {}

  /**
   * Adds the market (or updates its entry) and sets the thresholds given; a threshold set anew is armed again. Over the
   * limit nothing is written (CONFLICT).
   */
  async watch(userId: string, input: WatchInput, now: Date): Promise<{ market: WatchedMarket; added: boolean }> {
    return this.db.transaction(async (tx) => {
      const marketId = await this.marketIdOf(tx, input);
      // The account row serialises an account's adds, so two at once cannot both pass the limit.
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const existing = await tx.query<{ n: bigint }>('SELECT 1 AS n FROM watchlist_entries WHERE user_id = $1 AND market_id = $2', [userId, marketId]);
      const added = existing.length === 0;
      if (added) {
        const count = await tx.query<{ n: bigint }>('SELECT count(*) AS n FROM watchlist_entries WHERE user_id = $1', [userId]);
        if (Number(count[0]!.n) >= this.maxMarkets) {
          throw new AppError('CONFLICT', `A watchlist holds at most ${this.maxMarkets} markets; nothing was added.`, {
            hint: 'Remove one with unwatch_market first.',
          });
        }
        await tx.query('INSERT INTO watchlist_entries (user_id, market_id, created_at) VALUES ($1, $2, $3)', [userId, marketId, now]);
      }
      await this.setThreshold(tx, userId, marketId, 'above', input.alertAbove);
      await this.setThreshold(tx, userId, marketId, 'below', input.alertBelow);
      const rows = await tx.query<EntryRow>(`${SELECT_ENTRIES} WHERE w.user_id = $1 AND w.market_id = $2`, [userId, marketId]);
      return { market: toView(rows[0]!), added };
    });
  }

  /** Removes the market and its alerts; NOT_FOUND when it was not watched. */
  async unwatch(userId: string, ref: { marketId?: string; marketSlug?: string }): Promise<void> {
    const rows = await this.db.query<{ market_id: string }>(
      `DELETE FROM watchlist_entries w USING markets m
       WHERE w.user_id = $1 AND m.id = w.market_id AND ($2::text IS NULL OR m.id = $2) AND ($3::text IS NULL OR m.slug = $3)
       RETURNING w.market_id`,
      [userId, ref.marketId ?? null, ref.marketSlug ?? null],
    );
    if (rows.length === 0) throw notWatched(ref.marketId ?? ref.marketSlug ?? '');
  }

  /** The account's watched markets, most recently added first. */
  async list(userId: string): Promise<WatchedMarket[]> {
    const rows = await this.db.query<EntryRow>(`${SELECT_ENTRIES} WHERE w.user_id = $1 ORDER BY w.created_at DESC, w.market_id`, [userId]);
    return rows.map(toView);
  }

  /** A deleted account's watchlist goes with it (its deletion's transaction). */
  static async deleteAllOf(tx: Queryable, userId: string): Promise<void> {
    await tx.query('DELETE FROM watchlist_entries WHERE user_id = $1', [userId]);
  }

  private async marketIdOf(tx: Queryable, ref: { marketId?: string; marketSlug?: string }): Promise<string> {
    const rows = await tx.query<{ id: string }>('SELECT id FROM markets WHERE ($1::text IS NULL OR id = $1) AND ($2::text IS NULL OR slug = $2)', [
      ref.marketId ?? null,
      ref.marketSlug ?? null,
    ]);
    if (rows.length !== 1) {
      throw new AppError('NOT_FOUND', `No market with ${ref.marketId !== undefined ? `id ${ref.marketId}` : `slug ${ref.marketSlug}`}.`, {
        hint: 'Find markets with list_markets or search_prediction_markets; marketId and marketSlug must name the same market.',
      });
    }
    return rows[0]!.id;
  }

  /** Sets (and arms) or clears one side's threshold; undefined leaves it as it is. */
  private async setThreshold(tx: Queryable, userId: string, marketId: string, side: 'above' | 'below', value: Threshold): Promise<void> {
    if (value === undefined) return;
    await tx.query(`UPDATE watchlist_entries SET alert_${side}_micro = $3, ${side}_fired_at = NULL WHERE user_id = $1 AND market_id = $2`, [
      userId,
      marketId,
      value === null ? null : toMicro(value).toString(),
    ]);
  }
}
