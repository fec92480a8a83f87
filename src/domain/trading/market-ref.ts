import type { Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';

/**
 * The id of the market a caller names by id or slug (a mirrored market's; with `community`, a community market's too),
 * or NOT_FOUND: cancel_all_orders and close_position take either, as a caller holds Order.marketId or a slug.
 */
export async function marketIdOf(q: Queryable, idOrSlug: string, opts: { community?: boolean; hint: string }): Promise<string> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM (SELECT id, (id = $1) AS exact FROM markets WHERE id = $1 OR slug = $1
       ${opts.community ? 'UNION ALL SELECT id::text, (id::text = $1) AS exact FROM community_markets WHERE id::text = $1 OR slug = $1' : ''}) m
     ORDER BY exact DESC LIMIT 1`,
    [idOrSlug],
  );
  if (!rows[0]) throw new AppError('NOT_FOUND', `No market with id or slug ${idOrSlug.slice(0, 100)}.`, { hint: opts.hint });
  return rows[0].id;
}
