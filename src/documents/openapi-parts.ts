import { ERROR_TABLE, type ErrorCode } from '../errors/app-error';
import { ErrorBodySchema } from '../errors/error-body';
import type { AuthMode } from '../registry/method';
import { SESSION_COOKIE } from '../transports/http-call';
import { toJsonSchema, type JsonSchema } from './json-schema';

/** The pieces of the OpenAPI document shared by registry operations and the hand-described extra paths. */

export type HttpVerb = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type SecurityRequirement = Record<string, string[]>;

export interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: JsonSchema; examples?: Record<string, { summary?: string; value: unknown }>; [extension: `x-${string}`]: unknown }>;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, ResponseObject>;
  security?: SecurityRequirement[];
  [extension: `x-${string}`]: unknown;
  externalDocs?: { url: string; description?: string };
}

export type PathItem = Partial<Record<HttpVerb, OperationObject>>;

export const ERROR_REF = '#/components/schemas/Error';

/** What each stable code means, for the response descriptions. A new code is a compile error until described. */
export const ERROR_MEANING: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'the input does not match the schema (details lists each problem), or the JSON body is malformed',
  INSUFFICIENT_BALANCE: 'the virtual balance is too small for this operation; nothing changed',
  POSITION_CLOSED: 'the position is already closed',
  MARKET_CLOSED: 'the market is closed or resolved and no longer trades',
  NOT_COMPLETED: 'the challenge is not completed yet',
  ALREADY_CLAIMED: 'the reward was already claimed',
  EMAIL_TAKEN: 'an account with this email exists (emails compare case-insensitively)',
  WRONG_PASSWORD: 'the password confirming this account change is wrong; nothing changed',
  PRICE_LIMIT_EXCEEDED: 'the fill would be worse than the maxAveragePrice or minAveragePrice you set; nothing changed',
  ADDRESS_NOT_ALLOWED: 'the URL resolves to a loopback, private, link-local or metadata address, which the service does not call; nothing changed',
  INSUFFICIENT_DEPTH:
    "the venue's book (less what you already took of this snapshot) shows fewer shares than the order needs; the message names the depth available; nothing changed",
  UNAUTHORIZED: 'missing or invalid API key or access token, or a credential sent outside the Authorization header',
  SESSION_REQUIRED: 'this operation needs a browser session; API keys and access tokens are not accepted',
  FORBIDDEN: 'authenticated, but not allowed to do this',
  NOT_FOUND: 'the named resource does not exist',
  ENDPOINT_NOT_FOUND: 'no endpoint at this method and path',
  METHOD_NOT_ALLOWED: 'the path exists but not with this HTTP method (see the Allow header)',
  CONFLICT: 'the Idempotency-Key was used with another request, or that request is still running',
  REPLAY_ENDED: 'the replay run has ended (end_replay): its clock, books and record are frozen; read it with get_replay',
  SUITE_RETIRED:
    'the replay suite version has retired (its secret is revealed): its board is read-only; start an episode of the current suite (list_replay_suite)',
  PAYLOAD_TOO_LARGE: 'the request body is larger than 100 kB',
  RATE_LIMITED: 'too many requests; wait the Retry-After seconds',
  INTERNAL: 'unexpected failure; quote requestId when reporting it',
  UPSTREAM_UNAVAILABLE: 'the market-data backend is unavailable; retry later',
  PRICE_UNAVAILABLE: 'no fresh live price; nothing was executed',
  SERVICE_UNAVAILABLE: 'the service or its database is unavailable or busy; nothing changed; retry after Retry-After seconds',
};

/**
 * SPEC's Error, plus the documented additions `details` (validation issues) and `requestId` (5xx): the same
 * zod schema the RPC transports answer with, so the REST document cannot drift from them. SPEC types `docs`
 * as a URI, which every `docs` link is (absolute, under BASE_URL).
 */
export const ERROR_SCHEMA: JsonSchema = (() => {
  const schema = structuredClone(toJsonSchema(ErrorBodySchema, 'output'));
  const props = schema.properties as Record<string, JsonSchema>;
  props.docs = { ...props.docs, format: 'uri' };
  schema.description = 'Every error of the REST API: `code` is stable and machine-readable, `error` is for people, `hint` says what to do next.';
  return schema;
})();

export const SECURITY_SCHEMES = (baseUrl: string) => ({
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_<32 hex> API key, or an OAuth access token',
    description:
      'Authorization: Bearer <API_KEY>. Get a key by registering with isAgent true (POST /api/auth/register); it never ' +
      'expires. Send it only to this service, never in a URL.',
  },
  oauth2: {
    type: 'oauth2',
    description:
      'OAuth 2.0 client credentials: client_id = your user id, client_secret = your API key. The access token lasts one ' +
      'hour and is sent as Authorization: Bearer <token>.',
    flows: {
      clientCredentials: {
        tokenUrl: `${baseUrl}/oauth/token`,
        scopes: { agent: 'Read the agent portfolio and place virtual trades.' },
      },
    },
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'Browser session of a person, set at sign-in. Session-only operations accept nothing else.',
  },
});

const BEARER: SecurityRequirement = { bearerAuth: [] };
const OAUTH: SecurityRequirement = { oauth2: ['agent'] };
const COOKIE: SecurityRequirement = { sessionCookie: [] };

/** The global default: an API key or an OAuth token with scope agent (SPEC, Authentication). */
export const DEFAULT_SECURITY: SecurityRequirement[] = [BEARER, OAUTH];

/** `key` also accepts a person's browser session (the authenticator falls back to it), so it is listed. */
export const SECURITY_BY_AUTH: Record<AuthMode, SecurityRequirement[]> = {
  public: [],
  key: [BEARER, OAUTH, COOKIE],
  session: [COOKIE],
  optional: [BEARER, OAUTH, COOKIE, {}],
};

const REQUEST_ID_HEADER = { description: 'Identifies the request in the service logs.', schema: { type: 'string' } };

/** Headers some error statuses carry. */
function errorHeaders(status: number): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': REQUEST_ID_HEADER };
  if (status === 401) {
    headers['WWW-Authenticate'] = { description: 'Bearer challenge with resource_metadata (RFC 9728).', schema: { type: 'string' } };
  }
  if (status === 429) {
    headers['Retry-After'] = { description: 'Seconds until the window resets.', required: true, schema: { type: 'integer', minimum: 1 } };
    headers.RateLimit = { description: 'Remaining requests and reset (IETF RateLimit header).', schema: { type: 'string' } };
    headers['RateLimit-Policy'] = { description: 'Quota and window of the limit class.', schema: { type: 'string' } };
  }
  if (status === 409) {
    headers['Retry-After'] = {
      description: 'When a request with the same Idempotency-Key is still running: seconds to wait before retrying it.',
      schema: { type: 'integer', minimum: 1 },
    };
  }
  if (status === 503) {
    headers['Retry-After'] = {
      description: 'When the database is unavailable: seconds to wait before sending the same request again.',
      schema: { type: 'integer', minimum: 1 },
    };
  }
  if (status === 405) headers.Allow = { description: 'The methods this path accepts.', schema: { type: 'string' } };
  return headers;
}

/** One response per status for the given codes, each an Error body, with one example per code. */
export function errorResponses(codes: Iterable<ErrorCode>, meaning: Partial<Record<ErrorCode, string>> = {}): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].status;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  const out: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const list = byStatus.get(status)!;
    const says = (c: ErrorCode) => meaning[c] ?? ERROR_MEANING[c];
    out[String(status)] = {
      description: list.map((c) => `${c}: ${says(c)}.`).join(' '),
      headers: errorHeaders(status),
      content: {
        'application/json': {
          schema: { $ref: ERROR_REF },
          examples: Object.fromEntries(list.map((c) => [c, { summary: c, value: { error: capitalize(says(c)) + '.', code: c } }])),
        },
      },
    };
  }
  return out;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A JSON body response. */
export function jsonResponse(description: string, schema: JsonSchema, examples?: Array<{ summary?: string; value: unknown }>): ResponseObject {
  const media: { schema: JsonSchema; examples?: Record<string, { summary?: string; value: unknown }> } = { schema };
  if (examples?.length) media.examples = Object.fromEntries(examples.map((e, i) => [`example${i + 1}`, e]));
  return { description, content: { 'application/json': media } };
}
