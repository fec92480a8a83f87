import type { Logger } from '../../logger';
import { ACCOUNT_EVENTS_CHANNEL, parseAnnouncement } from './account-events';
import { OnDemandStart } from '../../db/on-demand-start';

/** Where the feed hears committed events: Database.listen (PostgreSQL LISTEN/NOTIFY, or the embedded database's). */
export type Listen = (channel: string, onPayload: (payload: string) => void, onResumed: () => void) => Promise<() => Promise<void>>;

/** Called with the account and the seq just committed; `seq` null means "announcements may have been lost: re-read". */
export type Wake = (userId: string, seq: bigint | null) => void;

/**
 * How often every subscriber is woken to catch up from the log, whatever it heard: an announcement goes out after its
 * commit (Queryable.notify), and one whose process died in between never comes.
 */
export const CATCH_UP_MS = 5000;

/**
 * Wakes subscribers when an account's events commit, in whichever process wrote them. A wake is only a hint: a
 * subscriber reads the log (EventLog.after) from the last seq it delivered, so a lost, late or repeated wake never
 * loses or repeats an event; after the listening session reconnects, and every `catchUpMs` while it listens, every
 * subscriber is woken to catch up.
 */
export class EventFeed {
  private readonly byUser = new Map<string, Set<Wake>>();
  private readonly all = new Set<Wake>();
  private stopListening: (() => Promise<void>) | undefined;
  private readonly onDemand = new OnDemandStart();
  private catchUpTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly catchUpMs = CATCH_UP_MS,
  ) {}

  async start(listen: Listen): Promise<void> {
    if (this.stopListening) return;
    this.stopListening = await listen(
      ACCOUNT_EVENTS_CHANNEL,
      (payload) => {
        const a = parseAnnouncement(payload);
        if (a) this.wake(a.userId, a.seq);
      },
      () => {
        this.log.info('event feed resumed: subscribers catch up from the log');
        this.catchUp();
      },
    );
    this.catchUpTimer = setInterval(() => this.catchUp(), this.catchUpMs);
    this.catchUpTimer.unref();
  }

  /**
   * Listens with `listen` only once a subscriber needs it (ready()): a replay run's feed, whose listening session would
   * otherwise cost a connection for every run loaded, streamed or not.
   */
  listenOnDemand(listen: Listen): void {
    this.onDemand.set(() => this.start(listen));
  }

  /** Resolves once commits wake this feed's subscribers: at once when it listens (or never will), else after starting. */
  async ready(): Promise<void> {
    await this.onDemand.ready(this.stopListening !== undefined);
  }

  async stop(): Promise<void> {
    clearInterval(this.catchUpTimer);
    this.catchUpTimer = undefined;
    await this.onDemand.cancel();
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
  }

  /** Wakes `wake` for one account's events; returns the unsubscribe. */
  subscribe(userId: string, wake: Wake): () => void {
    let subs = this.byUser.get(userId);
    if (!subs) this.byUser.set(userId, (subs = new Set()));
    subs.add(wake);
    return () => {
      subs.delete(wake);
      if (subs.size === 0 && this.byUser.get(userId) === subs) this.byUser.delete(userId);
    };
  }

  /** Wakes `wake` for every account's events (a delivery worker); after a reconnect it hears ('', null). */
  subscribeAll(wake: Wake): () => void {
    this.all.add(wake);
    return () => this.all.delete(wake);
  }

  /** Wakes every subscriber with no seq: each reads the log from where it is. */
  private catchUp(): void {
    for (const [userId, subs] of this.byUser) for (const s of subs) this.safely(s, userId, null);
    for (const s of this.all) this.safely(s, '', null);
  }

  private wake(userId: string, seq: bigint): void {
    for (const s of this.byUser.get(userId) ?? []) this.safely(s, userId, seq);
    for (const s of this.all) this.safely(s, userId, seq);
  }

  private safely(s: Wake, userId: string, seq: bigint | null): void {
    try {
      s(userId, seq);
    } catch (err) {
      this.log.error('event subscriber failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
