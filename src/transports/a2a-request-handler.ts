import { randomUUID } from 'node:crypto';
import type {
  AgentCard as SdkAgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { AppError, toAppError } from '../errors/app-error';
import { callerKey, invoke, runScoped, type InvokeDeps } from '../registry/invoke';
import type { AnyMethod } from '../registry/method';
import type { CallInfo, Principal } from '../registry/context';
import type { OrderView } from '../domain/orders/order-service';
import type { OrderState } from '../domain/orders/order-rules';
import type { PushTarget } from '../domain/task-push/task-push-store';
import { checkTargetUrl, OutboundRefused } from '../outbound/guarded-post';
import { agentCardOf, extendedAgentCardOf } from '../documents/agent-card';
import type { A2aSdk } from '../a2a-tasks/sdk';
import {
  TASK_SKILL,
  TASK_STATE,
  agentMessage,
  changeEvents,
  dataPart,
  isResting,
  isTerminal,
  taskOf,
  taskStateOf,
  textPart,
  versionOf,
} from '../a2a-tasks/task-view';
import { StreamSlots } from '../registry/open-stream';
import { isPlainObject, prepareCall } from './rpc-call';

/** What the HTTP glue (./a2a.ts) puts in each call's ServerCallContext.state. */
export const STATE = { call: 'svc.call', failure: 'svc.failure', wire: 'svc.wire', signal: 'svc.signal' } as const;

/** A call's services, as runScoped gives them: a replay run's key reaches its run's (orders, events, task contexts). */
interface Scope {
  deps: InvokeDeps;
  call: CallInfo;
}

/** A stream re-reads its order this often even without a wake (a lost notification costs at most this). */
const RECHECK_MS = 30_000;

export interface A2aHandlerDeps extends InvokeDeps {
  skills: ReadonlyMap<string, AnyMethod>;
  sdk: A2aSdk;
  /** The text a message without a skill call gets back, at the caller's address. */
  helpText: (origin: string) => string;
}

/**
 * A2A v1.0 served by the SDK's transport handlers (JSON-RPC v1.0 and, through its compat layer, v0.3) on this
 * request handler. A message whose data part is {skill, input} runs that registry method through the invoke
 * pipeline; a `place_order` whose order rests becomes a task (task id = order id) in `working` until the order is
 * filled, cancelled or expired, and every other skill answers with a message at once. Task state is the order's,
 * read from the database, so any process answers GetTask, ListTasks, CancelTask and SubscribeToTask; streams follow
 * the account event log (EventFeed wakes, EventLog reads). Errors of the service keep their JSON-RPC code and data:
 * they are recorded in the call's state and the glue answers them as every JSON-RPC call does.
 */
export class ServiceA2aHandler implements A2ARequestHandler {
  /** Streams open in this process, per account (each holds a connection and a feed subscription). */
  private readonly streamSlots = new StreamSlots();

  constructor(private readonly deps: A2aHandlerDeps) {}

  /** The public card (the SDK's v0.3 handler reads its capabilities); at the configured address, which capabilities do not depend on. */
  async getAgentCard(): Promise<SdkAgentCard> {
    const { config } = this.deps.services;
    return this.deps.sdk.core.AgentCard.fromJSON(agentCardOf(this.deps.services, config.BASE_URL ?? `http://localhost:${config.PORT}`));
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest, ctx: ServerCallContext): Promise<SdkAgentCard> {
    return this.guard(ctx, async () => {
      const principal = await this.principal(ctx);
      const call = callOf(ctx);
      return this.deps.sdk.core.AgentCard.fromJSON(extendedAgentCardOf(this.deps.services, call.address.origin, principal));
    });
  }

  async sendMessage(params: SendMessageRequest, ctx: ServerCallContext): Promise<Message | Task> {
    return this.guard(ctx, async () => {
      const message = params.message;
      if (!message) throw new RequestMalformedError('params.message is required.');
      if (!message.messageId) throw new RequestMalformedError('message.messageId is required.');
      if (!message.parts.length) throw new RequestMalformedError('message.parts must be a non-empty array.');
      const call = callOf(ctx);
      if (message.taskId) {
        // A task here is an order: it takes no follow-up message. Say which, without revealing another account's order.
        const order = await this.orderOrNull(ctx, message.taskId);
        if (!order) throw new TaskNotFoundError(`Task not found: ${message.taskId}.`);
        throw new UnsupportedOperationError(`Task ${message.taskId} is an order: it takes no further messages. Read it with GetTask, end it with CancelTask.`);
      }
      const contextId = message.contextId || randomUUID();
      const push = params.configuration?.taskPushNotificationConfig;
      // Refused before the skill runs: a refused push config places no order.
      if (push?.url) await this.refusePushInRun(ctx);
      const skillCall = skillCallOf(message.parts);
      if (!skillCall) return agentMessage(contextId, [textPart(this.deps.helpText(call.address.origin))], { messageId: randomUUID() });

      const method = this.deps.skills.get(skillCall.skill);
      if (!method) {
        throw new AppError('VALIDATION_ERROR', `Unknown skill "${skillCall.skill}".`, {
          hint: `Skills: ${[...this.deps.skills.keys()].join(', ')}. Their inputs are on the agent card.`,
        });
      }
      const base = { ...call, transport: 'a2a' as const };
      const { input, call: runAs } = isPlainObject(skillCall.input) ? prepareCall(skillCall.input, base) : { input: skillCall.input, call: base };
      const result = await invoke(this.deps, method, input, runAs);
      const order = method.name === TASK_SKILL ? (result as { order: OrderView }).order : undefined;
      if (order && isResting(order)) {
        const principal = await this.principal(ctx);
        const { services, clock } = (await this.scope(ctx)).deps;
        await services.taskPush.rememberContext(principal.userId, order.id, contextId, clock.now());
        if (push?.url) await this.saveTarget(ctx, principal, { ...push, taskId: order.id });
        // Read again: a fill between placement and now shows in the task.
        const contexts = await services.taskPush.contextsOf(principal.userId, [order.id]);
        return taskOf(await services.orders.get(principal.userId, order.id), contexts.get(order.id) ?? contextId);
      }
      return agentMessage(contextId, [dataPart(result)], { messageId: randomUUID(), metadata: { skill: method.name } });
    });
  }

  async *sendMessageStream(params: SendMessageRequest, ctx: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    // The slot is taken before the message runs: a refused stream places no order.
    const release = await this.openStream(ctx, false);
    try {
      const first = await this.sendMessage(params, ctx);
      if ('messageId' in first) {
        yield { payload: { $case: 'message', value: first } };
        return;
      }
      yield* this.follow(ctx, first.id, true);
    } finally {
      release();
    }
  }

  async *resubscribe(params: SubscribeToTaskRequest, ctx: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const release = await this.openStream(ctx, true);
    try {
      yield* this.follow(ctx, params.id, false);
    } finally {
      release();
    }
  }

  /**
   * Takes one of the caller's A2A stream slots (EVENT_STREAMS_PER_ACCOUNT in this process, counted apart from the event
   * streams); all taken → RATE_LIMITED. A keyless SendStreamingMessage (a public skill, answered by one message) takes
   * none. Returns the release.
   */
  private async openStream(ctx: ServerCallContext, needsKey: boolean): Promise<() => void> {
    return this.guard(ctx, async () => {
      const creds = callOf(ctx).credentials;
      if (!needsKey && creds.bearer === undefined && creds.sessionToken === undefined) return () => {};
      const principal = await this.principal(ctx);
      const { deps, call } = await this.scope(ctx);
      const max = this.deps.services.config.EVENT_STREAMS_PER_ACCOUNT;
      // A run's streams count under the run (callerKey), as its event streams do.
      const release = this.streamSlots.take(`a2a:${callerKey(deps, principal, call)}`, max);
      if (!release) {
        throw new AppError('RATE_LIMITED', `${max} A2A streams are already open for this account; close one first.`, {
          hint: 'SendStreamingMessage and SubscribeToTask hold a stream each: close one you no longer read, or follow tasks with a push notification config or GetTask.',
          headers: { 'Retry-After': '5' },
        });
      }
      return release;
    });
  }

  async getTask(params: GetTaskRequest, ctx: ServerCallContext): Promise<Task> {
    return this.guard(ctx, async () => {
      const order = await this.requireOrder(ctx, params.id);
      return this.toTask(ctx, order);
    });
  }

  async listTasks(params: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse> {
    return this.guard(ctx, async () => {
      // UNSPECIFIED (0) and UNRECOGNIZED (-1, what @a2a-js/sdk sends for listTasks({})) filter nothing; a state no order
      // can be in (SUBMITTED, FAILED, INPUT_REQUIRED...) has no tasks.
      const filtered = params.status !== undefined && params.status > 0;
      const states = filtered ? ORDER_STATES_OF_TASK_STATE[params.status] : undefined;
      if (filtered && !states) return { tasks: [], nextPageToken: '', pageSize: params.pageSize ?? 50, totalSize: 0 };
      const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
      // list_orders filters by one state and a task state spans several: its pipeline (key, rate limit), then the domain list.
      const principal = await this.principal(ctx);
      const { deps, call } = await this.scope(ctx);
      const { services } = deps;
      const listOrders = services.registry.get('list_orders');
      if (!listOrders) throw new Error('registry method list_orders is missing');
      await services.limiter.consume(listOrders.limit, callerKey(deps, principal, call), call.ip);
      const page = await services.orders.list(principal.userId, {
        limit: pageSize,
        ...(states ? { states } : {}),
        ...(params.pageToken ? { cursor: params.pageToken } : {}),
      });
      const contexts = await services.taskPush.contextsOf(
        principal.userId,
        page.orders.map((o) => o.id),
      );
      const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : NaN;
      const tasks = page.orders
        .map((o) => taskOf(o, contexts.get(o.id) ?? o.id))
        .filter((t) => !params.contextId || t.contextId === params.contextId)
        .filter((t) => Number.isNaN(after) || Date.parse(t.status!.timestamp!) > after)
        .map((t) => (params.includeArtifacts ? t : { ...t, artifacts: [] }));
      return {
        tasks,
        nextPageToken: page.nextCursor ?? '',
        pageSize,
        totalSize: await services.taskPush.countTasks(principal.userId, states),
      };
    });
  }

  async cancelTask(params: CancelTaskRequest, ctx: ServerCallContext): Promise<Task> {
    return this.guard(ctx, async () => {
      if (!params.id) throw new RequestMalformedError('id is required: the task id (= order id).');
      try {
        const { order } = (await this.run(ctx, 'cancel_order', { id: params.id })) as { order: OrderView };
        return this.toTask(ctx, order);
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') throw new TaskNotFoundError(`Task not found: ${params.id}.`);
        if (err instanceof AppError && err.code === 'CONFLICT') throw new TaskNotCancelableError(`Task ${params.id} is no longer working: ${err.message}`);
        throw err;
      }
    });
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig, ctx: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.guard(ctx, async () => {
      await this.refusePushInRun(ctx);
      const principal = await this.principal(ctx);
      await this.requireOrder(ctx, params.taskId);
      return configOf(await this.saveTarget(ctx, principal, params));
    });
  }

  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest, ctx: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.guard(ctx, async () => {
      const principal = await this.principal(ctx);
      await this.requireOrder(ctx, params.taskId);
      const target = (await (await this.scope(ctx)).deps.services.taskPush.targets(principal.userId, params.taskId)).find((t) => t.id === params.id);
      if (!target) throw new TaskNotFoundError(`Push notification config ${params.id} not found for task ${params.taskId}.`);
      return configOf(target);
    });
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.guard(ctx, async () => {
      const principal = await this.principal(ctx);
      await this.requireOrder(ctx, params.taskId);
      const { services } = (await this.scope(ctx)).deps;
      return { configs: (await services.taskPush.targets(principal.userId, params.taskId)).map(configOf), nextPageToken: '' };
    });
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, ctx: ServerCallContext): Promise<void> {
    return this.guard(ctx, async () => {
      const principal = await this.principal(ctx);
      await this.requireOrder(ctx, params.taskId);
      await (await this.scope(ctx)).deps.services.taskPush.deleteTarget(principal.userId, params.taskId, params.id);
    });
  }

  /**
   * The task's stream: its current state, then an artifact and a status update at each change of the order, until
   * it ends or the caller leaves. Subscribes before reading, and reads the log from the seq current at subscription,
   * so no change between the read and the first wake is missed; a repeated or stale wake re-reads an unchanged order
   * and sends nothing.
   */
  private async *follow(ctx: ServerCallContext, taskId: string, fromSend: boolean): AsyncGenerator<StreamResponse, void, undefined> {
    const { services } = (await this.scope(ctx)).deps;
    // A replay run's feed listens from its first stream on; before the log is read, so no commit slips between.
    await services.eventFeed.ready();
    const signal = ctx.state.get(STATE.signal) as AbortSignal | undefined;
    let principal: Principal;
    let order: OrderView;
    let pending = true;
    let wakeUp: (() => void) | undefined;
    let unsubscribe: (() => void) | undefined;
    try {
      ({ principal, order } = await this.guard(ctx, async () => {
        const p = await this.principal(ctx);
        unsubscribe = services.eventFeed.subscribe(p.userId, () => {
          pending = true;
          wakeUp?.();
        });
        return { principal: p, order: await this.requireOrder(ctx, taskId) };
      }));
    } catch (err) {
      unsubscribe?.();
      throw err;
    }
    try {
      if (!fromSend && isTerminal(taskStateOf(order))) {
        throw new UnsupportedOperationError(`Task ${taskId} has ended (${order.state}): read it with GetTask.`);
      }
      let seq = await services.events.latest(principal.userId);
      order = await services.orders.get(principal.userId, taskId);
      const contextId = (await services.taskPush.contextsOf(principal.userId, [taskId])).get(taskId) ?? taskId;
      yield { payload: { $case: 'task', value: taskOf(order, contextId) } };
      let version = versionOf(order);
      const onAbort = () => wakeUp?.();
      signal?.addEventListener('abort', onAbort);
      let timedOut = false;
      try {
        while (!isTerminal(taskStateOf(order)) && !signal?.aborted) {
          pending = false;
          const events = await services.events.after(principal.userId, seq, 500);
          if (events.length) seq = BigInt(events[events.length - 1]!.seq);
          // Without a wake for a while the order is re-read anyway: a change that logged no event still shows.
          if (timedOut || events.some((e) => e.type.startsWith('order.') && e.data.id === taskId)) {
            const now = await services.orders.get(principal.userId, taskId);
            if (versionOf(now) !== version) {
              order = now;
              version = versionOf(now);
              for (const ev of changeEvents(order, contextId)) yield ev;
              timedOut = false;
              continue;
            }
          }
          timedOut = false;
          // More to read, or a wake came while reading: read again at once; else wait for a wake or the re-check.
          if (events.length === 500 || pending) continue;
          timedOut = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), RECHECK_MS);
            wakeUp = () => {
              clearTimeout(timer);
              resolve(false);
            };
            if (pending || signal?.aborted) wakeUp();
          });
          wakeUp = undefined;
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    } finally {
      unsubscribe?.();
    }
  }

  private async saveTarget(
    ctx: ServerCallContext,
    principal: Principal,
    p: Pick<TaskPushNotificationConfig, 'id' | 'taskId' | 'url' | 'token' | 'authentication'>,
  ): Promise<PushTarget> {
    const { config } = this.deps.services;
    if (!p.url) throw new RequestMalformedError('url is required: where the task updates are POSTed.');
    try {
      await checkTargetUrl(p.url, { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
    } catch (err) {
      if (!(err instanceof OutboundRefused)) throw err;
      throw new AppError('VALIDATION_ERROR', `The push notification url is refused: ${err.message}`, {
        hint: 'Use a public http(s) URL without credentials in it; loopback, private and link-local addresses are refused.',
      });
    }
    if ((p.token?.length ?? 0) > 1000 || (p.authentication?.credentials.length ?? 0) > 4000 || p.url.length > 2000 || (p.id?.length ?? 0) > 200) {
      throw new AppError('VALIDATION_ERROR', 'The push notification config is too large (url ≤ 2000, token ≤ 1000, credentials ≤ 4000, id ≤ 200 characters).');
    }
    const { services, clock } = (await this.scope(ctx)).deps;
    return services.taskPush.saveTarget(
      principal.userId,
      {
        taskId: p.taskId,
        id: p.id || randomUUID(),
        url: p.url,
        token: p.token || null,
        authScheme: p.authentication?.scheme || null,
        authCredentials: p.authentication?.credentials || null,
        wireVersion: (ctx.state.get(STATE.wire) as string | undefined) ?? '1.0',
      },
      clock.now(),
    );
  }

  private async toTask(ctx: ServerCallContext, order: OrderView): Promise<Task> {
    const principal = await this.principal(ctx);
    const contexts = await (await this.scope(ctx)).deps.services.taskPush.contextsOf(principal.userId, [order.id]);
    return taskOf(order, contexts.get(order.id) ?? order.id);
  }

  /** The caller's order `id` through get_order (auth, rate limit); not theirs or not an order → TaskNotFound. */
  private async requireOrder(ctx: ServerCallContext, id: string): Promise<OrderView> {
    if (!id) throw new RequestMalformedError('The task id (= order id) is required.');
    try {
      return ((await this.run(ctx, 'get_order', { id })) as { order: OrderView }).order;
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw new TaskNotFoundError(`Task not found: ${id}.`);
      throw err;
    }
  }

  private async orderOrNull(ctx: ServerCallContext, id: string): Promise<OrderView | null> {
    try {
      return await this.requireOrder(ctx, id);
    } catch (err) {
      if (err instanceof TaskNotFoundError) return null;
      throw err;
    }
  }

  private run(ctx: ServerCallContext, name: string, input: Record<string, unknown>): Promise<unknown> {
    const method = this.deps.services.registry.get(name);
    if (!method) throw new Error(`registry method ${name} is missing`);
    return invoke(this.deps, method, input, { ...callOf(ctx), transport: 'a2a' });
  }

  /** The caller, who must carry a key or token (the task methods are the account's). */
  private async principal(ctx: ServerCallContext): Promise<Principal> {
    const cached = ctx.state.get('svc.principal') as Principal | undefined;
    if (cached) return cached;
    const { deps, call } = await this.scope(ctx);
    const principal = await deps.services.authenticator.authenticate('key', call);
    if (!principal) throw new AppError('UNAUTHORIZED', 'This A2A method needs an API key or access token.');
    ctx.state.set('svc.principal', principal);
    return principal;
  }

  /**
   * The services a call reaches: a replay run's key the run's (runScoped, as invoke does), every other key the live ones.
   * Only reads go through here; writes are skills, and invoke refuses them in an ended run.
   */
  private async scope(ctx: ServerCallContext): Promise<Scope> {
    const cached = ctx.state.get('svc.scope') as Scope | undefined;
    if (cached) return cached;
    const scope = await runScoped(this.deps, callOf(ctx), true);
    ctx.state.set('svc.scope', scope);
    return scope;
  }

  /**
   * A replay run sends no push notifications: its orders change on its own clock, and a POST to the outside world would
   * carry simulated times on the wall clock's network. Its tasks are followed with SubscribeToTask or GetTask.
   */
  private async refusePushInRun(ctx: ServerCallContext): Promise<void> {
    if (!(await this.scope(ctx)).deps.run) return;
    throw new AppError('FORBIDDEN', 'A replay run sends no push notifications: follow its tasks with SubscribeToTask (or SendStreamingMessage) or GetTask.', {
      hint: 'Drop the push notification config from calls made with the run’s key; push notifications are for live tasks.',
    });
  }

  /** Runs `work`; an error of the service (not an A2A error) is recorded for the glue, which answers it. */
  private async guard<T>(ctx: ServerCallContext, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isA2aError(err)) ctx.state.set(STATE.failure, toAppError(err));
      throw err;
    }
  }
}

/** The order states a task state stands for (as taskStateOf maps them). */
const ORDER_STATES_OF_TASK_STATE: Record<number, readonly OrderState[] | undefined> = {
  [TASK_STATE.WORKING]: ['open', 'partially_filled'],
  [TASK_STATE.COMPLETED]: ['filled'],
  [TASK_STATE.CANCELED]: ['cancelled', 'expired'],
  [TASK_STATE.REJECTED]: ['rejected'],
};

const isA2aError = (err: unknown): boolean =>
  err instanceof TaskNotFoundError || err instanceof UnsupportedOperationError || err instanceof RequestMalformedError || err instanceof TaskNotCancelableError;

export function callOf(ctx: ServerCallContext): CallInfo {
  const call = ctx.state.get(STATE.call) as CallInfo | undefined;
  if (!call) throw new Error('A2A call without its CallInfo');
  return call;
}

function configOf(t: PushTarget): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: t.id,
    taskId: t.taskId,
    url: t.url,
    token: t.token ?? '',
    authentication: t.authScheme ? { scheme: t.authScheme, credentials: t.authCredentials ?? '' } : undefined,
  };
}

/** The one {skill, input} data part of a message; null when it has no data part (a question in text). */
function skillCallOf(parts: Part[]): { skill: string; input: unknown } | null {
  const data = parts.filter((p) => p.content?.$case === 'data').map((p) => p.content!.value as unknown);
  if (data.length === 0) return null;
  const calls = data.filter((d): d is Record<string, unknown> => isPlainObject(d) && 'skill' in d);
  if (calls.length === 0) throw new RequestMalformedError('A data part must be {"skill": "<skill id>", "input": {...}}.');
  if (calls.length > 1) throw new RequestMalformedError('One skill per message: send several messages, or a JSON-RPC batch of skill calls.');
  const call = calls[0]!;
  if (typeof call.skill !== 'string') throw new RequestMalformedError('skill must be a string: the id of a skill on the agent card.');
  return { skill: call.skill, input: call.input ?? {} };
}
