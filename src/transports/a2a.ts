import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error';
import { invoke, type InvokeDeps } from '../registry/invoke';
import type { AnyMethod } from '../registry/method';
import { A2A_PATH, AGENT_CARD_PATHS, accessOf } from '../documents/agent-card';
import { SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice } from '../documents/service-info';
import { RpcError, isPlainObject, prepareCall, type RpcCallContext } from './rpc-call';
import { perOrigin } from './public-origin';

/**
 * A2A proper on the JSON-RPC endpoint. Standard A2A clients only call A2A's own methods, so a message whose
 * data part is {skill, input} runs that registry method through the same invoke pipeline as every transport,
 * and the answer is an agent Message holding the result in a data part. Nothing here is long-running, so
 * no Task is ever created: task methods answer A2A's own "task not found" / "not supported" errors.
 * v1.0 (SendMessage, ProtoJSON parts `{data}` / `{text}`, role ROLE_AGENT, result wrapped as {message}) and
 * v0.3 (message/send, parts `{kind: 'data'}`, role agent, the Message itself as result) are both served.
 */
export type RpcHandler = (params: Record<string, unknown> | undefined, ctx: RpcCallContext) => Promise<unknown>;

/** A2A's own JSON-RPC error codes (the same numbers in v1.0 and v0.3). */
export const A2A_ERROR = {
  TASK_NOT_FOUND: -32001,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
} as const;

type Wire = '1.0' | '0.3';
type Part = Record<string, unknown>;

const HOW_TO = 'Send {"message": {"messageId": "<uuid>", "role": "ROLE_USER", "parts": [{"data": {"skill": "<skill id>", "input": {...}}}]}}.';

export function a2aHandlers(deps: InvokeDeps, skills: ReadonlyMap<string, AnyMethod>): Map<string, RpcHandler> {
  // The texts name the agent card at the address the caller reached.
  const texts = perOrigin((origin) => {
    const cardUrl = `${origin}${AGENT_CARD_PATHS[0]}`;
    return { cardUrl, help: helpText(deps, [...skills.values()], origin), hint: { hint: `${HOW_TO} Skills and their inputs: ${cardUrl}`, docs: cardUrl } };
  });

  const send =
    (wire: Wire): RpcHandler =>
    async (params, ctx) => {
      const { cardUrl, help, hint } = texts(ctx.call.address.origin);
      const message = readMessage(params, hint);
      // No task is ever created, so a message continuing one refers to a task that does not exist.
      if (typeof message.taskId === 'string' && message.taskId) throw taskNotFound(message.taskId, hint);
      const contextId = typeof message.contextId === 'string' && message.contextId ? message.contextId : randomUUID();
      const skillCall = skillCallOf(message.parts as unknown[], hint);
      if (!skillCall) return reply(wire, contextId, [textPart(wire, help)]);

      const method = skills.get(skillCall.skill);
      if (!method) {
        throw new AppError('VALIDATION_ERROR', `Unknown skill "${skillCall.skill}".`, {
          hint: `Skills: ${[...skills.keys()].join(', ')}. Their inputs are on the agent card: ${cardUrl}`,
          docs: cardUrl,
        });
      }
      const base = { ...ctx.call, transport: 'a2a' as const };
      const { input, call } = isPlainObject(skillCall.input) ? prepareCall(skillCall.input, base) : { input: skillCall.input, call: base };
      const result = await invoke(deps, method, input, call);
      return reply(wire, contextId, [dataPart(wire, result)], { skill: method.name });
    };

  const noTask: RpcHandler = async (params, ctx) => {
    throw taskNotFound(typeof params?.id === 'string' ? params.id : '', texts(ctx.call.address.origin).hint);
  };
  const noStreaming: RpcHandler = async (_params, ctx) => {
    throw new RpcError(
      A2A_ERROR.UNSUPPORTED_OPERATION,
      'Streaming is not supported: send SendMessage (v0.3: message/send); every answer is immediate.',
      texts(ctx.call.address.origin).hint,
    );
  };
  const noPush: RpcHandler = async (_params, ctx) => {
    throw new RpcError(
      A2A_ERROR.PUSH_NOTIFICATION_NOT_SUPPORTED,
      'Push notifications are not supported: every answer is immediate and no task is ever created.',
      texts(ctx.call.address.origin).hint,
    );
  };
  const noExtendedCard: RpcHandler = async (_params, ctx) => {
    const { cardUrl, hint } = texts(ctx.call.address.origin);
    throw new RpcError(A2A_ERROR.UNSUPPORTED_OPERATION, `There is no extended agent card: the public card is complete (${cardUrl}).`, hint);
  };

  return new Map<string, RpcHandler>([
    ['SendMessage', send('1.0')],
    ['message/send', send('0.3')],
    ['GetTask', noTask],
    ['tasks/get', noTask],
    ['CancelTask', noTask],
    ['tasks/cancel', noTask],
    // Nothing runs long enough to become a task, so the caller has none.
    ['ListTasks', async () => ({ tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 })],
    ['SendStreamingMessage', noStreaming],
    ['message/stream', noStreaming],
    ['SubscribeToTask', noStreaming],
    ['tasks/resubscribe', noStreaming],
    ['CreateTaskPushNotificationConfig', noPush],
    ['GetTaskPushNotificationConfig', noPush],
    ['ListTaskPushNotificationConfigs', noPush],
    ['DeleteTaskPushNotificationConfig', noPush],
    ['tasks/pushNotificationConfig/set', noPush],
    ['tasks/pushNotificationConfig/get', noPush],
    ['tasks/pushNotificationConfig/list', noPush],
    ['tasks/pushNotificationConfig/delete', noPush],
    ['GetExtendedAgentCard', noExtendedCard],
    ['agent/getAuthenticatedExtendedCard', noExtendedCard],
  ]);
}

function readMessage(params: Record<string, unknown> | undefined, hint: Record<string, string>): Record<string, unknown> {
  const message = params?.message;
  if (!isPlainObject(message)) throw new RpcError(-32602, 'params.message is required.', hint);
  if (typeof message.messageId !== 'string' || !message.messageId) throw new RpcError(-32602, 'message.messageId is required.', hint);
  if (!Array.isArray(message.parts) || message.parts.length === 0) throw new RpcError(-32602, 'message.parts must be a non-empty array.', hint);
  return message;
}

/** The one {skill, input} data part of a message; null when it has no data part (a question in text). */
function skillCallOf(parts: unknown[], hint: Record<string, string>): { skill: string; input: unknown } | null {
  // v1.0 parts hold the value under its oneof key ({data}); v0.3 parts say {kind: 'data', data}.
  const data = parts.filter((p): p is Part => isPlainObject(p) && 'data' in p && (p.kind === undefined || p.kind === 'data')).map((p) => p.data);
  if (data.length === 0) return null;
  const calls = data.filter((d): d is Record<string, unknown> => isPlainObject(d) && 'skill' in d);
  if (calls.length === 0) throw new RpcError(-32602, 'A data part must be {"skill": "<skill id>", "input": {...}}.', hint);
  if (calls.length > 1) throw new RpcError(-32602, 'One skill per message: send several messages, or a JSON-RPC batch of skill calls.', hint);
  const call = calls[0]!;
  if (typeof call.skill !== 'string') throw new RpcError(-32602, 'skill must be a string: the id of a skill on the agent card.', hint);
  return { skill: call.skill, input: call.input ?? {} };
}

function taskNotFound(id: string, hint: Record<string, string>): RpcError {
  return new RpcError(
    A2A_ERROR.TASK_NOT_FOUND,
    `Task not found${id ? `: ${id}` : ''}. This agent answers every message at once and never creates tasks.`,
    hint,
  );
}

function reply(wire: Wire, contextId: string, parts: Part[], metadata?: Record<string, unknown>): unknown {
  const common = { messageId: randomUUID(), contextId, parts, ...(metadata ? { metadata } : {}) };
  return wire === '1.0' ? { message: { ...common, role: 'ROLE_AGENT' } } : { kind: 'message', ...common, role: 'agent' };
}

const dataPart = (wire: Wire, data: unknown): Part => (wire === '1.0' ? { data, mediaType: 'application/json' } : { kind: 'data', data });
const textPart = (wire: Wire, text: string): Part => (wire === '1.0' ? { text, mediaType: 'text/plain' } : { kind: 'text', text });

/** What a text message gets back: what this is and how to call each skill. Built once per address. */
function helpText(deps: InvokeDeps, skills: AnyMethod[], origin: string): string {
  const { config } = deps.services;
  const lines = skills.map((m) => {
    const example = m.examples?.[0]?.input ?? {};
    const access = accessOf(m);
    const note = access === 'public' ? '' : access === 'key-optional' ? ' [key optional]' : ' [needs key]';
    return `- ${m.name}${note}: ${m.summary}. Example: {"skill": "${m.name}", "input": ${JSON.stringify(example)}}`;
  });
  return [
    `${SERVICE_TITLE}. ${SERVICE_SUMMARY} ${marketDataNotice(config)}`,
    '',
    'To run a skill, send a message with one data part {"skill": "<skill id>", "input": {...}}; the answer is a message whose data part holds the result.',
    'Skills marked [needs key] need the header Authorization: Bearer <API key or OAuth access token>. Get a key with register_account and isAgent true (it is shown once).',
    `The same endpoint (${origin}${A2A_PATH}) also answers plain JSON-RPC 2.0: method = skill id, params = input.`,
    '',
    'Skills:',
    ...lines,
    '',
    `Input schemas and examples: ${origin}${AGENT_CARD_PATHS[0]}`,
  ].join('\n');
}
