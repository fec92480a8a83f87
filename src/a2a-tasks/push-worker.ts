import type { Config } from '../config';
import type { Logger } from '../logger';
import type { EventFeed, Listen } from '../domain/events/event-feed';
import type { OrderService } from '../domain/orders/order-service';
import { PUSH_TARGETS_CHANNEL, type PushTarget, type TaskPushStore } from '../domain/task-push/task-push-store';
import { guardedPost, OutboundRefused } from '../outbound/guarded-post';
import { loadA2aSdk, type A2aSdk } from './sdk';
import { taskOf } from './task-view';

const BATCH = 100;
/** Attempts per push (a network failure or a 5xx is retried after these pauses); A2A asks for no more. */
const RETRY_PAUSES_MS = [500, 2000];
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';
/** The set of accounts with targets is re-read this often, in case an announcement was lost. */
export const TARGETS_RELOAD_MS = 60_000;

/**
 * Delivers A2A push notifications: when an account's order events commit (in any process), the order's current task
 * is POSTed to every push target registered for it, through the guarded sender. Which process pushes an event is
 * settled by the account's push cursor (TaskPushStore.claim takes it under a row lock), so every process can run a
 * worker and each event is pushed once. The body is a v1.0 StreamResponse `{task}` (or the v0.3 Task for a target
 * registered in v0.3); the target's token travels in X-A2A-Notification-Token and its credentials as Authorization.
 *
 * Most accounts have no targets, so an event costs nothing unless its account is in `withTargets`: read at start,
 * kept current by the store's announcements (PUSH_TARGETS_CHANNEL, from any process) and re-read every
 * TARGETS_RELOAD_MS. An account that joins the set is drained at once, so an event that came before it joined is not
 * left behind.
 */
export class TaskPushWorker {
  private unsubscribe: (() => void) | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  /** One drain per account at a time; a wake during a drain runs it once more after. */
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();
  private withTargets = new Set<string>();
  /** Reloads and re-checks of the set run one after the other, each applied in the order it read. */
  private membership: Promise<void> = Promise.resolve();

  constructor(private readonly deps: { store: TaskPushStore; orders: OrderService; feed: EventFeed; listen: Listen; config: Config; log: Logger }) {}

  async start(): Promise<void> {
    if (this.unsubscribe) return;
    // Listen and subscribe before the first read: a change or an event during it is not missed.
    this.stopListening = await this.deps.listen(
      PUSH_TARGETS_CHANNEL,
      (userId) => this.serially(() => this.recheck(userId)),
      () => this.serially(() => this.reload()),
    );
    this.unsubscribe = this.deps.feed.subscribeAll((userId) => {
      if (!userId) this.serially(() => this.reload(true));
      else if (this.withTargets.has(userId)) this.kick(userId);
    });
    this.serially(() => this.reload(true));
    await this.membership;
    this.reloadTimer = setInterval(() => this.serially(() => this.reload()), TARGETS_RELOAD_MS);
    this.reloadTimer.unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.reloadTimer);
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
    await this.membership;
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private serially(work: () => Promise<void>): void {
    this.membership = this.membership.then(work).catch((err) => this.deps.log.error('a2a push targets read failed', { error: String(err) }));
  }

  /** Re-reads the accounts with targets; `all`: every one drains (a start or a feed reconnect), else only newcomers. */
  private async reload(all = false): Promise<void> {
    const next = new Set(await this.deps.store.usersWithTargets());
    const joined = all ? [...next] : [...next].filter((u) => !this.withTargets.has(u));
    this.withTargets = next;
    if (this.unsubscribe) for (const userId of joined) this.kick(userId);
  }

  /** An account's targets changed (here or in another process). */
  private async recheck(userId: string): Promise<void> {
    if (!userId) return;
    if (!(await this.deps.store.hasTargets(userId))) {
      this.withTargets.delete(userId);
      return;
    }
    const joined = !this.withTargets.has(userId);
    this.withTargets.add(userId);
    if (joined && this.unsubscribe) this.kick(userId);
  }

  private kick(userId: string): void {
    const run = this.running.get(userId);
    if (run) {
      run.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await this.drain(userId);
        } while (state.again && this.unsubscribe);
      } catch (err) {
        this.deps.log.error('a2a push delivery failed', { userId, error: String(err) });
      } finally {
        this.running.delete(userId);
      }
    })();
    this.running.set(userId, state);
  }

  private async drain(userId: string): Promise<void> {
    for (;;) {
      const batch = await this.deps.store.claim(userId, BATCH);
      if (!batch) return;
      // Each order is pushed once per batch, as it stands now: later states supersede earlier ones.
      const taskIds = [...new Set(batch.events.map((e) => e.data.id as string))];
      if (taskIds.length) {
        const sdk = await loadA2aSdk();
        const contexts = await this.deps.store.contextsOf(userId, taskIds);
        for (const taskId of taskIds) {
          const order = await this.deps.orders.get(userId, taskId);
          const task = taskOf(order, contexts.get(taskId) ?? taskId);
          await Promise.all((batch.targetsByTask.get(taskId) ?? []).map((t) => this.push(sdk, t, task)));
        }
      }
      if (!batch.more) return;
    }
  }

  private async push(sdk: A2aSdk, target: PushTarget, task: ReturnType<typeof taskOf>): Promise<void> {
    const streamResponse = { payload: { $case: 'task' as const, value: task } };
    const body =
      target.wireVersion === '0.3'
        ? new sdk.legacyServer.V03PushNotificationSerializer().serialize(streamResponse, task).body
        : JSON.stringify(sdk.core.StreamResponse.toJSON(streamResponse));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (target.token) headers[NOTIFICATION_TOKEN_HEADER] = target.token;
    if (target.authScheme && target.authCredentials) headers.authorization = `${target.authScheme} ${target.authCredentials}`;
    const opts = { allowPrivate: this.deps.config.OUTBOUND_ALLOW_PRIVATE, timeoutMs: this.deps.config.OUTBOUND_TIMEOUT_MS };
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await guardedPost(target.url, body, headers, opts);
        if (res.status < 500) {
          if (res.status >= 300) this.deps.log.warn('a2a push refused by its target', { taskId: target.taskId, configId: target.id, status: res.status });
          return;
        }
        if (attempt >= RETRY_PAUSES_MS.length) {
          this.deps.log.warn('a2a push failed', { taskId: target.taskId, configId: target.id, status: res.status });
          return;
        }
      } catch (err) {
        if (err instanceof OutboundRefused || attempt >= RETRY_PAUSES_MS.length) {
          this.deps.log.warn('a2a push failed', { taskId: target.taskId, configId: target.id, error: err instanceof Error ? err.message : String(err) });
          return;
        }
      }
      await new Promise((r) => setTimeout(r, RETRY_PAUSES_MS[attempt]));
    }
  }
}
