import { createHash, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { ClaimLease } from './claim-lease';

/** Keys are kept 24 hours per account. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A claim older than this is taken over whoever holds it: no request runs this long (statement timeouts). */
const ABANDONED_AFTER_MS = 60 * 1000;
/** What a 409 for a request still running tells the client to wait (seconds): trades take milliseconds. */
const IN_FLIGHT_RETRY_AFTER_S = 1;

export type Claim =
  | {
      kind: 'new';
      /** Stores the response in the work's own transaction; throws (rolling the work back) if the claim was taken over. */
      complete: (tx: Queryable, response: unknown) => Promise<void>;
      /** Gives the key back after a failure that changed nothing. */
      release: () => Promise<void>;
      /** The request is over (answered or failed): its claim is no longer live in this process. */
      end: () => void;
    }
  | { kind: 'replay'; response: unknown };

interface ClaimRow {
  method: string;
  request_hash: string;
  state: string;
  response: unknown;
  created_at: Date;
  claim_id: string | null;
  lease: number | null;
}

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
 *
 * A claim is held by one request (claim_id) of one process (lease, see ClaimLease). When a retry finds the
 * key in flight it answers 409 with Retry-After only if that request can still finish: it runs in this
 * process, or its process still holds its lease. A claim whose request died (with its process, or in this
 * one without giving the key back, e.g. when the database went away) is taken over at once. Never twice:
 * complete() stores the response only while its own claim_id is on the row, and the takeover changes it
 * with an UPDATE that waits for the row lock a completing trade holds until it commits — so either the
 * first trade committed (the retry then replays it) or it can no longer commit.
 */
export class IdempotencyStore {
  private readonly lease: ClaimLease;
  /** Claims of the requests running in this process. */
  private readonly live = new Set<string>();

  constructor(private readonly db: Database) {
    this.lease = new ClaimLease(db);
  }

  async claim(userId: string, key: string, method: string, hash: string, now: Date): Promise<Claim> {
    if (key.length < 1 || key.length > 255) throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 characters.');
    const lease = await this.lease.id();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimId = randomUUID();
      const inserted = await this.db.query<{ key: string }>(
        `INSERT INTO idempotency_keys (user_id, key, method, request_hash, state, created_at, claim_id, lease)
         VALUES ($1, $2, $3, $4, 'in_flight', $5, $6, $7) ON CONFLICT (user_id, key) DO NOTHING RETURNING key`,
        [userId, key, method, hash, now, claimId, lease],
      );
      if (inserted[0]) return this.held(userId, key, claimId);
      const rows = await this.db.query<ClaimRow>(
        'SELECT method, request_hash, state, response, created_at, claim_id, lease FROM idempotency_keys WHERE user_id = $1 AND key = $2',
        [userId, key],
      );
      const row = rows[0];
      if (!row) continue; // released between our insert and select: try again
      const age = now.getTime() - new Date(row.created_at).getTime();
      if (age > IDEMPOTENCY_TTL_MS) {
        await this.db.query('DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND created_at = $3', [userId, key, row.created_at]);
        continue;
      }
      if (row.method !== method || row.request_hash !== hash) {
        throw new AppError('CONFLICT', 'This Idempotency-Key was already used with a different request.', { hint: 'Use a new key for a new request.' });
      }
      if (row.state !== 'in_flight') return { kind: 'replay', response: typeof row.response === 'string' ? JSON.parse(row.response) : row.response };
      if (await this.running(row, lease, age)) {
        throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in flight.', {
          hint: `Retry after ${IN_FLIGHT_RETRY_AFTER_S} second(s) to get its response.`,
          headers: { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_S) },
        });
      }
      // Its request died: take the claim over, unless it completed or was taken meanwhile (then look again).
      const taken = await this.db.query<{ key: string }>(
        `UPDATE idempotency_keys SET claim_id = $3, lease = $4, created_at = $5
         WHERE user_id = $1 AND key = $2 AND state = 'in_flight' AND claim_id IS NOT DISTINCT FROM $6 AND created_at = $7 RETURNING key`,
        [userId, key, claimId, lease, now, row.claim_id, row.created_at],
      );
      if (taken[0]) return this.held(userId, key, claimId);
    }
    throw new AppError('CONFLICT', 'This Idempotency-Key is contended; retry.', { headers: { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_S) } });
  }

  /** Whether the request holding an in-flight claim can still finish it. */
  private async running(row: ClaimRow, lease: number, age: number): Promise<boolean> {
    if (age > ABANDONED_AFTER_MS) return false;
    if (row.claim_id && this.live.has(row.claim_id)) return true;
    if (row.lease === lease) return false; // ours, and no request of ours holds it any more
    return this.lease.held(row.lease);
  }

  private held(userId: string, key: string, claimId: string): Claim {
    this.live.add(claimId);
    return {
      kind: 'new',
      complete: async (tx, response) => {
        const stored = await tx.query(
          `UPDATE idempotency_keys SET state = 'done', response = $4 WHERE user_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight' RETURNING key`,
          [userId, key, claimId, JSON.stringify(response)],
        );
        if (!stored[0]) {
          throw new AppError('CONFLICT', 'This request was taken over by a retry with the same Idempotency-Key; nothing was changed by this one.', {
            hint: 'Retry with the same key to get the response of the one that ran.',
            headers: { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_S) },
          });
        }
      },
      release: async () => {
        await this.db.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_flight'`, [userId, key, claimId]);
      },
      end: () => {
        this.live.delete(claimId);
      },
    };
  }

  /** Ends this process's lease (on shutdown). */
  async close(): Promise<void> {
    await this.lease.close();
  }

  /** Drops keys older than the TTL (run from the maintenance timer). */
  async purge(now: Date): Promise<void> {
    await this.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [new Date(now.getTime() - IDEMPOTENCY_TTL_MS)]);
  }
}
