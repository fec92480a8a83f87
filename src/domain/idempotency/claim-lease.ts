import { randomInt } from 'node:crypto';
import type { Client } from 'pg';
import type { Database } from '../../db/database';

/** First key of the two-key advisory locks that hold leases (the two-key space never meets the one-key one). */
const LEASE_LOCK_CLASS = 0x1de4;

/**
 * This process's lease on its idempotency claims: a number written on each claim it makes, which another
 * process can test for life.
 *
 * On PostgreSQL the lease is a session advisory lock held on a connection of its own for as long as the
 * process lives. When the process dies (kill -9, crash, lost host) the server ends that session and drops
 * the lock, so the lease is free at once: anyone can tell a claim whose request died with its process by
 * trying the lock, and take it over without waiting. A lease whose connection drops while the process
 * lives is replaced by a new one on the next claim; its claims may then be taken over while their requests
 * still run, which stays safe: a claim is completed only by the request that holds it, in the trade's own
 * transaction (see IdempotencyStore), so of two requests for one key exactly one trade commits.
 *
 * PGlite's database is opened by one process at a time (its lockfile), so there every claim not made by
 * this process's current lease is from a process that has died.
 */
interface Lease {
  id: number;
  client?: Client;
  /** Its connection dropped: the lock went with it. */
  lost: boolean;
}

export class ClaimLease {
  private lease?: Promise<Lease>;

  constructor(private readonly db: Database) {}

  /** The lease's number, taken when first needed, and taken anew after its connection dropped. */
  async id(): Promise<number> {
    for (;;) {
      const pending = (this.lease ??= this.take().catch((err: unknown) => {
        this.lease = undefined;
        throw err;
      }));
      const lease = await pending;
      if (!lease.lost) return lease.id;
      if (this.lease === pending) this.lease = undefined;
    }
  }

  /** Whether the process that holds `lease` is alive. A claim without a lease (older rows) counts as alive. */
  async held(lease: number | null): Promise<boolean> {
    if (lease === null) return true;
    if (this.db.kind === 'pglite') return false;
    // An xact lock taken by a lone statement is let go when that statement ends.
    const [row] = await this.db.query<{ free: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS free', [LEASE_LOCK_CLASS, lease]);
    return !row?.free;
  }

  async close(): Promise<void> {
    const lease = await this.lease?.catch(() => undefined);
    this.lease = undefined;
    await lease?.client?.end().catch(() => {});
  }

  private async take(): Promise<Lease> {
    if (this.db.kind === 'pglite') return { id: randomInt(1, 2 ** 31 - 1), lost: false };
    const lease: Lease = { id: 0, lost: false };
    lease.client = await this.db.sessionClient(() => {
      lease.lost = true;
    });
    try {
      for (;;) {
        const id = randomInt(1, 2 ** 31 - 1);
        const { rows } = await lease.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LEASE_LOCK_CLASS, id]);
        if (rows[0]?.ok) return Object.assign(lease, { id });
      }
    } catch (err) {
      await lease.client.end().catch(() => {});
      throw err;
    }
  }
}
