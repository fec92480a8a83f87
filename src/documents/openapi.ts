import type { Config } from '../config';
import type { ErrorCode } from '../errors/app-error';
import { limitsFromConfig } from '../limits/rate-limiter';
import { isRevalidatable, onSurface, type AnyMethod, type LimitClass } from '../registry/method';
import type { Registry } from '../registry/registry';
import type { AnyStream } from '../registry/stream';
import { extraPaths } from './extra-paths';
import { declaredType, inputSchemaOf, outputSchemaOf, toJsonSchema, type JsonSchema } from './json-schema';
import {
  DEFAULT_SECURITY,
  ERROR_SCHEMA,
  SECURITY_BY_AUTH,
  SECURITY_SCHEMES,
  errorResponses,
  jsonResponse,
  type HttpVerb,
  type OperationObject,
  type PathItem,
} from './openapi-parts';
import { AREAS, SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice, methodDocsUrl } from './service-info';
import { perOrigin } from '../transports/public-origin';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  servers: Array<{ url: string }>;
  security: unknown[];
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
}

/** Express `:param` → OpenAPI `{param}`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(/:(\w+)/g, '{$1}');

export const pathParamsOf = (expressPath: string): string[] => (expressPath.match(/:(\w+)/g) ?? []).map((p) => p.slice(1));

/** Who a rate limit counts, in words. */
export function limitText(cls: LimitClass, config: Config): string {
  const n = limitsFromConfig(config)[cls];
  const per = cls === 'register' || cls === 'login' ? 'per IP address' : 'per account (per IP address when anonymous)';
  return `${n} ${cls} requests per minute ${per}`;
}

/** The error codes a method can answer, beyond its success: the pipeline's own plus its declared `errors`. */
export function errorCodesOf(m: AnyMethod): ErrorCode[] {
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'UNAUTHORIZED'];
  if (m.auth === 'session') codes.push('SESSION_REQUIRED');
  // An access token without scope agent (RFC 6750 insufficient_scope), or a cross-site write with the session cookie (CSRF).
  if (m.auth !== 'public') codes.push('FORBIDDEN');
  codes.push('RATE_LIMITED', 'INTERNAL', 'SERVICE_UNAVAILABLE');
  if (m.rest && m.rest.method !== 'GET') codes.push('PAYLOAD_TOO_LARGE');
  if (m.idempotent) codes.push('CONFLICT');
  for (const c of m.errors ?? []) if (!codes.includes(c)) codes.push(c);
  return codes;
}

/** The error codes a stream can answer (as JSON, before its first event). */
export function streamErrorCodes(s: AnyStream): ErrorCode[] {
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'UNAUTHORIZED'];
  if (s.auth !== 'public') codes.push('FORBIDDEN');
  codes.push('RATE_LIMITED', 'INTERNAL', 'SERVICE_UNAVAILABLE');
  for (const c of s.errors ?? []) if (!codes.includes(c)) codes.push(c);
  return codes;
}

/** A stream as a GET answering text/event-stream: its query parameters, Last-Event-ID, and the JSON of each event. */
function streamOperationOf(s: AnyStream, config: Config, base: string, hoist: ComponentHoister): OperationObject {
  const input = hoist.embed(toJsonSchema(s.input, 'input'), s.name, 'input');
  const props = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = (input.required ?? []) as string[];
  const parameters: unknown[] = Object.entries(props).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    ...(schema.description ? { description: schema.description } : {}),
    ...(declaredType(schema) === 'array' ? { style: 'form', explode: false } : {}),
    schema: withoutDescription(schema),
  }));
  if (s.resumable) {
    parameters.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'The id of the last event received: the stream resumes right after it (what EventSource sends when it reconnects).',
      schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' },
    });
  }
  const event = hoist.embed(toJsonSchema(s.event, 'output'), s.name, 'output');
  return {
    operationId: s.name,
    summary: s.summary,
    description: `${s.description}\n\nRate limit: ${limitText(s.limit, config)}, counted once per connection; at most ${s.perCaller(config)} streams open at once per caller.`,
    tags: [s.area],
    externalDocs: { url: methodDocsUrl(base, s) },
    security: SECURITY_BY_AUTH[s.auth],
    parameters,
    responses: {
      '200': {
        description:
          `Server-Sent Events (text/event-stream): each event is \`${s.resumable ? 'id: <seq>\\n' : ''}event: <type>\\ndata: <JSON>\\n\\n\` with type one of ` +
          `${s.eventTypes.join(', ')}; data is the JSON in x-sse-data. Comment lines (": ping") are heartbeats.`,
        content: {
          'text/event-stream': {
            schema: { type: 'string', description: 'A stream of Server-Sent Events.' },
            'x-sse-events': [...s.eventTypes],
            'x-sse-data': event,
          },
        },
      },
      ...errorResponses(streamErrorCodes(s)),
    },
    'x-stream': { resumable: s.resumable, perCaller: s.perCaller(config) },
    'x-rate-limit': { class: s.limit, perMinute: limitsFromConfig(config)[s.limit] },
  };
}

/** zod puts shared (`.meta({ id })`) and recursive schemas in `$defs`; OpenAPI wants them under components. */
class ComponentHoister {
  constructor(readonly schemas: Record<string, JsonSchema>) {}

  embed(schema: JsonSchema, owner: string, io: 'input' | 'output'): JsonSchema {
    const copy = structuredClone(schema);
    const defs = copy.$defs as Record<string, JsonSchema> | undefined;
    if (!defs) return copy;
    delete copy.$defs;
    const renamed = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) {
      const base = name.startsWith('__schema') ? `${owner}_${io}${name.slice('__schema'.length)}` : name;
      const candidates = [base, io === 'input' ? `${base}Input` : base, `${owner}_${io}_${base}`];
      const chosen = candidates.find((c) => !this.schemas[c] || JSON.stringify(this.schemas[c]) === JSON.stringify(def)) ?? candidates[2]!;
      renamed.set(name, chosen);
    }
    const rewrite = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(rewrite);
      if (!node || typeof node !== 'object') return;
      const obj = node as Record<string, unknown>;
      if (typeof obj.$ref === 'string' && obj.$ref.startsWith('#/$defs/')) {
        obj.$ref = `#/components/schemas/${renamed.get(obj.$ref.slice('#/$defs/'.length))}`;
      }
      Object.values(obj).forEach(rewrite);
    };
    rewrite(copy);
    for (const [name, def] of Object.entries(defs)) {
      rewrite(def);
      this.schemas[renamed.get(name)!] = def;
    }
    return copy;
  }
}

function withoutDescription(schema: JsonSchema): JsonSchema {
  const { description: _omit, ...rest } = schema;
  return rest;
}

function withoutDeprecation(schema: JsonSchema): JsonSchema {
  const { deprecated: _omit, ...rest } = schema;
  return rest;
}

/** How a conditional read is counted, said once in every revalidatable operation's description. */
const REVALIDATION_TEXT =
  'Answers carry an ETag; a repeat request with If-None-Match: <that ETag> is answered 304 Not Modified while the answer is unchanged, and a 304 is not counted against this limit.';

function operationOf(m: AnyMethod, config: Config, base: string, hoist: ComponentHoister, opts: OpenApiOptions): OperationObject {
  const rest = m.rest!;
  const pathParams = pathParamsOf(rest.path);
  const input = hoist.embed(inputSchemaOf(m), m.name, 'input');
  const props = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = (input.required ?? []) as string[];
  const example = m.examples?.[0]?.input as Record<string, unknown> | undefined;

  const parameters: unknown[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    description: props[name]?.description,
    // A path segment is how REST names the resource: an argument deprecated on the RPC surfaces is not deprecated here.
    schema: withoutDeprecation(withoutDescription(props[name] ?? { type: 'string' })),
    ...(example?.[name] !== undefined ? { example: example[name] } : {}),
  }));
  if (m.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes retries safe: the same key with the same body within 24 hours returns the first response without executing again; with another body it is 409 CONFLICT.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const revalidatable = isRevalidatable(m);
  if (revalidatable) {
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag of the answer you hold: when it is still current the answer is 304 with no body, not counted against the rate limit.',
      schema: { type: 'string' },
    });
  }

  const op: OperationObject = {
    operationId: m.name,
    summary: m.summary,
    ...(m.deprecated ? { deprecated: true } : {}),
    description: `${m.deprecated ? `Deprecated: use ${m.deprecated.use}, which tells the venue from the market. ` : ''}${m.description}\n\nRate limit: ${limitText(m.limit, config)}.${revalidatable ? ` ${REVALIDATION_TEXT}` : ''}`,
    tags: [m.area],
    externalDocs: { url: methodDocsUrl(base, m) },
    security: SECURITY_BY_AUTH[m.auth],
    responses: {},
  };

  if (rest.method === 'GET' || rest.method === 'DELETE') {
    for (const [name, schema] of Object.entries(props)) {
      if (pathParams.includes(name)) continue;
      parameters.push({
        name,
        in: 'query',
        required: required.includes(name),
        // A deprecated alias (docs/glossary.md) is deprecated as a parameter too, where OpenAPI tools look for it.
        ...(schema.deprecated === true ? { deprecated: true } : {}),
        ...(schema.description ? { description: schema.description } : {}),
        schema: withoutDescription(schema),
        ...(example?.[name] !== undefined ? { example: example[name] } : {}),
      });
    }
  } else {
    const body: JsonSchema = { ...input, properties: Object.fromEntries(Object.entries(props).filter(([k]) => !pathParams.includes(k))) };
    const bodyRequired = required.filter((k) => !pathParams.includes(k));
    if (bodyRequired.length) body.required = bodyRequired;
    else delete body.required;
    const examples = (m.examples ?? []).map((e, i) => [
      `example${i + 1}`,
      { value: Object.fromEntries(Object.entries(e.input as Record<string, unknown>).filter(([k]) => !pathParams.includes(k))) },
    ]);
    op.requestBody = {
      required: bodyRequired.length > 0,
      content: { 'application/json': { schema: body, ...(examples.length ? { examples: Object.fromEntries(examples) } : {}) } },
    };
  }
  if (parameters.length) op.parameters = parameters;

  const output = hoist.embed(opts.wholeItems ? toJsonSchema(m.output, 'output') : outputSchemaOf(m), m.name, 'output');
  op.responses[String(rest.status ?? 200)] = jsonResponse(
    m.summary,
    output,
    (m.examples ?? []).map((e) => ({ value: e.output })),
  );
  const authMeaning: Partial<Record<ErrorCode, string>> =
    m.auth === 'public'
      ? { UNAUTHORIZED: 'a credential was sent in the query string or body (only the Authorization header is accepted)' }
      : { FORBIDDEN: 'the access token lacks scope agent, or a write authenticated by the session cookie came from another site' };
  if (revalidatable) {
    op.responses[String(rest.status ?? 200)]!.headers = {
      ETag: { description: 'Names this answer: send it back as If-None-Match to revalidate for free.', schema: { type: 'string' } },
    };
    op.responses['304'] = {
      description: 'Not modified: the answer named by If-None-Match is still current (no body; not counted against the rate limit).',
      headers: { ETag: { description: 'The current ETag (the one sent).', schema: { type: 'string' } } },
    };
  }
  Object.assign(op.responses, errorResponses(errorCodesOf(m), authMeaning));
  if (onSurface(m, 'jsonrpc')) op['x-jsonrpc-method'] = m.name;
  if (onSurface(m, 'mcp')) op['x-mcp-tool'] = m.name;
  op['x-rate-limit'] = { class: m.limit, perMinute: limitsFromConfig(config)[m.limit] };
  return op;
}

export interface OpenApiOptions {
  /**
   * Answers as a caller that never sends `fields` reads them (the web app's typed client): every list item whole, as
   * the SPEC states it, instead of only `id` required (src/registry/fields.ts).
   */
  wholeItems?: boolean;
}

/** Builds the document by walking the registry, then the extra (non-registry) paths. Collects every problem before failing. */
export function buildOpenApi(registry: Registry, config: Config, base: string, opts: OpenApiOptions = {}): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { Error: ERROR_SCHEMA };
  const hoist = new ComponentHoister(schemas);
  const paths: Record<string, PathItem> = {};
  const problems: string[] = [];
  const usedTags = new Set<string>();

  const put = (path: string, verb: HttpVerb, op: OperationObject, who: string) => {
    const item = paths[path] ?? (paths[path] = {});
    if (item[verb]) problems.push(`${verb.toUpperCase()} ${path} is described twice (${who})`);
    item[verb] = op;
    op.tags?.forEach((t) => usedTags.add(t));
  };

  for (const m of registry.methods) {
    if (!m.rest) continue;
    try {
      put(openApiPath(m.rest.path), m.rest.method.toLowerCase() as HttpVerb, operationOf(m, config, base, hoist, opts), m.name);
    } catch (err) {
      problems.push(`${m.name}: ${(err as Error).message}`);
    }
  }
  for (const s of registry.streams) {
    try {
      put(openApiPath(s.path), 'get', streamOperationOf(s, config, base, hoist), s.name);
    } catch (err) {
      problems.push(`${s.name}: ${(err as Error).message}`);
    }
  }
  for (const [path, item] of Object.entries(extraPaths(config, base))) {
    for (const [verb, op] of Object.entries(item)) put(path, verb as HttpVerb, op, 'extra path');
  }
  const operationIds = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      if (operationIds.has(op.operationId)) problems.push(`operationId ${op.operationId} is used twice`);
      operationIds.add(op.operationId);
    }
  }
  if (problems.length) throw new Error(`Cannot build the OpenAPI document:\n- ${problems.join('\n- ')}`);

  const tags: Array<{ name: string; description: string }> = (Object.keys(AREAS) as Array<keyof typeof AREAS>)
    .filter((a) => usedTags.has(a))
    .map((a) => ({ name: a, description: AREAS[a].description(config) }));
  if (usedTags.has('Service')) tags.push({ name: 'Service', description: 'Liveness and readiness probes for operators.' });

  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE_TITLE,
      version: '1.0.0',
      summary: 'Paper trading on prediction markets with virtual money, for AI agents and people.',
      description: [
        SERVICE_SUMMARY,
        marketDataNotice(config),
        'Authenticate with Authorization: Bearer <API_KEY> (register with isAgent true to get one) or an OAuth 2.0 ' +
          'client-credentials access token (scope agent). The same operations are JSON-RPC methods at POST /api/a2a ' +
          '(x-jsonrpc-method) and MCP tools at /mcp (x-mcp-tool). Every error is an Error body with a stable code.',
        `Also: ${base}/llms.txt, ${base}/llms-full.txt, ${base}/.well-known/agent-card.json.`,
      ].join('\n\n'),
      contact: { email: config.SUPPORT_EMAIL },
    },
    servers: [{ url: base }],
    security: DEFAULT_SECURITY,
    tags,
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES(base) },
  };
}

type Built = { doc: OpenApiDocument; json: string };
const cache = new WeakMap<Config, WeakMap<Registry, (base: string) => Built>>();

/** The document for this registry, configuration and address (`base`), built once and kept (with its serialization). */
export function openApiDocument(registry: Registry, config: Config, base: string): Built {
  let byRegistry = cache.get(config);
  if (!byRegistry) cache.set(config, (byRegistry = new WeakMap()));
  let byOrigin = byRegistry.get(registry);
  if (!byOrigin) {
    byOrigin = perOrigin((at) => {
      const doc = buildOpenApi(registry, config, at);
      return { doc, json: JSON.stringify(doc) };
    });
    byRegistry.set(registry, byOrigin);
  }
  return byOrigin(base);
}
