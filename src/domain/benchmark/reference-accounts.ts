import type { Database } from '../../db/database';
import type { AccountService } from '../accounts/account-service';
import { MICRO, type Micro } from '../money/micro';
import type { ReferenceKind } from './benchmark-service';

export const REFERENCE_KINDS: readonly ReferenceKind[] = ['market', 'coin_flip', 'favourite'];

/** An open market a reference forecaster can act on: a mirrored one (its YES token) or a community one (its outcomes). */
export type OpenMarket =
  | { venue: 'mirrored'; id: string; slug: string; yesToken: string; noToken: string; midMicro: Micro }
  | { venue: 'community'; id: string; pricesMicro: Micro[] };

/** Probabilities in micro-units that sum to exactly 1: each floored, the remainder to the largest (the first of equals). */
export function exactSplit(weights: readonly number[]): Micro[] {
  const total = weights.reduce((s, w) => s + w, 0);
  const parts = weights.map((w) => BigInt(Math.floor((w / total) * Number(MICRO))));
  const rest = MICRO - parts.reduce((s, x) => s + x, 0n);
  let top = 0;
  for (let i = 1; i < weights.length; i++) if (weights[i]! > weights[top]!) top = i;
  parts[top] = parts[top]! + rest;
  return parts;
}

/**
 * The books a reference forecaster needs that no public method gives it: which account plays which reference, a fresh
 * API key for it each day (the raw key is never stored, so the one that acts mints one), the day's claim (one process acts
 * per day) and the open markets with their mids. Everything it does to the books goes through the registry.
 */
export class ReferenceAccounts {
  constructor(
    private readonly db: Database,
    private readonly accounts: AccountService,
  ) {}

  async find(kind: ReferenceKind): Promise<string | undefined> {
    const rows = await this.db.query<{ id: string }>('SELECT id FROM users WHERE reference = $1 AND deleted_at IS NULL', [kind]);
    return rows[0]?.id;
  }

  /** Flags a newly registered account as the reference of `kind` (false when another already is). */
  flag(userId: string, kind: ReferenceKind): Promise<boolean> {
    return this.accounts.markReference(userId, kind);
  }

  /** A new API key for the reference account (rotate_api_key's own rule), replacing the previous one. */
  mintKey(userId: string): Promise<string> {
    return this.accounts.rotateApiKey(userId);
  }

  /** Claims `day` (YYYY-MM-DD) for the references to act on: true for the one process that claims it first. */
  async claimDay(day: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE benchmark_state SET reference_day = $1::date WHERE id = 1 AND (reference_day IS NULL OR reference_day < $1::date) RETURNING 1`,
      [day],
    );
    return rows.length === 1;
  }

  /** Open markets with a price, the busiest first: mirrored by volume, then community ones still before their end date. */
  async openMarkets(now: Date, limit: number): Promise<OpenMarket[]> {
    const mirrored = await this.db.query<{ id: string; slug: string; yes: string; no: string; mid: string | bigint }>(
      `SELECT mk.id, mk.slug, y.token_id AS yes, n.token_id AS no, y.price_micro AS mid FROM markets mk
       JOIN market_tokens y ON y.market_id = mk.id AND y.outcome = 'YES' JOIN market_tokens n ON n.market_id = mk.id AND n.outcome = 'NO'
       WHERE mk.status = 'active' AND y.price_micro IS NOT NULL AND (mk.end_date IS NULL OR mk.end_date > $1)
       ORDER BY mk.volume DESC NULLS LAST, mk.id LIMIT $2`,
      [now, limit],
    );
    const community = await this.db.query<{ id: string; prices: Array<string | bigint> }>(
      `SELECT c.id, array_agg(o.price_micro ORDER BY o.idx) AS prices FROM community_markets c JOIN community_outcomes o ON o.market_id = c.id
       WHERE c.status = 'active' AND c.end_date > $1 GROUP BY c.id ORDER BY c.id LIMIT $2`,
      [now, limit],
    );
    return [
      ...mirrored.map((m): OpenMarket => ({ venue: 'mirrored', id: m.id, slug: m.slug, yesToken: m.yes, noToken: m.no, midMicro: BigInt(m.mid) })),
      ...community.map((c): OpenMarket => ({ venue: 'community', id: c.id, pricesMicro: c.prices.map((x) => BigInt(x)) })),
    ];
  }
}
