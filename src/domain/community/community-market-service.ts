import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../db/database';
import { AppError } from '../../errors/app-error';

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
  createdAt: string;
}

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
  createdAt: new Date(r.created_at).toISOString(),
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
  constructor(private readonly db: Database) {}

  async list(filter: {
    category?: string;
    status: 'active' | 'resolved' | 'all';
    creator?: string;
    featured: boolean;
    limit: number;
  }): Promise<CommunityMarket[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status !== 'all') where.push(`status = $${params.push(filter.status)}`);
    if (filter.category && filter.category.toLowerCase() !== 'all') where.push(`lower(category) = lower($${params.push(filter.category)})`);
    if (filter.creator) where.push(`creator_id::text = $${params.push(filter.creator)}`);
    if (filter.featured) where.push('featured');
    const rows = await this.db.query<Row>(
      `SELECT * FROM community_markets ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id LIMIT $${params.push(filter.limit)}`,
      params,
    );
    return rows.map(toMarket);
  }

  /** One community market by slug, or by id. */
  async bySlug(slugOrId: string): Promise<CommunityMarket> {
    const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(slugOrId);
    const rows = await this.db.query<Row>(`SELECT * FROM community_markets WHERE ${byId ? 'id = $1::uuid' : 'slug = $1'}`, [slugOrId]);
    if (!rows[0]) throw new AppError('NOT_FOUND', `Community market ${slugOrId} not found.`, { hint: 'List them with list_community_markets.' });
    return toMarket(rows[0]);
  }

  async create(
    creatorId: string,
    input: { question: string; description?: string; category: string; outcomes: string[]; endDate: string; imageUrl?: string },
    now: Date,
  ): Promise<CommunityMarket> {
    const end = new Date(input.endDate);
    if (end.getTime() <= now.getTime()) throw new AppError('VALIDATION_ERROR', 'endDate must be in the future.');
    const labels = input.outcomes.map((o) => o.trim());
    if (new Set(labels.map((l) => l.toLowerCase())).size !== labels.length) throw new AppError('VALIDATION_ERROR', 'outcomes must be distinct.');
    const rows = await this.db.query<Row>(
      `INSERT INTO community_markets (id, slug, creator_id, question, description, category, outcomes, end_date, image_url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [
        randomUUID(),
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
    return toMarket(rows[0]!);
  }

  /** Only the creator resolves, once, to one of the market's own outcome labels. */
  async resolve(userId: string, id: string, outcome: string, now: Date): Promise<CommunityMarket> {
    const rows = /^[0-9a-f-]{36}$/i.test(id) ? await this.db.query<Row>('SELECT * FROM community_markets WHERE id = $1', [id]) : [];
    const market = rows[0];
    if (!market || market.creator_id !== userId) throw new AppError('NOT_FOUND', `Community market ${id} not found among yours.`);
    const labels = toMarket(market).outcomes;
    const label = labels.find((l) => l.toLowerCase() === outcome.trim().toLowerCase());
    if (!label) throw new AppError('VALIDATION_ERROR', `outcome must be one of: ${labels.join(', ')}.`);
    const updated = await this.db.query<Row>(
      `UPDATE community_markets SET status = 'resolved', resolved_outcome = $2, resolved_at = $3 WHERE id = $1 AND status = 'active' RETURNING *`,
      [id, label, now],
    );
    if (!updated[0]) throw new AppError('CONFLICT', 'This community market is already resolved.');
    return toMarket(updated[0]);
  }
}
