import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { buildRegistry } from '../../src/methods';
import { buildMcpTools } from '../../src/transports/mcp-tools';
import { mcpServerFactory } from '../../src/transports/mcp-server';
import { fastCallBody, fastToolCall } from '../../src/transports/mcp-fast-call';
import type { CallInfo } from '../../src/registry/context';
import type { ToolOutcome } from '../../src/transports/mcp-tools';

const ACCEPT = 'application/json, text/event-stream';
const tools = buildMcpTools(buildRegistry());
const call = (id: unknown = 7, params: unknown = { name: 'get_balance', arguments: {} }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
const HEADERS: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json' };
const headers =
  (extra: Record<string, string | undefined> = {}) =>
  (name: string) =>
    ({ ...HEADERS, ...extra })[name];

describe('the MCP fast path for a 2025-era tools/call', () => {
  test('a single tools/call of a known tool with the headers the SDK accepts is taken, with its id, tool and arguments', () => {
    expect(fastToolCall(call(), headers(), tools)).toEqual({ id: 7, name: 'get_balance', args: {} });
    expect(fastToolCall(call('a', { name: 'get_balance' }), headers({ 'mcp-protocol-version': '2025-06-18' }), tools)).toEqual({
      id: 'a',
      name: 'get_balance',
      args: undefined,
    });
    expect(fastToolCall(call(1, { name: 'get_balance', arguments: {} }), headers({ 'content-type': 'application/json; charset=utf-8' }), tools)).toBeDefined();
  });

  test.each([
    ['a batch', [call()], headers()],
    ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, headers()],
    ['tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers()],
    ['a notification (no id)', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'get_balance' } }, headers()],
    ['a null id', call(null), headers()],
    ['a fractional id', call(1.5), headers()],
    ['jsonrpc 1.0', { ...call(), jsonrpc: '1.0' }, headers()],
    ['a key beside the message', { ...call(), extra: 1 }, headers()],
    ['an unknown tool', call(1, { name: 'no_such_tool' }), headers()],
    ['arguments as an array', call(1, { name: 'get_balance', arguments: [] }), headers()],
    ['a _meta (an envelope or not)', call(1, { name: 'get_balance', _meta: {} }), headers()],
    ['params as an array', call(1, []), headers()],
    ['no event-stream in Accept', call(), headers({ accept: 'application/json' })],
    ['a text body', call(), headers({ 'content-type': 'text/plain' })],
    ['the 2026-07-28 revision', call(), headers({ 'mcp-protocol-version': '2026-07-28' })],
    ['an unknown revision', call(), headers({ 'mcp-protocol-version': '1999-01-01' })],
    ['the 2026 Mcp-Method header', call(), headers({ 'mcp-method': 'tools/call' })],
    ['a session id', call(), headers({ 'mcp-session-id': 'abc' })],
  ])('%s goes to the SDK, which answers every protocol question', (_what, body, header) => {
    expect(fastToolCall(body, header, tools)).toBeUndefined();
  });

  test.each([
    ['a result', { structuredContent: { balance: 1000, reserved: 0, available: 1000 }, content: [{ type: 'text', text: '{"balance":1000}' }] }],
    ['an error result', { isError: true, structuredContent: { error: 'No.', code: 'NOT_FOUND' }, content: [{ type: 'text', text: '{"error":"No."}' }] }],
  ] as Array<[string, ToolOutcome['result']]>)('its answer to %s is the SDK’s own, byte for byte, with the same content type', async (_what, result) => {
    for (const id of [7, 'req-1']) {
      const serverFor = mcpServerFactory(async () => ({ result }), 'instructions');
      const server = serverFor({ call: { address: { origin: 'http://127.0.0.1' } } as CallInfo, tools });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      const request = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(call(id)) });
      const sdk = await transport.handleRequest(request);
      await server.close();
      expect(sdk.status).toBe(200);
      expect(sdk.headers.get('content-type')).toBe('application/json');
      expect(fastCallBody(id, result)).toBe(await sdk.text());
    }
  });
});

describe.each(backends())('the MCP fast path over HTTP on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true });
  });
  afterAll(async () => t.close());

  const post = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers: { ...HEADERS, ...extra }, body: JSON.stringify(body) });

  test('a keyed tool answers as through the SDK (an empty _meta sends the same call there), and refuses a missing key the same way', async () => {
    const a = await registerAgent(t, 'FastPath');
    const auth = { authorization: `Bearer ${a.apiKey}` };
    const fast = await post(call(3), auth);
    const sdk = await post(call(3, { name: 'get_balance', arguments: {}, _meta: {} }), auth);
    expect(fast.status).toBe(200);
    expect(fast.headers.get('content-type')).toBe(sdk.headers.get('content-type'));
    expect(await fast.json()).toEqual(await sdk.json());

    const [fastRefused, sdkRefused] = [await post(call(4)), await post(call(4, { name: 'get_balance', arguments: {}, _meta: {} }))];
    expect(fastRefused.status).toBe(401);
    expect(fastRefused.headers.get('www-authenticate')).toBe(sdkRefused.headers.get('www-authenticate'));
    expect(fastRefused.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(await fastRefused.json()).toEqual(await sdkRefused.json());
  });

  test('a refused call (bad arguments) is an isError result the SDK path gives too', async () => {
    const a = await registerAgent(t, 'FastPathErr');
    const auth = { authorization: `Bearer ${a.apiKey}` };
    const args = { marketId: 'no-such-market', marketSlug: 'x', tokenId: 'y', outcome: 'YES', amount: 5, stray: 1 };
    const fast = (await (await post(call(5, { name: 'paper_trade', arguments: args }), auth)).json()) as {
      result: { isError: boolean; structuredContent: { code: string } };
    };
    const sdk = (await (await post(call(5, { name: 'paper_trade', arguments: args, _meta: {} }), auth)).json()) as typeof fast;
    expect(fast.result.isError).toBe(true);
    expect(fast.result.structuredContent.code).toBe('VALIDATION_ERROR');
    const { requestId: _a, ...fastBody } = fast.result.structuredContent as Record<string, unknown>;
    const { requestId: _b, ...sdkBody } = sdk.result.structuredContent as Record<string, unknown>;
    expect(fastBody).toEqual(sdkBody);
  });
});
