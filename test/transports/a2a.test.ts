import { randomUUID } from 'node:crypto';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import type { Message, Part, SendMessageRequest } from '@a2a-js/sdk';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { a2aClient, loadA2aSdk, withKey, type A2aSdk } from '../support/a2a-client';
import { ERROR_TABLE } from '../../src/errors/app-error';
import { onSurface } from '../../src/registry/method';

let Role: A2aSdk['Role'];
beforeAll(async () => {
  Role = (await loadA2aSdk()).Role;
});

const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' });
const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

function request(parts: Part[], contextId = ''): SendMessageRequest {
  return {
    tenant: '',
    message: { messageId: randomUUID(), contextId, taskId: '', role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] },
    configuration: undefined,
    metadata: undefined,
  };
}

describe.each(backends())('A2A on /api/a2a on $name', (backend) => {
  let t: TestApp;
  let agent: { id: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true });
    agent = await registerAgent(t, 'A2aAgent');
  });
  afterAll(async () => t.close());

  const post = (body: unknown, key?: string) => {
    const r = t.api.post('/api/a2a');
    if (key) r.set('Authorization', `Bearer ${key}`);
    return r.send(body as object);
  };
  const v1 = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra } },
  });
  const v03 = (parts: unknown[]) => ({
    jsonrpc: '2.0',
    id: 'legacy',
    method: 'message/send',
    params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts } },
  });

  describe('the official @a2a-js/sdk client (A2A v1.0)', () => {
    test('when it resolves the card from the origin and sends a get_balance data part with the key, then the balance comes back as a data part', async () => {
      const client = await a2aClient(t.baseUrl, agent.apiKey);
      const result = await client.sendMessage(request([dataPart({ skill: 'get_balance', input: {} })], 'ctx-42'));
      expect('messageId' in result).toBe(true);
      const message = result as Message;
      expect(message.role).toBe(Role.ROLE_AGENT);
      expect(message.contextId).toBe('ctx-42');
      expect(message.parts).toHaveLength(1);
      expect(message.parts[0]!.content).toEqual({ $case: 'data', value: { balance: 1000, reserved: 0, available: 1000 } });
      const rest = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${agent.apiKey}`);
      expect(message.parts[0]!.content?.value).toEqual(rest.body);
    });

    test('when it sends a text part, then the answer is text listing every skill and how to call it', async () => {
      const client = await a2aClient(t.baseUrl);
      const result = (await client.sendMessage(request([textPart('What can you do?')]))) as Message;
      expect(result.role).toBe(Role.ROLE_AGENT);
      const content = result.parts[0]!.content;
      expect(content?.$case).toBe('text');
      const text = content?.value as string;
      for (const m of t.services.registry.methods.filter((x) => onSurface(x, 'jsonrpc'))) expect(text).toContain(`- ${m.name}`);
      expect(text).toContain('"skill"');
      expect(text).toContain('Authorization: Bearer');
      expect(text).toMatch(/virtual/);
    });

    test('when it calls a keyed skill without a key, then it gets the UNAUTHORIZED JSON-RPC error with its data', async () => {
      const client = await a2aClient(t.baseUrl);
      const err = await client.sendMessage(request([dataPart({ skill: 'get_balance', input: {} })])).then(
        () => null,
        (e: unknown) => e as { envelopeCode?: number; data?: { code?: string }; message: string },
      );
      expect(err).not.toBeNull();
      expect(err!.envelopeCode).toBe(ERROR_TABLE.UNAUTHORIZED.rpc);
      expect(err!.data?.code).toBe('UNAUTHORIZED');
      expect(err!.message).toMatch(/API key/);
    });

    test('when it asks for a task that is not one of its orders, then it gets A2A TaskNotFoundError', async () => {
      const client = await a2aClient(t.baseUrl, agent.apiKey);
      const err = await client.getTask({ tenant: '', id: 'task-1' }).then(
        () => null,
        (e: unknown) => e as { name: string },
      );
      expect(err?.name).toBe('TaskNotFoundError');
    });
  });

  test('when the SDK v0.3 transport sends a get_balance data part, then the balance comes back as a data part', async () => {
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${t.baseUrl}/api/a2a`, fetchImpl: withKey(agent.apiKey) });
    const result = (await legacy.sendMessage(request([dataPart({ skill: 'get_balance', input: {} })]))) as Message;
    expect(result.role).toBe(Role.ROLE_AGENT);
    expect(result.parts[0]!.content).toEqual({ $case: 'data', value: { balance: 1000, reserved: 0, available: 1000 } });
  });

  test('when a v0.3 message/send is posted by hand, then the result is a v0.3 agent Message with a kind:data part', async () => {
    const res = await post(v03([{ kind: 'data', data: { skill: 'get_balance', input: {} } }]), agent.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 'legacy',
      result: {
        kind: 'message',
        role: 'agent',
        parts: [{ kind: 'data', data: { balance: 1000, reserved: 0, available: 1000 } }],
        metadata: { skill: 'get_balance' },
      },
    });
    expect(typeof res.body.result.messageId).toBe('string');
    expect(typeof res.body.result.contextId).toBe('string');
  });

  test('when a v0.3 text message is posted, then the help comes back as a kind:text part', async () => {
    const res = await post(v03([{ kind: 'text', text: 'hello' }]));
    expect(res.body.result.parts[0].kind).toBe('text');
    expect(res.body.result.parts[0].text).toContain('get_balance');
  });

  test.each([
    ['get_balance', true],
    ['agent.getCard', false],
  ])('when %s is called over REST, JSON-RPC, A2A v1.0 and A2A v0.3, then all four give the same data', async (skill, keyed) => {
    const key = keyed ? agent.apiKey : undefined;
    const method = t.services.registry.get(skill)!;
    const restReq = t.api.get(method.rest!.path);
    if (key) restReq.set('Authorization', `Bearer ${key}`);
    const rest = (await restReq).body;
    const rpc = (await post({ jsonrpc: '2.0', id: 1, method: skill, params: {} }, key)).body.result;
    const a2a1 = (await post(v1([{ data: { skill, input: {} } }]), key)).body.result.message.parts[0].data;
    const a2a03 = (await post(v03([{ kind: 'data', data: { skill, input: {} } }]), key)).body.result.parts[0].data;
    expect(rest).toBeDefined();
    expect(rpc).toEqual(rest);
    expect(a2a1).toEqual(rest);
    expect(a2a03).toEqual(rest);
  });

  test('when a v1.0 SendMessage is posted by hand, then the result wraps an agent Message with a data part', async () => {
    const res = await post(v1([{ data: { skill: 'get_balance', input: {} } }], { contextId: 'mine' }), agent.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.result.message).toMatchObject({
      role: 'ROLE_AGENT',
      contextId: 'mine',
      parts: [{ data: { balance: 1000, reserved: 0, available: 1000 }, mediaType: 'application/json' }],
    });
  });

  test('when a keyed skill is sent without a key, then HTTP 401 with WWW-Authenticate and the UNAUTHORIZED error', async () => {
    const res = await post(v1([{ data: { skill: 'get_balance', input: {} } }]));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(res.body.error).toMatchObject({ code: ERROR_TABLE.UNAUTHORIZED.rpc, data: { code: 'UNAUTHORIZED', httpStatus: 401 } });
  });

  test('when the key is put in the skill input, then the call is refused', async () => {
    const res = await post(v1([{ data: { skill: 'get_balance', input: { apiKey: agent.apiKey } } }]));
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/Authorization header/);
  });

  test('when a skill fails with an application error, then the JSON-RPC error carries its rpc code and {code, hint, docs, httpStatus}', async () => {
    const input = { email: `a2a${Math.random().toString(36).slice(2)}@example.com`, password: 'password123', displayName: 'A2aTwice' };
    expect((await post(v1([{ data: { skill: 'register_account', input } }]))).body.result.message.parts[0].data.success).toBe(true);
    const res = await post(v1([{ data: { skill: 'register_account', input } }]));
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(ERROR_TABLE.EMAIL_TAKEN.rpc);
    expect(res.body.error.data).toMatchObject({ code: 'EMAIL_TAKEN', httpStatus: 400 });
  });

  test('when the skill input is invalid, then -32602 with the zod issues', async () => {
    const res = await post(v1([{ data: { skill: 'register_account', input: { email: 'nope' } } }]));
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.data.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['email', 'password']));
  });

  test('when the skill is unknown, then -32602 naming the skills', async () => {
    const res = await post(v1([{ data: { skill: 'do_magic', input: {} } }]));
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toContain('do_magic');
    expect(res.body.error.data.hint).toContain('get_balance');
  });

  test.each([
    ['no message', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, /params.message/],
    ['no messageId', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } } }, /messageId/],
    ['no parts', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } } }, /parts/],
  ])('when the message has %s, then -32602', async (_label, body, message) => {
    const res = await post(body);
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toMatch(message);
  });

  test('when a data part has no skill, then -32602 showing the expected shape', async () => {
    const res = await post(v1([{ data: { input: {} } }]));
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toContain('"skill"');
  });

  test('when a message holds two skill calls, then -32602 and neither runs', async () => {
    const res = await post(v1([{ data: { skill: 'agent.getCard', input: {} } }, { data: { skill: 'get_balance', input: {} } }]), agent.apiKey);
    expect(res.body.error.code).toBe(-32602);
  });

  test('when a message continues a task that is not one of its orders, then A2A TaskNotFound (-32001)', async () => {
    const res = await post(v1([{ text: 'and then?' }], { taskId: 'task-9' }), agent.apiKey);
    expect(res.body.error.code).toBe(-32001);
    expect(res.body.error.message).toContain('task-9');
  });

  test.each([
    ['GetTask', { id: 't1' }, -32001],
    ['tasks/get', { id: 't1' }, -32001],
    ['CancelTask', { id: 't1' }, -32001],
    ['tasks/cancel', { id: 't1' }, -32001],
    ['SendStreamingMessage', {}, -32602],
    ['message/stream', {}, -32602],
    ['SubscribeToTask', { id: 't1' }, -32001],
    ['tasks/resubscribe', { id: 't1' }, -32001],
    ['CreateTaskPushNotificationConfig', { taskId: 't1', url: 'https://example.com/hook' }, -32001],
    ['tasks/pushNotificationConfig/set', { taskId: 't1', pushNotificationConfig: { url: 'https://example.com/hook' } }, -32001],
  ])('when %s is called with %j and a key, then A2A error %d as the SDK shapes it', async (method, params, code) => {
    const res = await post({ jsonrpc: '2.0', id: 5, method, params }, agent.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(code);
  });

  test.each(['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard'])('when %s is called without a key, then 401 UNAUTHORIZED', async (method) => {
    const res = await post({ jsonrpc: '2.0', id: 5, method, params: {} });
    expect(res.status).toBe(401);
    expect(res.body.error.data.code).toBe('UNAUTHORIZED');
  });

  test('when ListTasks is called by an account without orders, then an empty list', async () => {
    const fresh = await registerAgent(t, 'NoOrders');
    const res = await post({ jsonrpc: '2.0', id: 5, method: 'ListTasks', params: {} }, fresh.apiKey);
    expect(res.body.result).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });
});
