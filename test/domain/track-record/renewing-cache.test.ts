import type { Queryable } from '../../../src/db/database';
import { CommitWatermark } from '../../../src/db/commit-watermark';
import { ConcurrencyGate } from '../../../src/db/concurrency-gate';
import { RenewingCache } from '../../../src/domain/track-record/renewing-cache';

const unheard = () => {
  throw new Error('a read announces nothing');
};
const quiet: Queryable = { query: async <T>() => [{ mark: 'm1' }] as T[], notify: unheard };

describe('RenewingCache', () => {
  test('when it is full, then the oldest read is dropped, not every entry (boards others are served from stay)', async () => {
    const cache = new RenewingCache<number>({
      watermark: new CommitWatermark(quiet, () => 0),
      gate: new ConcurrencyGate(1),
      cacheMs: 1000,
      clock: () => 0,
      maxEntries: 2,
    });
    const reads: string[] = [];
    const read = (key: string, value: number) => cache.get(key, async () => (reads.push(key), value));
    await read('a', 1);
    await read('b', 2);
    await read('c', 3); // drops a
    expect(await read('b', 20)).toBe(2);
    expect(await read('c', 30)).toBe(3);
    expect(await read('a', 10)).toBe(10); // read again, drops b
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
  });

  test('when a value is read within cacheMs of a mark reading, then that reading is its mark (no second statement); past it, a new one is taken', async () => {
    let marks = 0;
    const counted: Queryable = { query: async <T>() => (marks++, [{ mark: 'm1' }] as T[]), notify: unheard };
    let clock = 0;
    const cache = new RenewingCache<number>({
      watermark: new CommitWatermark(counted, () => clock),
      gate: new ConcurrencyGate(1),
      cacheMs: 1000,
      clock: () => clock,
      maxEntries: 10,
    });
    await cache.get('a', async () => 1);
    expect(marks).toBe(1);
    clock = 900;
    await cache.get('b', async () => 2);
    expect(marks).toBe(1);
    clock = 1000;
    await cache.get('c', async () => 3);
    expect(marks).toBe(2);
  });

  test('when values are kept on repeat, then a key read once is not kept, and one read again is', async () => {
    const cache = new RenewingCache<number>({
      watermark: new CommitWatermark(quiet, () => 0),
      gate: new ConcurrencyGate(1),
      cacheMs: 1000,
      clock: () => 0,
      maxEntries: 2,
      admitOnRepeat: true,
    });
    const reads: string[] = [];
    const read = (key: string, value: number) => cache.get(key, async () => (reads.push(key), value));
    expect(await read('a', 1)).toBe(1); // read, remembered, not kept
    expect(await read('b', 2)).toBe(2);
    expect(await read('a', 10)).toBe(10); // read again: kept now
    expect(await read('a', 100)).toBe(10); // served from memory
    expect(reads).toEqual(['a', 'b', 'a']);
    // The doorkeeper forgets everything at 4 × maxEntries keys: c…j fill it, and b's first read is forgotten.
    for (const k of ['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']) await read(k, 0);
    await read('b', 20);
    expect(await read('b', 200)).toBe(200);
  });
});
