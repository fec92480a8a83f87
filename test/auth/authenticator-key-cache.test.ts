import type { Queryable } from '../../src/db/database';
import { Authenticator } from '../../src/auth/authenticator';
import { hashSecret } from '../../src/auth/api-keys';
import type { CallInfo } from '../../src/auth/caller';

/** A users table of one key whose lookups the test answers one by one. */
class HeldLookups implements Queryable {
  notify(): void {
    throw new Error('a read announces nothing');
  }
  lookups = 0;
  /** The account the key belongs to; null once it has been rotated away. */
  owner: string | null = 'user-1';
  private readonly held: Array<() => void> = [];
  async query<T>(sql: string, params?: unknown[]): Promise<T[]> {
    expect(sql).toContain('api_key_hash');
    expect(params).toEqual([hashSecret(KEY)]);
    this.lookups += 1;
    // The row as of when the lookup was sent (its snapshot), answered when the test releases it.
    const owner = this.owner;
    await new Promise<void>((release) => this.held.push(release));
    return (owner ? [{ id: owner, is_agent: true }] : []) as T[];
  }
  release(): void {
    this.held.shift()!();
  }
  get waiting(): number {
    return this.held.length;
  }
}

const KEY = `svc_${'c'.repeat(32)}`;
const call: CallInfo = {
  transport: 'rest',
  requestId: 'r',
  ip: '127.0.0.1',
  credentials: { bearer: KEY },
  address: { origin: 'http://127.0.0.1', own: ['http://127.0.0.1'] },
};
const tick = () => new Promise((r) => setImmediate(r));

describe('Authenticator API-key cache', () => {
  let db: HeldLookups;
  let clock: number;
  let auth: Authenticator;
  beforeEach(() => {
    db = new HeldLookups();
    clock = 0;
    auth = new Authenticator({ db, clock: { now: () => new Date() }, monotonic: () => clock });
  });

  /** Authenticates, and says whether the answer came before the test released any lookup. */
  async function answersAtOnce(): Promise<boolean> {
    let answered = false;
    const p = auth.authenticate('key', call).then((x) => ((answered = true), x));
    await tick();
    const atOnce = answered;
    while (!answered && db.waiting > 0) {
      db.release();
      await tick();
    }
    const principal = await p;
    expect(principal?.userId).toBe('user-1');
    return atOnce;
  }

  async function first(): Promise<void> {
    expect(await answersAtOnce()).toBe(false);
    expect(db.lookups).toBe(1);
  }

  test('when calls with an unverified key arrive together, then they share one lookup', async () => {
    const calls = Array.from({ length: 20 }, () => auth.authenticate('key', call));
    await tick();
    expect(db.lookups).toBe(1);
    db.release();
    for (const p of await Promise.all(calls)) expect(p?.userId).toBe('user-1');
  });

  test('when a verified key is in the first half of its time, then calls are answered without a lookup', async () => {
    await first();
    clock = 2400;
    expect(await answersAtOnce()).toBe(true);
    expect(db.lookups).toBe(1);
  });

  test('when a verified key is in the second half of its time, then calls are answered at once while one lookup renews it', async () => {
    await first();
    clock = 3000;
    const calls = Array.from({ length: 20 }, () => answersAtOnce());
    for (const atOnce of await Promise.all(calls)) expect(atOnce).toBe(true);
    expect(db.lookups).toBe(2);
    db.release();
    await tick();
    // Renewed from when the second lookup was sent (3000): at 7900 still answered at once, with a renewal under way.
    clock = 7900;
    expect(await answersAtOnce()).toBe(true);
    expect(db.lookups).toBe(3);
  });

  test('when a verified key has not been looked up for its whole time, then the call waits for a lookup', async () => {
    await first();
    clock = 5000;
    expect(await answersAtOnce()).toBe(false);
    expect(db.lookups).toBe(2);
  });

  test('when the key is rotated while its renewal runs, then the old key is not remembered and the next call is refused', async () => {
    await first();
    clock = 3000;
    const renewing = auth.authenticate('key', call);
    await tick();
    expect(db.waiting).toBe(1);
    auth.forgetKeysOf('user-1');
    db.owner = null;
    db.release();
    expect((await renewing)?.userId).toBe('user-1'); // answered from the entry it found
    await tick();
    const after = auth.authenticate('key', call);
    await tick();
    expect(db.lookups).toBe(3); // a fresh lookup, not the renewal that began before the rotation
    db.release();
    await expect(after).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  test('when the key no longer exists, then its renewal forgets it and the next call is refused', async () => {
    await first();
    db.owner = null;
    clock = 3000;
    expect(await answersAtOnce()).toBe(true);
    db.release();
    await tick();
    const next = auth.authenticate('key', call);
    await tick();
    expect(db.waiting).toBe(1);
    db.release();
    await expect(next).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
