import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { AgentCardSchema, publishedAgentCardOf } from '../documents/agent-card';

export const getAgentCard = defineMethod({
  name: 'agent.getCard',
  toolset: 'account',
  area: 'Agents',
  summary: 'Read the A2A agent card',
  brief: "This service's A2A agent card: its skills, the JSON-RPC endpoint and how to authenticate. Public and free.",
  description:
    'Returns the A2A agent card of this service (the same document as /.well-known/agent-card.json): its skills ' +
    '(one per method, with examples), the JSON-RPC endpoint, and how to authenticate. Public and free; call it first ' +
    'to discover what you can do here.',
  auth: 'public',
  limit: 'api',
  input: z.object({}),
  output: AgentCardSchema,
  rest: { method: 'GET', path: '/api/a2a' },
  annotations: { title: 'Agent card', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (ctx) => (await publishedAgentCardOf(ctx.services, ctx.call.address.origin)).card,
});
