import type { ConcurrencyGate } from '../../db/concurrency-gate';
import type { CommitWatermark } from '../../db/commit-watermark';

/** A value read from the database, this process's write version and the commit watermark before it was read, and until when it is fresh. */
type Entry<T> = { version: number; mark: string; until: number; value: T };

/**
 * Values read from the database (boards, a caller's rank), by key, with the bound the track record states:
 * a committed write in this process (invalidate) bumps the version, so a value is never staler than this
 * process's last write. Writes by other processes sharing the database show within twice cacheMs: a value
 * past its time is still served, for at most another cacheMs, while the database's commit watermark is
 * checked and, if it moved, one read replaces it, so no request waits on either; a check made for any value
 * renews every value read under the mark it saw, so a value unasked for a while is not checked again on its own. Requests that miss together
 * share one read; background renewals go through `gate` (one at a time: values served together age together,
 * and re-reading them all in the same instant would put as many busy backends beside the service on a
 * machine of few cores, while nobody waits for these reads).
 */
export class RenewingCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Reads under way, by version and key. */
  private readonly reading = new Map<string, Promise<T>>();
  /** Keys being renewed in the background. */
  private readonly replacing = new Set<string>();
  private version = 0;
  /** Keys read once and not kept (admitOnRepeat). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly opts: {
      watermark: CommitWatermark;
      gate: ConcurrencyGate;
      cacheMs: number;
      clock: () => number;
      /** At most this many entries: the oldest read is dropped first (never the whole cache at once). */
      maxEntries: number;
      /**
       * Keep a value only when its key is asked for again while remembered (a doorkeeper of 4 × maxEntries keys,
       * forgotten all at once when full). For keys drawn from far more than maxEntries (any account's record): one-off
       * reads pass through and die young, where kept they lived just long enough to be promoted and die old, and the
       * full collections they fed stalled every request.
       */
      admitOnRepeat?: boolean;
    },
  ) {}

  /** Something a value shows has changed and committed in this process: values are read afresh. */
  invalidate(): void {
    this.version += 1;
  }

  get(key: string, read: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.version === this.version) {
      const now = this.opts.clock();
      if (hit.until > now) return Promise.resolve(hit.value);
      // Another value's check, within the bound, saw the mark this one was read under: nothing it shows has changed.
      const latest = this.opts.watermark.latest;
      if (latest && latest.mark === hit.mark && latest.at + this.opts.cacheMs > now) {
        hit.until = latest.at + this.opts.cacheMs;
        return Promise.resolve(hit.value);
      }
      if (hit.until + this.opts.cacheMs > now) {
        // Past its time but recent: served while one check (and, if anything committed, one read) renews it;
        // a failed check or read leaves it to age out.
        if (!this.replacing.has(key)) {
          this.replacing.add(key);
          this.opts.gate
            .run(() => this.renew(key, hit, read))
            .catch(() => {})
            .finally(() => this.replacing.delete(key));
        }
        return Promise.resolve(hit.value);
      }
      return this.renew(key, hit, read);
    }
    return this.load(key, read);
  }

  /**
   * A value past its time is read again only when some transaction has committed since it was read (the
   * watermark moved); else it is good for another cacheMs from the moment of the check. Checking costs one
   * tiny statement shared by every value checked at once, where a read walks an index.
   */
  private async renew(key: string, hit: Entry<T>, read: () => Promise<T>): Promise<T> {
    const reading = await this.opts.watermark.read();
    if (reading.mark === hit.mark && hit.version === this.version && this.entries.get(key) === hit) {
      hit.until = Math.max(hit.until, reading.at + this.opts.cacheMs);
      return hit.value;
    }
    return this.load(key, read);
  }

  /** Whether a value just read is kept: always, or on admitOnRepeat when its key was read before (or is kept already). */
  private admits(key: string, kept: boolean): boolean {
    if (!this.opts.admitOnRepeat || kept || this.seen.delete(key)) return true;
    if (this.seen.size >= 4 * this.opts.maxEntries) this.seen.clear();
    this.seen.add(key);
    return false;
  }

  /** One read per key and version at a time; its value is kept unless a write came while it was read. */
  private load(key: string, read: () => Promise<T>): Promise<T> {
    // The version before reading: a write that commits while this value is read makes the entry stale at once.
    const version = this.version;
    const readingKey = `${version}|${key}`;
    let pending = this.reading.get(readingKey);
    if (!pending) {
      pending = (async () => {
        // The mark is taken before the value is read, so whatever commits after the value's snapshot moves it; a reading
        // still within the bound (another value's check) is such a mark too, older only, and saves a round trip.
        const latest = this.opts.watermark.latest;
        const { mark } = latest && latest.at + this.opts.cacheMs > this.opts.clock() ? latest : await this.opts.watermark.read();
        const value = await read();
        const cached = this.entries.get(key);
        // A read that began before a newer one was kept does not replace it.
        if (this.opts.cacheMs > 0 && (!cached || cached.version <= version) && this.admits(key, cached !== undefined)) {
          // Re-inserted at the end: the map's order is the order of reads, oldest first.
          this.entries.delete(key);
          while (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
          this.entries.set(key, { version, mark, until: this.opts.clock() + this.opts.cacheMs, value });
        }
        return value;
      })().finally(() => this.reading.delete(readingKey));
      this.reading.set(readingKey, pending);
    }
    return pending;
  }
}
