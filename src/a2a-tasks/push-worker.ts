import type { Config } from '../config';
import type { Logger } from '../logger';
import type { EventFeed } from '../domain/events/event-feed';
import type { OrderService } from '../domain/orders/order-service';
import type { PushTarget, TaskPushStore } from '../domain/task-push/task-push-store';
import { guardedPost, OutboundRefused } from '../outbound/guarded-post';
import { loadA2aSdk, type A2aSdk } from './sdk';
import { taskOf } from './task-view';

const BATCH = 100;
/** Attempts per push (a network failure or a 5xx is retried after these pauses); A2A asks for no more. */
const RETRY_PAUSES_MS = [500, 2000];
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/**
 * Delivers A2A push notifications: when an account's order events commit (in any process), the order's current task
 * is POSTed to every push target registered for it, through the guarded sender. Which process pushes an event is
 * settled by the account's push cursor (TaskPushStore.claim takes it under a row lock), so every process can run a
 * worker and each event is pushed once. The body is a v1.0 StreamResponse `{task}` (or the v0.3 Task for a target
 * registered in v0.3); the target's token travels in X-A2A-Notification-Token and its credentials as Authorization.
 */
export class TaskPushWorker {
  private unsubscribe: (() => void) | undefined;
  /** One drain per account at a time; a wake during a drain runs it once more after. */
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();

  constructor(private readonly deps: { store: TaskPushStore; orders: OrderService; feed: EventFeed; config: Config; log: Logger }) {}

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.deps.feed.subscribeAll((userId) => {
      if (userId) this.kick(userId);
      else void this.catchUp();
    });
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** After the feed reconnects: every account with push targets re-reads its log from its cursor. */
  private async catchUp(): Promise<void> {
    try {
      for (const userId of await this.deps.store.usersWithTargets()) this.kick(userId);
    } catch (err) {
      this.deps.log.error('a2a push catch-up failed', { error: String(err) });
    }
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
