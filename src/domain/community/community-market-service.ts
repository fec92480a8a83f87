import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';
import { AppError } from '../../errors/app-error';
import { fromMicro, toMicro } from '../money/micro';
import type { CommunityTradingService } from './community-trading-service';
import { OWN_MARKET_NOTE } from '../track-record/record-rule';

/** The market maker's side of a community market: token ids and prices per outcome, liquidity, volume. */
export interface CommunityPricing {
  outcomeTokens: Array<{ tokenId: string; outcome: string; price: number; shares: number; holders: number }>;
  liquidity: number | null;
  poolCash: number | null;
  volume: number;
  tradeCount: number;
  creatorTrades: boolean;
}

const NO_POOL: CommunityPricing = { outcomeTokens: [], liquidity: null, poolCash: null, volume: 0, tradeCount: 0, creatorTrades: false };

/** Liquidity (dollars) the creator puts into a new market's market maker: default, minimum. */
export const LIQUIDITY_DEFAULT = 100;
export const LIQUIDITY_MIN = 50;

export interface CommunityMarket {
  id: string;
  slug: string;
  question: string;
  description: string;
  category: string;
  outcomes: string[];
  endDate: string;
  status: 'active' | 'resolved';
  creatorId: string;
  featured: boolean;
  imageUrl: string | null;
  resolvedOutcome: string | null;
  /** Why the creator voided it (required before its end date); null otherwise. */
  voidReason: string | null;
  createdAt: string;
  /** The track-record rule for the creator's own trades (record-rule.ts), as the market states it. */
  creatorTradesNote: string;
}

export type PricedCommunityMarket = CommunityMarket & CommunityPricing;

/** The one sort of list(), named in its cursors. */
const LIST_SORT = 'community-newest';
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Row {
  id: string;
  slug: string;
  creator_id: string;
  question: string;
  description: string;
  category: string;
  outcomes: string[] | string;
  end_date: Date;
  image_url: string | null;
  status: 'active' | 'resolved';
  resolved_outcome: string | null;
  void_reason: string | null;
  featured: boolean;
  created_at: Date;
}

const toMarket = (r: Row): CommunityMarket => ({
  id: r.id,
  slug: r.slug,
  question: r.question,
  description: r.description,
  category: r.category,
  outcomes: typeof r.outcomes === 'string' ? (JSON.parse(r.outcomes) as string[]) : r.outcomes,
  endDate: new Date(r.end_date).toISOString(),
  status: r.status,
  creatorId: r.creator_id,
  featured: r.featured,
  imageUrl: r.image_url,
  resolvedOutcome: r.resolved_outcome,
  voidReason: r.void_reason ?? null,
  createdAt: new Date(r.created_at).toISOString(),
  creatorTradesNote: OWN_MARKET_NOTE,
});

function slugify(question: string): string {
  const base = question
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${base || 'market'}-${randomBytes(3).toString('hex')}`;
}

/** Community markets: people propose questions with their own outcome labels and resolve them later. */
export class CommunityMarketService {
  constructor(
    private readonly db: Database,
    private readonly amm: CommunityTradingService,
  ) {}

  /** Prices, token ids and pool figures of these markets, read together. */
  private async priced(markets: CommunityMarket[]): Promise<PricedCommunityMarket[]> {
    if (!markets.length) return [];
    const ids = markets.map((m) => m.id);
    const [outs, pools] = await Promise.all([
      // Holders: accounts with an open position in the outcome (positions_open_by_market narrows to the market first).
      this.db.query<{ market_id: string; token_id: string; label: string; price_micro: bigint; shares_micro: bigint; holders: number }>(
        `SELECT o.market_id, o.token_id, o.label, o.price_micro, o.shares_micro,
                (SELECT count(*) FROM positions p WHERE p.market_id = o.market_id::text AND NOT p.is_closed AND p.token_id = o.token_id AND p.quantity_micro > 0)::int AS holders
         FROM community_outcomes o WHERE o.market_id = ANY($1::uuid[]) ORDER BY o.market_id, o.idx`,
        [ids],
      ),
      this.db.query<{ market_id: string; subsidy_micro: bigint; cash_micro: bigint; volume_micro: bigint; trades: number; creator_trades: boolean }>(
        `SELECT p.market_id, p.subsidy_micro, coalesce(b.cash_micro, 0) AS cash_micro, p.volume_micro, p.trades,
                EXISTS (SELECT 1 FROM trades t WHERE t.market_id = m.id::text AND t.user_id = m.creator_id AND t.side <> 'SETTLE') AS creator_trades
         FROM community_pools p JOIN community_markets m ON m.id = p.market_id LEFT JOIN pool_balances b ON b.market_id = p.market_id
         WHERE p.market_id = ANY($1::uuid[])`,
        [ids],
      ),
    ]);
    const byMarket = new Map<string, CommunityPricing>();
    for (const p of pools) {
      byMarket.set(p.market_id, {
        outcomeTokens: [],
        liquidity: fromMicro(BigInt(p.subsidy_micro)),
        poolCash: fromMicro(BigInt(p.cash_micro)),
        volume: fromMicro(BigInt(p.volume_micro)),
        tradeCount: Number(p.trades),
        creatorTrades: p.creator_trades,
      });
    }
    for (const o of outs)
      byMarket.get(o.market_id)?.outcomeTokens.push({
        tokenId: o.token_id,
        outcome: o.label,
        price: fromMicro(BigInt(o.price_micro)),
        shares: fromMicro(BigInt(o.shares_micro)),
        holders: Number(o.holders),
      });
    return markets.map((m) => ({ ...m, ...(byMarket.get(m.id) ?? NO_POOL) }));
  }

  /** Newest first, keyset-paged on (created_at, id): a market created while paging never shifts a page. */
  async list(filter: {
    category?: string;
    status: 'active' | 'resolved' | 'all';
    creator?: string;
    featured: boolean;
    limit: number;
    cursor?: string;
  }): Promise<{ markets: PricedCommunityMarket[]; nextCursor: string | null }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status !== 'all') where.push(`status = $${params.push(filter.status)}`);
    if (filter.category && filter.category.toLowerCase() !== 'all') where.push(`lower(category) = lower($${params.push(filter.category)})`);
    if (filter.creator) where.push(`creator_id::text = $${params.push(filter.creator)}`);
    if (filter.featured) where.push('featured');
    if (filter.cursor !== undefined) {
      const c = decodeCursor(
        filter.cursor,
        LIST_SORT,
        (k) => TIMESTAMP_TEXT.test(k),
        'Pass nextCursor from the previous page unchanged, with the same filters.',
        (i) => UUID_TEXT.test(i),
      );
      where.push(`(created_at, id) < ($${params.push(c.k)}::timestamptz, $${params.push(c.i)}::uuid)`);
    }
    const rows = await this.db.query<Row & { created_key: string }>(
      `SELECT *, created_at::text AS created_key FROM community_markets ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${params.push(filter.limit + 1)}`,
      params,
    );
    const page = rows.slice(0, filter.limit);
    const last = page[page.length - 1];
    return {
      markets: await this.priced(page.map(toMarket)),
      nextCursor: rows.length > filter.limit && last ? encodeCursor({ s: LIST_SORT, k: last.created_key, i: last.id }) : null,
    };
  }

  /** One community market by slug, or by id. */
  async bySlug(slugOrId: string): Promise<PricedCommunityMarket> {
    const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(slugOrId);
    const rows = await this.db.query<Row>(`SELECT * FROM community_markets WHERE ${byId ? 'id = $1::uuid' : 'slug = $1'}`, [slugOrId]);
    if (!rows[0]) throw new AppError('NOT_FOUND', `Community market ${slugOrId} not found.`, { hint: 'List them with list_community_markets.' });
    return (await this.priced([toMarket(rows[0])]))[0]!;
  }

  async create(
    creatorId: string,
    input: {
      question: string;
      description?: string;
      category: string;
      outcomes: string[];
      endDate: string;
      imageUrl?: string;
      liquidity?: number;
      openingProbabilities?: number[];
    },
    now: Date,
  ): Promise<PricedCommunityMarket> {
    const end = new Date(input.endDate);
    if (end.getTime() <= now.getTime()) throw new AppError('VALIDATION_ERROR', 'endDate must be in the future.');
    const labels = input.outcomes.map((o) => o.trim());
    if (new Set(labels.map((l) => l.toLowerCase())).size !== labels.length) throw new AppError('VALIDATION_ERROR', 'outcomes must be distinct.');
    const opening = input.openingProbabilities;
    if (opening) {
      if (opening.length !== labels.length) throw new AppError('VALIDATION_ERROR', 'openingProbabilities needs one probability per outcome.');
      const sum = opening.reduce((a, x) => a + x, 0);
      if (Math.abs(sum - 1) > 1e-6) throw new AppError('VALIDATION_ERROR', `openingProbabilities must sum to 1 (they sum to ${sum}).`);
    }
    const liquidity = toMicro(input.liquidity ?? LIQUIDITY_DEFAULT);
    if (liquidity < toMicro(LIQUIDITY_MIN)) throw new AppError('VALIDATION_ERROR', `liquidity must be at least ${LIQUIDITY_MIN} dollars.`);
    const id = randomUUID();
    const created = await this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `INSERT INTO community_markets (id, slug, creator_id, question, description, category, outcomes, end_date, image_url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
        [
          id,
          slugify(input.question),
          creatorId,
          input.question.trim(),
          input.description ?? '',
          input.category.trim(),
          JSON.stringify(labels),
          end,
          input.imageUrl ?? null,
          now,
        ],
      );
      await this.amm.fund(tx, { marketId: id, creatorId, labels, liquidity, opening, now });
      return toMarket(rows[0]!);
    });
    return (await this.priced([created]))[0]!;
  }

  /**
   * Only the creator resolves, once, to one of the market's own outcome labels or VOID; every position then settles and
   * what is left in the pool returns to the creator. Before the market's end date only VOID, with a reason: a creator
   * who could resolve early could trade on an outcome they then declare (the track record also leaves their own trades
   * out: record-rule.ts).
   */
  async resolve(userId: string, id: string, outcome: string, now: Date, reason?: string): Promise<PricedCommunityMarket> {
    const rows = /^[0-9a-f-]{36}$/i.test(id) ? await this.db.query<Row>('SELECT * FROM community_markets WHERE id = $1', [id]) : [];
    const market = rows[0];
    if (!market || market.creator_id !== userId) throw new AppError('NOT_FOUND', `Community market ${id} not found among yours.`);
    const labels = toMarket(market).outcomes;
    const label = outcome.trim().toUpperCase() === 'VOID' ? 'VOID' : labels.find((l) => l.toLowerCase() === outcome.trim().toLowerCase());
    if (!label) throw new AppError('VALIDATION_ERROR', `outcome must be one of: ${labels.join(', ')}, or VOID.`);
    if (market.status !== 'active') throw alreadyResolved();
    const why = reason?.trim() || null;
    if (why && label !== 'VOID')
      throw new AppError('VALIDATION_ERROR', 'reason goes with outcome VOID only.', {
        details: [{ path: 'reason', message: 'reason goes with outcome VOID only', code: 'custom' }],
      });
    const endDate = new Date(market.end_date);
    if (now.getTime() < endDate.getTime()) {
      if (label !== 'VOID')
        throw new AppError('CONFLICT', `This community market ends at ${endDate.toISOString()}; until then it can only be voided.`, {
          hint: 'Resolve it to an outcome once its endDate has passed, or void it now with outcome VOID and a reason.',
        });
      if (!why)
        throw new AppError('VALIDATION_ERROR', 'Voiding a community market before its end date needs a reason.', {
          hint: 'Send reason: why the question cannot resolve as asked (at most 500 characters); it is shown on the market.',
          details: [{ path: 'reason', message: 'required to void before endDate', code: 'invalid_type' }],
        });
    }
    const updated = await this.db.query<Row>(
      `UPDATE community_markets SET status = 'resolved', resolved_outcome = $2, resolved_at = $3, void_reason = $4
       WHERE id = $1 AND status = 'active' RETURNING *`,
      [id, label, now, why],
    );
    if (!updated[0]) throw alreadyResolved();
    await this.amm.settle(id, label, now);
    return (await this.priced([toMarket(updated[0])]))[0]!;
  }
}

const alreadyResolved = () => new AppError('CONFLICT', 'This community market is already resolved.');
