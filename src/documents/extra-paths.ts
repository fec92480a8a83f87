import type { Config } from '../config';
import { AREAS } from './service-info';
import { AgentCardSchema } from './agent-card';
import { toJsonSchema } from './json-schema';
import { errorResponses, jsonResponse, type PathItem, type ResponseObject, type SecurityRequirement } from './openapi-parts';
import { oauthPaths } from './oauth-openapi';
import { marketPagePaths } from './market-page-openapi';
import { communityMarketPagePaths } from './community-market-page-openapi';

/**
 * The extension point for HTTP endpoints that are not registry methods (probes, documents, protocol
 * endpoints, OAuth). Registry methods are never described here: they are generated. An owner of a new
 * non-registry endpoint adds its path item to EXTRA_PATHS; the OpenAPI test then validates it and the
 * response check in the tests holds its responses to it.
 */
export type ExtraPaths = (config: Config, base: string) => Record<string, PathItem>;

const text = (description: string, types: string[]): ResponseObject => ({
  description,
  content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' } }])),
});

const READY = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    checks: { type: 'object', additionalProperties: { type: 'string' }, description: 'database, migrations, feed…' },
  },
  required: ['status', 'checks'],
};

const JSON_RPC_REQUEST = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'], description: 'Correlation id; omit for a notification.' },
    method: { type: 'string', description: 'A registry method name (see x-jsonrpc-method), SendMessage or message/send.' },
    // JSON-RPC allows by-name (object) or by-position (array) params; an array states its items (Spectral's array-items).
    params: { anyOf: [{ type: 'object' }, { type: 'array', items: true }], description: "The method's input, as in its REST request." },
  },
  required: ['jsonrpc', 'method'],
};

const JSON_RPC_RESPONSE = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    result: { description: "The method's output, as in its REST response." },
    error: {
      type: 'object',
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        data: { description: '{ code, hint, docs, httpStatus } for application errors; zod issues for -32602.' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['jsonrpc'],
};

const oneOrBatch = (schema: object) => ({ oneOf: [schema, { type: 'array', items: schema, minItems: 1 }] });

// The same card the registry method agent.getCard answers at GET /api/a2a.
const card = (operationId: string, summary: string): PathItem => ({
  get: {
    operationId,
    summary,
    tags: ['Agents'],
    security: [],
    responses: { '200': jsonResponse('The agent card.', toJsonSchema(AgentCardSchema, 'output')) },
  },
});

const document = (operationId: string, summary: string, response: ResponseObject): PathItem => ({
  get: { operationId, summary, tags: ['Agents'], security: [], responses: { '200': response } },
});

// Each required property is also declared (Redocly's no-required-schema-properties-undefined).
const openApiResponse = jsonResponse('This OpenAPI 3.1.0 document.', {
  type: 'object',
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
  required: ['openapi', 'info', 'paths'],
});

export const EXTRA_PATHS: ExtraPaths[] = [
  () => ({
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness probe',
        tags: ['Service'],
        security: [],
        responses: {
          '200': jsonResponse('The process is up.', {
            type: 'object',
            properties: { status: { const: 'ok' } },
            required: ['status'],
          }),
        },
      },
    },
    '/ready': {
      get: {
        operationId: 'ready',
        summary: 'Readiness probe: database reachable, migrations applied, market feed status',
        tags: ['Service'],
        security: [],
        responses: {
          '200': jsonResponse('Ready to serve.', READY),
          '503': jsonResponse('Not ready; checks says which part.', READY),
        },
      },
    },
  }),
  () => ({
    '/': document(
      'landing_page',
      'Landing page linking every document (HTML, or markdown with Accept: text/markdown)',
      text('The landing page.', ['text/html', 'text/markdown']),
    ),
    '/openapi.json': document('openapi_document', 'This OpenAPI document', openApiResponse),
    '/api/openapi.json': document('openapi_document_mirror', 'This OpenAPI document (mirror of /openapi.json)', openApiResponse),
    '/llms.txt': document(
      'llms_txt',
      'llms.txt: an index of every method for language models',
      text('Markdown (llmstxt.org).', ['text/plain', 'text/markdown']),
    ),
    '/llms-full.txt': document(
      'llms_full_txt',
      'Every method in full: paths, auth, limits, schemas, examples, errors',
      text('Markdown.', ['text/plain', 'text/markdown']),
    ),
    '/docs/{area}': {
      get: {
        operationId: 'area_docs',
        summary: 'Documentation page of one area (HTML, or markdown with Accept: text/markdown or a .md suffix)',
        tags: ['Agents'],
        security: [],
        parameters: [
          {
            name: 'area',
            in: 'path',
            required: true,
            description: 'Area slug, optionally with .md for markdown.',
            schema: { type: 'string', enum: Object.values(AREAS).flatMap((a) => [a.slug, `${a.slug}.md`]) },
          },
        ],
        responses: { '200': text('The area page.', ['text/html', 'text/markdown']), ...errorResponses(['NOT_FOUND'], { NOT_FOUND: 'no such area' }) },
      },
    },
    '/logo.svg': document('logo', 'Service logo (the plugin manifest logo_url)', text('SVG image.', ['image/svg+xml'])),
    '/.well-known/ai-plugin.json': document(
      'ai_plugin_manifest',
      'Legacy AI plugin manifest pointing at the OpenAPI document',
      jsonResponse('The manifest.', {
        type: 'object',
        properties: {
          schema_version: { type: 'string' },
          name_for_model: { type: 'string' },
          description_for_model: { type: 'string' },
          api: { type: 'object', properties: { url: { type: 'string', format: 'uri' } } },
        },
        required: ['schema_version', 'name_for_model', 'description_for_model', 'api'],
      }),
    ),
  }),
  () => ({
    '/.well-known/agent-card.json': card('agent_card', 'A2A agent card'),
    '/.well-known/agent.json': card('agent_card_legacy', 'A2A agent card (legacy location)'),
    '/.well-known/agent-card-jwks.json': {
      get: {
        operationId: 'agent_card_jwks',
        summary: 'Public key of the agent card signature (JWK Set)',
        description: "The `jku` of the card's JWS signatures; served only when the operator configured AGENT_CARD_SIGNING_KEY (404 otherwise).",
        tags: ['Agents'],
        security: [{}] as SecurityRequirement[],
        responses: {
          '200': jsonResponse('A JWK Set holding the public key, by kid.', {
            type: 'object',
            required: ['keys'],
            properties: {
              keys: { type: 'array', items: { type: 'object', required: ['kty', 'kid'], properties: { kty: { type: 'string' }, kid: { type: 'string' } } } },
            },
          }),
          ...errorResponses(['ENDPOINT_NOT_FOUND'], { ENDPOINT_NOT_FOUND: 'the card is not signed' }),
        },
      },
    },
    '/api/a2a': {
      post: {
        operationId: 'jsonrpc',
        summary: 'JSON-RPC 2.0 and A2A endpoint: call any registry method by name, or send an A2A message',
        description:
          'method = a registry method name (x-jsonrpc-method on each operation), params = its input; or A2A SendMessage ' +
          '(v1.0) / message/send (v0.3) with a data part { skill, input }, and the other A2A methods (GetTask, ListTasks, CancelTask, ' +
          'SubscribeToTask, SendStreamingMessage, the push notification configs, GetExtendedAgentCard; A2A-Version 1.0 or 0.3). ' +
          'Batches are arrays. Keyed methods need ' +
          'Authorization: Bearer <key>. Errors are JSON-RPC error objects whose data carries { code, hint, docs, httpStatus }.',
        tags: ['Agents'],
        security: [{ bearerAuth: [] }, { oauth2: ['agent'] }, {}] as SecurityRequirement[],
        requestBody: { required: true, content: { 'application/json': { schema: oneOrBatch(JSON_RPC_REQUEST) } } },
        responses: {
          '200': {
            description: 'JSON-RPC response (an array for a batch); SendStreamingMessage and SubscribeToTask answer Server-Sent Events of JSON-RPC responses.',
            content: {
              'application/json': { schema: oneOrBatch(JSON_RPC_RESPONSE) },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          '204': { description: 'The request held only notifications.' },
          '400': jsonResponse('Unparseable JSON (-32700) or a bad envelope (-32600).', oneOrBatch(JSON_RPC_RESPONSE)),
          '401': jsonResponse('The method needs an API key or access token.', oneOrBatch(JSON_RPC_RESPONSE)),
        },
      },
    },
  }),
  oauthPaths,
  marketPagePaths,
  communityMarketPagePaths,
];

export function extraPaths(config: Config, base: string): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  for (const provide of EXTRA_PATHS) {
    for (const [path, item] of Object.entries(provide(config, base))) {
      for (const [verb, op] of Object.entries(item)) {
        const existing = out[path] ?? (out[path] = {});
        if (existing[verb as keyof PathItem]) throw new Error(`extra path ${verb.toUpperCase()} ${path} is described twice`);
        existing[verb as keyof PathItem] = op;
      }
    }
  }
  return out;
}
