import type { TestApp } from './app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One JSON-RPC call at POST /api/a2a with optional headers (Authorization…); the whole response body. */
export async function rpcCall(t: TestApp, method: string, params: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const res = await t.api.post('/api/a2a').set(headers).send({ jsonrpc: '2.0', id: 1, method, params });
  return res.body as Json;
}

/** One MCP tools/call at POST /mcp (stateless, no initialize); the JSON-RPC message answering it. */
export async function mcpCall(t: TestApp, name: string, args: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const res = await t.api
    .post('/mcp')
    .set('Accept', 'application/json, text/event-stream')
    .set(headers)
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const messages: Json[] = String(res.headers['content-type']).startsWith('text/event-stream')
    ? res.text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)))
    : [res.body as Json];
  const answer = messages.find((m) => m.id === 1);
  if (!answer) throw new Error(`no MCP answer: ${res.status} ${res.text}`);
  return answer;
}
