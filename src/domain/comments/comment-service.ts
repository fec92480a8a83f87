import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';
import { AppError } from '../../errors/app-error';
import { fromMicro } from '../money/micro';
import { marketFacts } from '../trading/market-facts';

/** The longest comment, in characters (after trimming). */
export const COMMENT_MAX_CHARS = 1000;

export interface CommentView {
  id: string;
  marketId: string;
  userId: string;
  displayName: string;
  isAgent: boolean;
  body: string;
  createdAt: string;
}

/** A forecaster's rationale on a market that has closed: shown beside its comments (never before the close). */
export interface RationaleView {
  userId: string;
  displayName: string;
  isAgent: boolean;
  probabilities: number[];
  rationale: string;
  createdAt: string;
}

interface CommentRow {
  id: string;
  market_id: string;
  user_id: string;
  display_name: string;
  is_agent: boolean;
  body: string;
  created_at: Date;
  k: string;
}

const SORT = 'comments-new';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Plain text: line breaks and tabs are kept, every other control character is refused (it could hide or forge text).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

const notFound = (marketId: string) =>
  new AppError('NOT_FOUND', `Market ${marketId} not found.`, { hint: 'Use Market.id from search_prediction_markets or a community market id.' });

/** The body as stored: line endings made \n, trimmed; refused when empty, too long or carrying control characters. */
export function commentBody(raw: string): string {
  const body = raw.replace(/\r\n?/g, '\n').trim();
  if (body === '') throw new AppError('VALIDATION_ERROR', 'body is empty.', { hint: 'Write at least one visible character.' });
  if ([...body].length > COMMENT_MAX_CHARS) throw new AppError('VALIDATION_ERROR', `body is longer than ${COMMENT_MAX_CHARS} characters.`);
  if (CONTROL.test(body))
    throw new AppError('VALIDATION_ERROR', 'body holds a control character.', { hint: 'Send plain text: letters, punctuation, line breaks.' });
  return body;
}

/**
 * Market discussion (issue 36 item 7): comments by people and agents alike, newest first; a community market's creator
 * can hide one (and show it again). Once a market has closed, the rationales its forecasters gave with their current
 * forecasts are listed beside its comments — forecasts are private until then, and so are their rationales.
 */
export class CommentService {
  constructor(private readonly db: Database) {}

  async post(userId: string, marketId: string, raw: string, now: Date): Promise<CommentView> {
    const body = commentBody(raw);
    const market = await marketFacts(this.db, marketId, now);
    if (!market) throw notFound(marketId);
    const rows = await this.db.query<CommentRow>(
      `WITH c AS (
         INSERT INTO comments (id, market_id, venue, user_id, body, created_at)
         SELECT $1, $2, $3, u.id, $5, $6 FROM users u WHERE u.id = $4 AND u.deleted_at IS NULL
         RETURNING *
       )
       SELECT c.*, u.display_name, u.is_agent, c.created_at::text AS k FROM c JOIN users u ON u.id = c.user_id`,
      [randomUUID(), marketId, market.venue, userId, body, now],
    );
    if (!rows[0]) throw new AppError('NOT_FOUND', 'Account not found.');
    return view(rows[0]);
  }

  async list(
    marketId: string,
    q: { limit: number; cursor?: string },
    now: Date,
  ): Promise<{ comments: CommentView[]; rationales: RationaleView[]; marketClosed: boolean; nextCursor: string | null }> {
    const market = await marketFacts(this.db, marketId, now);
    if (!market) throw notFound(marketId);
    const params: unknown[] = [marketId, q.limit + 1];
    let after = '';
    if (q.cursor !== undefined) {
      const c = decodeCursor(
        q.cursor,
        SORT,
        (k) => TIMESTAMP_TEXT.test(k),
        'Pass nextCursor from the previous page unchanged.',
        (i) => UUID.test(i),
      );
      after = `AND (c.created_at, c.id) < ($${params.push(c.k)}::timestamptz, $${params.push(c.i)}::uuid)`;
    }
    const [rows, rationales] = await Promise.all([
      this.db.query<CommentRow>(
        `SELECT c.*, u.display_name, u.is_agent, c.created_at::text AS k FROM comments c JOIN users u ON u.id = c.user_id
         WHERE c.market_id = $1 AND c.hidden_at IS NULL ${after}
         ORDER BY c.created_at DESC, c.id DESC LIMIT $2`,
        params,
      ),
      // Only on the first page: they sit beside the discussion, not in its pages.
      !market.open && q.cursor === undefined ? this.rationales(marketId) : Promise.resolve([]),
    ]);
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      comments: page.map(view),
      rationales,
      marketClosed: !market.open,
      nextCursor: rows.length > q.limit && last ? encodeCursor({ s: SORT, k: last.k, i: last.id }) : null,
    };
  }

  /** Hides a comment (or shows it again): only the creator of the community market it is on may. */
  async hide(userId: string, commentId: string, hidden: boolean, now: Date): Promise<{ id: string; hidden: boolean }> {
    if (!UUID.test(commentId)) throw new AppError('NOT_FOUND', `Comment ${commentId} not found.`);
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ market_id: string; venue: string; hidden_at: Date | null }>(
        'SELECT market_id, venue, hidden_at FROM comments WHERE id = $1 FOR UPDATE',
        [commentId],
      );
      const c = rows[0];
      if (!c) throw new AppError('NOT_FOUND', `Comment ${commentId} not found.`);
      const market = await marketFacts(tx, c.market_id, now);
      if (!market || market.creatorId !== userId) {
        throw new AppError('FORBIDDEN', 'Only the creator of the community market a comment is on can hide it.', {
          hint: 'Comments on mirrored markets cannot be hidden.',
        });
      }
      await tx.query(
        hidden
          ? 'UPDATE comments SET hidden_at = coalesce(hidden_at, $2), hidden_by = coalesce(hidden_by, $3) WHERE id = $1'
          : 'UPDATE comments SET hidden_at = NULL, hidden_by = NULL WHERE id = $1',
        hidden ? [commentId, now, userId] : [commentId],
      );
      return { id: commentId, hidden };
    });
  }

  /** An account being deleted: its comments go with its personal data (called inside the deletion's transaction). */
  async erase(tx: Queryable, userId: string): Promise<void> {
    await tx.query('DELETE FROM comments WHERE user_id = $1', [userId]);
  }

  /** The current forecast of each forecaster on the market who gave a rationale with it, newest first. */
  private async rationales(marketId: string): Promise<RationaleView[]> {
    const rows = await this.db.query<{
      user_id: string;
      display_name: string;
      is_agent: boolean;
      probabilities_micro: string[];
      rationale: string;
      created_at: Date;
    }>(
      `SELECT f.user_id, u.display_name, u.is_agent, f.probabilities_micro, f.rationale, f.created_at
       FROM (SELECT DISTINCT ON (user_id) * FROM forecasts WHERE market_id = $1 ORDER BY user_id, seq DESC) f
       JOIN users u ON u.id = f.user_id
       WHERE f.rationale IS NOT NULL
       ORDER BY f.created_at DESC, f.user_id LIMIT 100`,
      [marketId],
    );
    return rows.map((r) => ({
      userId: r.user_id,
      displayName: r.display_name,
      isAgent: r.is_agent,
      probabilities: r.probabilities_micro.map((p) => fromMicro(BigInt(p))),
      rationale: r.rationale,
      createdAt: new Date(r.created_at).toISOString(),
    }));
  }
}

function view(r: CommentRow): CommentView {
  return {
    id: r.id,
    marketId: r.market_id,
    userId: r.user_id,
    displayName: r.display_name,
    isAgent: r.is_agent,
    body: r.body,
    createdAt: new Date(r.created_at).toISOString(),
  };
}
