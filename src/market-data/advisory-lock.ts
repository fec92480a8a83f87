import { createHash } from 'node:crypto';
import type { Database } from '../db/database';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * A PostgreSQL session advisory lock, tried without waiting. On PostgreSQL it lives on a connection of
 * its own, held for the whole critical section while the work uses the pool; if the process dies the
 * server drops it. PGlite has one connection (and one process, enforced by its lockfile), so there the
 * lock is taken and released on that same connection.
 */
export async function tryAdvisoryLock(db: Database, key: bigint): Promise<HeldLock | null> {
  const k = scopedKey(key, db.scope).toString();
  if (db.kind === 'pglite') {
    const [row] = await db.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [k]);
    if (!row?.ok) return null;
    return { release: async () => void (await db.query('SELECT pg_advisory_unlock($1::bigint)', [k])) };
  }
  const runner = db.dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = (await runner.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [k])) as Array<{ ok: boolean }>;
    if (!row?.ok) {
      await runner.release();
      return null;
    }
  } catch (err) {
    await runner.release();
    throw err;
  }
  return {
    release: async () => {
      try {
        await runner.query('SELECT pg_advisory_unlock($1::bigint)', [k]);
      } finally {
        await runner.release();
      }
    },
  };
}

/** A replay run's schema shares the server's advisory locks: its keys are its own (the key mixed with the scope's hash, 63 bits). */
function scopedKey(key: bigint, scope: string | undefined): bigint {
  if (!scope) return key;
  const h = BigInt(`0x${createHash('sha256').update(scope).digest('hex').slice(0, 16)}`);
  return (key ^ h) & 0x7fffffffffffffffn;
}
