import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';

/** Keys are kept 24 hours per account; an in-flight claim older than this is taken as abandoned (a crash). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const ABANDONED_AFTER_MS = 60 * 1000;

export type Claim =
  { kind: 'new'; complete: (tx: Queryable, response: unknown) => Promise<void>; release: () => Promise<void> } | { kind: 'replay'; response: unknown };

/** Stable JSON (sorted keys) so the same body always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestHash(method: string, input: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${canonical(input)}`)
    .digest('hex');
}

/**
 * Idempotency-Key handling. claim() records the key as in flight before the work starts; the work
 * calls complete(tx, response) inside its own transaction, so the response is stored if and only if
 * the trade committed. A failure releases the key (nothing changed, so a retry may run again).
 */
export class IdempotencyStore {
  constructor(private readonly db: Database) {}

  async claim(userId: string, key: string, method: string, hash: string, now: Date): Promise<Claim> {
    if (key.length < 1 || key.length > 255) throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 characters.');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const inserted = await this.db.query<{ key: string }>(
        `INSERT INTO idempotency_keys (user_id, key, method, request_hash, state, created_at)
         VALUES ($1, $2, $3, $4, 'in_flight', $5) ON CONFLICT (user_id, key) DO NOTHING RETURNING key`,
        [userId, key, method, hash, now],
      );
      if (inserted[0]) {
        return {
          kind: 'new',
          complete: async (tx, response) => {
            await tx.query(`UPDATE idempotency_keys SET state = 'done', response = $3 WHERE user_id = $1 AND key = $2`, [
              userId,
              key,
              JSON.stringify(response),
            ]);
          },
          release: async () => {
            await this.db.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'in_flight'`, [userId, key]);
          },
        };
      }
      const rows = await this.db.query<{ method: string; request_hash: string; state: string; response: unknown; created_at: Date }>(
        'SELECT method, request_hash, state, response, created_at FROM idempotency_keys WHERE user_id = $1 AND key = $2',
        [userId, key],
      );
      const row = rows[0];
      if (!row) continue; // released between our insert and select: try again
      const age = now.getTime() - new Date(row.created_at).getTime();
      const expired = age > IDEMPOTENCY_TTL_MS || (row.state === 'in_flight' && age > ABANDONED_AFTER_MS);
      if (expired) {
        await this.db.query('DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND created_at = $3', [userId, key, row.created_at]);
        continue;
      }
      if (row.method !== method || row.request_hash !== hash) {
        throw new AppError('CONFLICT', 'This Idempotency-Key was already used with a different request.', { hint: 'Use a new key for a new request.' });
      }
      if (row.state === 'in_flight') {
        throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in flight.', { hint: 'Retry after it finishes to get its response.' });
      }
      return { kind: 'replay', response: typeof row.response === 'string' ? JSON.parse(row.response) : row.response };
    }
    throw new AppError('CONFLICT', 'This Idempotency-Key is contended; retry.');
  }

  /** Drops keys older than the TTL (run from the maintenance timer). */
  async purge(now: Date): Promise<void> {
    await this.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [new Date(now.getTime() - IDEMPOTENCY_TTL_MS)]);
  }
}
