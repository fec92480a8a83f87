import type { Artifact, Message, Part, StreamResponse, Task, TaskState, Role } from '@a2a-js/sdk';
import type { OrderView } from '../domain/orders/order-service';

/**
 * An order seen as an A2A task: task id = order id. A resting order (open, partially filled) is a task in `working`;
 * it ends `completed` when filled, `canceled` when cancelled or expired, `rejected` when rejected (FOK). The order
 * itself (what get_order answers) is the task's one artifact, replaced whole at each change.
 */

// The protocol's enum numbers (a2a.proto); the SDK's enum objects live in its ESM bundle.
export const TASK_STATE = { WORKING: 2 as TaskState, COMPLETED: 3 as TaskState, CANCELED: 5 as TaskState, REJECTED: 7 as TaskState } as const;
export const ROLE_AGENT = 2 as Role;
export const ORDER_ARTIFACT_ID = 'order';
/** The skill whose result can outlive the request. */
export const TASK_SKILL = 'place_order';

const TERMINAL = new Set<TaskState>([TASK_STATE.COMPLETED, TASK_STATE.CANCELED, TASK_STATE.REJECTED]);

export function taskStateOf(order: Pick<OrderView, 'state'>): TaskState {
  switch (order.state) {
    case 'open':
    case 'partially_filled':
      return TASK_STATE.WORKING;
    case 'filled':
      return TASK_STATE.COMPLETED;
    case 'rejected':
      return TASK_STATE.REJECTED;
    default:
      return TASK_STATE.CANCELED;
  }
}

export const isTerminal = (state: TaskState): boolean => TERMINAL.has(state);
export const isResting = (order: Pick<OrderView, 'state'>): boolean => taskStateOf(order) === TASK_STATE.WORKING;

export const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
export const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

export function agentMessage(contextId: string, parts: Part[], opts: { messageId: string; taskId?: string; metadata?: Record<string, unknown> }): Message {
  return {
    messageId: opts.messageId,
    contextId,
    taskId: opts.taskId ?? '',
    role: ROLE_AGENT,
    parts,
    metadata: opts.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** One sentence on where the order stands, for the status message a person or an LLM reads. */
export function orderSummary(o: OrderView): string {
  const what = `${o.side} ${o.amount !== null ? `$${o.amount}` : `${o.shares} shares`} of ${o.outcome} at limit ${o.limitPrice}`;
  switch (o.state) {
    case 'open':
      return `Order resting: ${what}; it fills when the price reaches the limit (CancelTask cancels it).`;
    case 'partially_filled':
      return `Order partly filled: ${what}; ${o.filledShares} shares at ${o.avgFillPrice} so far.`;
    case 'filled':
      return `Order filled: ${what}; ${o.filledShares} shares for $${o.filledCash} (average ${o.avgFillPrice}).`;
    default:
      return `Order ${o.state}: ${what}${o.reason ? ` (${o.reason})` : ''}.`;
  }
}

function statusOf(o: OrderView, contextId: string) {
  return {
    state: taskStateOf(o),
    message: agentMessage(contextId, [textPart(orderSummary(o))], { messageId: `${o.id}@${o.updatedAt}`, taskId: o.id }),
    timestamp: o.updatedAt,
  };
}

export function orderArtifact(o: OrderView): Artifact {
  return {
    artifactId: ORDER_ARTIFACT_ID,
    name: 'order',
    description: 'The order, as get_order answers it.',
    parts: [dataPart({ order: o })],
    metadata: undefined,
    extensions: [],
  };
}

export function taskOf(o: OrderView, contextId: string): Task {
  return {
    id: o.id,
    contextId,
    status: statusOf(o, contextId),
    artifacts: [orderArtifact(o)],
    history: [],
    metadata: { skill: TASK_SKILL, orderState: o.state },
  };
}

/** The stream events of one change of the order: its artifact replaced, then its status (terminal last). */
export function changeEvents(o: OrderView, contextId: string): StreamResponse[] {
  return [
    {
      payload: {
        $case: 'artifactUpdate',
        value: { taskId: o.id, contextId, artifact: orderArtifact(o), append: false, lastChunk: true, metadata: undefined },
      },
    },
    { payload: { $case: 'statusUpdate', value: { taskId: o.id, contextId, status: statusOf(o, contextId), metadata: { orderState: o.state } } } },
  ];
}

/** What distinguishes one state of an order from the next (a repeated wake re-reads an unchanged order). */
export const versionOf = (o: OrderView): string => `${o.state}|${o.filledSize}|${o.updatedAt}`;
