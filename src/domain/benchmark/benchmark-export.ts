import type { Database } from '../../db/database';
import { decodeCursor, encodeCursor } from '../../db/keyset-cursor';
import { MICRO } from '../money/micro';
import { resolvedMarketsCte } from './resolved-markets';
import { seasonRange, type Season } from './seasons';

/**
 * One resolved forecast as exported: the stated record whole (id and rationale too, so its hash can be recomputed from
 * the export alone), its chain fields, the board audience of its account, and how its market resolved.
 */
export interface ExportedForecast {
  id: string;
  userId: string;
  /** The benchmark audience of its account: people, agents or reference (a board's audience is one or two of these). */
  audience: 'people' | 'agents' | 'reference';
  seq: number;
  marketId: string;
  venue: 'mirrored' | 'community';
  source: string;
  createdAt: string;
  probabilities: number[];
  mids: Array<number | null>;
  rationale: string | null;
  /** Mirrored: 1 = YES, 0 = NO; community: the winning outcome's index; null = VOID. */
  winner: number | null;
  closedAt: string;
  resolvedAt: string;
  hash: string;
  prevHash: string | null;
}

export type ExportFormat = 'json' | 'jsonl' | 'csv';

const SORT = 'user_seq';
const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:\d{1,10}$/i;

/**
 * Every forecast (current or superseded: time-averaged scores use them all) of every live account on a market resolved in
 * the season, but a community market's creator's own, which no score counts. Paged by (account, seq).
 */
const EXPORT_SQL = `
  WITH ${resolvedMarketsCte({ from: '$1', to: '$2' })}
  SELECT f.id, f.user_id, f.seq, f.market_id, f.venue, f.source, f.created_at, f.probabilities_micro, f.mids_micro, f.rationale, f.hash, f.prev_hash,
    r.winner, r.closed_at, r.resolved_at,
    CASE WHEN u.reference IS NOT NULL THEN 'reference' WHEN u.is_agent THEN 'agents' ELSE 'people' END AS audience
  FROM forecasts f JOIN resolved r ON r.market_id = f.market_id AND r.creator_id IS DISTINCT FROM f.user_id
    JOIN users u ON u.id = f.user_id AND u.deleted_at IS NULL
  WHERE ($3::uuid IS NULL OR (f.user_id, f.seq) > ($3::uuid, $4::int))
  ORDER BY f.user_id, f.seq LIMIT $5`;

interface Row {
  id: string;
  audience: ExportedForecast['audience'];
  rationale: string | null;
  user_id: string;
  seq: number;
  market_id: string;
  venue: 'mirrored' | 'community';
  source: string;
  created_at: Date;
  probabilities_micro: Array<string | bigint>;
  mids_micro: Array<string | bigint | null>;
  hash: string;
  prev_hash: string | null;
  winner: number | null;
  closed_at: Date;
  resolved_at: Date;
}

const prob = (m: string | bigint) => Number(m) / Number(MICRO);

export async function exportSeason(
  db: Database,
  season: Season,
  q: { limit: number; cursor?: string },
): Promise<{ forecasts: ExportedForecast[]; nextCursor: string | null }> {
  const range = seasonRange(season);
  let after: [string, number] | [null, null] = [null, null];
  if (q.cursor !== undefined) {
    const c = decodeCursor(q.cursor, SORT, (k) => KEY.test(k), 'Pass nextCursor from the previous page unchanged.');
    const [user, seq] = c.k.split(':');
    after = [user!, Number(seq)];
  }
  const rows = await db.query<Row>(EXPORT_SQL, [range?.from ?? null, range?.to ?? null, after[0], after[1], q.limit + 1]);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    forecasts: page.map((r) => ({
      id: r.id,
      userId: r.user_id,
      audience: r.audience,
      seq: Number(r.seq),
      marketId: r.market_id,
      venue: r.venue,
      source: r.source,
      createdAt: new Date(r.created_at).toISOString(),
      probabilities: r.probabilities_micro.map(prob),
      mids: r.mids_micro.map((m) => (m === null ? null : prob(m))),
      rationale: r.rationale,
      winner: r.winner === null ? null : Number(r.winner),
      closedAt: new Date(r.closed_at).toISOString(),
      resolvedAt: new Date(r.resolved_at).toISOString(),
      hash: r.hash,
      prevHash: r.prev_hash,
    })),
    nextCursor: rows.length > q.limit && last ? encodeCursor({ s: SORT, k: `${last.user_id}:${last.seq}`, i: last.user_id }) : null,
  };
}

export const CSV_COLUMNS = [
  'id',
  'userId',
  'audience',
  'seq',
  'marketId',
  'venue',
  'source',
  'createdAt',
  'probabilities',
  'mids',
  'rationale',
  'winner',
  'closedAt',
  'resolvedAt',
  'hash',
  'prevHash',
] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. Arrays and objects are their JSON text. */
function csvField(v: unknown): string {
  const text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The page as text: JSON lines (one record a line) or CSV with a header line; lines end with \n. */
export function formatExport(rows: readonly ExportedForecast[], format: Exclude<ExportFormat, 'json'>): string {
  return formatRows(rows, CSV_COLUMNS, format);
}

/** Any part's rows as text, the same way: JSON lines, or CSV with `columns` as its header. */
export function formatRows<T extends object>(rows: readonly T[], columns: readonly string[], format: Exclude<ExportFormat, 'json'>): string {
  if (format === 'jsonl') return rows.map((r) => JSON.stringify(r) + '\n').join('');
  const field = (r: T, c: string) => csvField((r as Record<string, unknown>)[c]);
  return [columns.join(','), ...rows.map((r) => columns.map((c) => field(r, c)).join(','))].join('\n') + '\n';
}
