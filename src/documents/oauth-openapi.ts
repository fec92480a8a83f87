import type { Config } from '../config';
import type { PathItem, ResponseObject } from './openapi-parts';
import { errorResponses, jsonResponse } from './openapi-parts';

/** OpenAPI path items of the OAuth endpoints (they are protocol endpoints, not registry methods). */

const OAUTH_ERROR = {
  type: 'object',
  description: 'RFC 6749 §5.2 error.',
  properties: {
    error: {
      type: 'string',
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
        'invalid_target',
        'unsupported_response_type',
        'server_error',
      ],
      description: 'OAuth error code.',
    },
    error_description: { type: 'string', description: 'What went wrong, for the developer.' },
  },
  required: ['error'],
};

const TOKEN = {
  type: 'object',
  description: 'RFC 6749 §5.1 access token response.',
  properties: {
    access_token: { type: 'string', pattern: '^sat_[0-9a-f]{64}$', description: 'Send as Authorization: Bearer <access_token>.' },
    token_type: { const: 'Bearer', description: 'Always Bearer.' },
    expires_in: { type: 'integer', const: 3600, description: 'Lifetime in seconds (one hour).' },
    scope: { type: 'string', description: 'Granted scopes, space-separated (agent).' },
  },
  required: ['access_token', 'token_type', 'expires_in', 'scope'],
};

const NO_STORE = { 'Cache-Control': { description: 'no-store: token responses are never cached.', schema: { type: 'string' } } };

const oauthError = (description: string, headers: Record<string, unknown> = {}): ResponseObject => ({
  ...jsonResponse(description, OAUTH_ERROR),
  headers: { ...NO_STORE, ...headers },
});

const metadataDoc = (operationId: string, summary: string, description: string, schema: Record<string, unknown>): PathItem => ({
  get: { operationId, summary, description, tags: ['Accounts'], security: [], responses: { '200': jsonResponse('The metadata document.', schema) } },
});

const AS_METADATA = {
  type: 'object',
  description: 'RFC 8414 authorization server metadata.',
  properties: {
    issuer: { type: 'string', format: 'uri' },
    token_endpoint: { type: 'string', format: 'uri' },
    authorization_endpoint: { type: 'string', format: 'uri', description: 'Listed for clients that require it; no response type is supported.' },
    grant_types_supported: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    response_types_supported: { type: 'array', items: { type: 'string' } },
  },
  required: ['issuer', 'token_endpoint', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported', 'response_types_supported'],
};

const PR_METADATA = {
  type: 'object',
  description: 'RFC 9728 protected resource metadata.',
  properties: {
    resource: { type: 'string', format: 'uri', description: 'The resource identifier (token audience).' },
    authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    bearer_methods_supported: { type: 'array', items: { type: 'string' } },
  },
  required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'],
};

export function oauthPaths(_config: Config, base: string): Record<string, PathItem> {
  return {
    '/oauth/token': {
      post: {
        operationId: 'oauth_token',
        summary: 'OAuth 2.0 client credentials: exchange your user id and API key for a one-hour access token',
        description:
          'Form-encoded (application/x-www-form-urlencoded), RFC 6749 §4.4. client_id = your user id, client_secret = your ' +
          'API key; send them with HTTP Basic (preferred: base64 of form-urlencoded id, ":", form-urlencoded secret) or as ' +
          'form fields, never both. scope=agent (the default). Optional RFC 8707 resource: ' +
          `${base} (the default: REST and JSON-RPC, and MCP) or ${base}/mcp (MCP only); anything else is invalid_target. ` +
          'Only agent accounts have client credentials. The token is sent as Authorization: Bearer <access_token>.',
        tags: ['Accounts'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: {
                  grant_type: { const: 'client_credentials', description: 'The only grant this server issues.' },
                  scope: { type: 'string', description: 'Space-separated scopes; agent (the default when omitted).' },
                  resource: { type: 'string', format: 'uri', description: `RFC 8707 audience: ${base} or ${base}/mcp.` },
                  client_id: { type: 'string', description: 'Your user id, when not using HTTP Basic.' },
                  client_secret: { type: 'string', description: 'Your API key, when not using HTTP Basic.' },
                },
                required: ['grant_type'],
              },
            },
          },
        },
        responses: {
          '200': { ...jsonResponse('The access token.', TOKEN), headers: NO_STORE },
          '400': oauthError(
            'invalid_request (missing or repeated parameter, both authentication methods at once, not form-encoded), invalid_client (form credentials), unsupported_grant_type, invalid_scope or invalid_target.',
          ),
          '401': oauthError('invalid_client with HTTP Basic credentials.', {
            'WWW-Authenticate': { description: 'Basic challenge.', schema: { type: 'string' } },
          }),
          ...errorResponses(['RATE_LIMITED']),
          '500': oauthError('server_error; quote the X-Request-Id header.'),
        },
      },
    },
    '/oauth/authorize': {
      get: {
        operationId: 'oauth_authorize',
        summary: 'Authorization endpoint: listed in the metadata for client compatibility, supports no response type',
        description:
          'There is no interactive authorization: every request answers unsupported_response_type. Use the client credentials grant at POST /oauth/token.',
        tags: ['Accounts'],
        security: [],
        responses: { '400': oauthError('unsupported_response_type.') },
      },
    },
    '/.well-known/oauth-authorization-server': metadataDoc(
      'oauth_authorization_server_metadata',
      'OAuth 2.0 authorization server metadata (RFC 8414)',
      'Issuer, token endpoint, client_credentials grant, client_secret_basic and client_secret_post, scope agent.',
      AS_METADATA,
    ),
    '/.well-known/oauth-protected-resource': metadataDoc(
      'oauth_protected_resource_metadata',
      'OAuth 2.0 protected resource metadata of the API (RFC 9728)',
      `The resource ${base}; every 401 of a keyed operation points here in WWW-Authenticate resource_metadata.`,
      PR_METADATA,
    ),
    '/.well-known/oauth-protected-resource/mcp': metadataDoc(
      'oauth_protected_resource_metadata_mcp',
      'OAuth 2.0 protected resource metadata of the MCP endpoint (RFC 9728)',
      `The resource ${base}/mcp, which MCP clients discover from the 401 challenge of /mcp.`,
      PR_METADATA,
    ),
  };
}
