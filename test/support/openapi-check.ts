import request from 'supertest';
import { APP_ONLY_PAGES } from '../../src/http/pages/web-app-pages';
import type { Express } from 'express';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * A supertest agent whose every awaited response is checked against the OpenAPI document the app itself
 * serves at /openapi.json: the path must match a documented template, the status must be documented for
 * that operation, the content type must be one it documents, and a JSON body must match its schema (ajv,
 * JSON Schema 2020-12, formats on). Every 4xx/5xx under /api/ must also be an Error body. A mismatch
 * rejects the await with a message saying what differs. Use `.then`/`await` (not `.end(cb)`).
 */
export type CheckedAgent = ReturnType<typeof request>;

/**
 * Endpoints the check skips, each with its reason. Only protocol endpoints whose bodies are not REST
 * resources belong here; their own transport tests check them. Everything else must be documented
 * (registry methods are; other endpoints go to src/documents/extra-paths.ts).
 */
export const UNCHECKED: ReadonlyArray<{ method: string; path: RegExp; why: string }> = [
  { method: '*', path: /^\/mcp(\/.*)?$/, why: 'MCP Streamable HTTP: JSON-RPC over HTTP or SSE (test/transports/mcp.test.ts)' },
  { method: 'POST', path: /^\/api\/a2a$/, why: 'JSON-RPC 2.0 envelopes; errors are JSON-RPC error objects (test/transports/jsonrpc.test.ts)' },
  { method: 'GET', path: /^\/assets\//, why: "the web app's hashed build files, not an API (test/http/pages/web-app.test.ts)" },
  ...APP_ONLY_PAGES.map((p) => ({
    method: 'GET',
    path: new RegExp(`^${p.path.replace(/:\w+/g, '[^/]+')}$`),
    why: 'a page of the web app (HTML for browsers), not an API (test/http/pages/web-app.test.ts)',
  })),
];

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Json> };
}

const COMPONENTS_ID = 'urn:openapi-check:components';
const ERROR_POINTER = '#/components/schemas/Error';

/** `#/components/schemas/X` → a reference into the components schema registered with ajv. */
function rewriteRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map(rewriteRefs) as T;
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/') ? `${COMPONENTS_ID}#/$defs/${v.slice(21)}` : rewriteRefs(v);
  }
  return out as T;
}

interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; regex: RegExp; params: number }>;

  constructor(private readonly doc: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(doc.components?.schemas ?? {}) });
    // Literal segments win over templated ones (/docs/{area} vs a literal /docs/x), as in OpenAPI path matching.
    this.templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        regex: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}$`,
        ),
        params: (template.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.validators.get(key);
    if (!v) this.validators.set(key, (v = this.ajv.compile(rewriteRefs(schema))));
    return v;
  }

  private validate(where: string, key: string, schema: Json, body: unknown): void {
    const v = this.validator(key, schema);
    if (!v(body)) {
      const problems = (v.errors ?? []).map((e) => `  ${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      throw new Error(`OpenAPI check: ${where}: the body does not match the documented schema:\n${problems.join('\n')}\nbody: ${JSON.stringify(body)}`);
    }
  }

  private validateError(where: string, body: unknown): void {
    this.validate(`${where} (an error must be an Error body)`, ERROR_POINTER, { $ref: ERROR_POINTER }, body);
  }

  check(method: string, url: string, res: ResponseLike): void {
    let path = url.replace(/^https?:\/\/[^/]+/, '').split(/[?#]/)[0]!;
    if (path.length > 1) path = path.replace(/\/+$/, '');
    const where = `${method} ${path} → ${res.status}`;
    if (UNCHECKED.some((u) => (u.method === '*' || u.method === method) && u.path.test(path))) return;

    const match = this.templates.find((t) => t.regex.test(path));
    const op = match ? this.doc.paths[match.template]![method.toLowerCase()] : undefined;
    if (!op) {
      // The service's own answers to what it does not serve: 404 for an unknown path, 405 for a wrong method.
      if (res.status === 404 || res.status === 405) return this.validateError(where, res.body);
      throw new Error(
        `OpenAPI check: ${where}: ${method} ${match ? match.template : path} is not in /openapi.json. Registry methods are ` +
          'documented automatically; document other endpoints in src/documents/extra-paths.ts (or, for a protocol ' +
          'endpoint, add it with a reason to UNCHECKED in test/support/openapi-check.ts).',
      );
    }
    const status = String(res.status);
    const documented = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
    if (!documented) {
      throw new Error(
        `OpenAPI check: ${where}: status ${status} is not documented for ${method} ${match!.template} (documented: ` +
          `${Object.keys(op.responses).join(', ')}). If the method can answer it, declare the error code in its \`errors\`. ` +
          `body: ${JSON.stringify(res.body)}`,
      );
    }
    const contentType = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const hasBody = method !== 'HEAD' && res.status !== 204 && res.status !== 304 && (contentType !== '' || !!res.text);
    if (!documented.content) {
      if (hasBody) throw new Error(`OpenAPI check: ${where}: documented without a body, but the response has one (${contentType}).`);
      return;
    }
    if (!hasBody) return;
    const media = documented.content[contentType];
    if (!media) {
      throw new Error(
        `OpenAPI check: ${where}: content type ${contentType || '(none)'} is not documented (documented: ${Object.keys(documented.content).join(', ')}).`,
      );
    }
    if (contentType === 'application/json' && media.schema) {
      this.validate(where, `${match!.template} ${method} ${status} ${contentType}`, media.schema, res.body);
    }
    if (res.status >= 400 && path.startsWith('/api/')) this.validateError(where, res.body);
  }
}

const checkers = new WeakMap<Express, Promise<OpenApiChecker>>();
/** Running services reached over HTTP (test/cluster), by base URL. */
const urlCheckers = new Map<string, Promise<OpenApiChecker>>();

/** The checker of this app, from the document it serves (fetched once per app or base URL). */
function checkerFor(app: Express | string): Promise<OpenApiChecker> {
  let checker = typeof app === 'string' ? urlCheckers.get(app) : checkers.get(app);
  if (!checker) {
    checker = request(app)
      .get('/openapi.json')
      .then((res) => {
        if (res.status !== 200 || typeof res.body?.paths !== 'object') {
          throw new Error(`OpenAPI check: GET /openapi.json answered ${res.status}; cannot check responses without it.`);
        }
        return new OpenApiChecker(res.body as Document);
      });
    if (typeof app === 'string') urlCheckers.set(app, checker);
    else checkers.set(app, checker);
  }
  return checker;
}

const VERBS = ['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options'] as const;

/** Checked calls to an app, or to a running service at a base URL (http://host:port). */
export function checkedAgent(app: Express | string): CheckedAgent {
  const agent = request(app);
  const checked = Object.create(agent) as CheckedAgent;
  for (const verb of VERBS) {
    const original = (agent as unknown as Record<string, (url: string) => request.Test>)[verb];
    if (typeof original !== 'function') continue;
    const httpMethod = verb === 'del' ? 'DELETE' : verb.toUpperCase();
    (checked as unknown as Record<string, (url: string) => request.Test>)[verb] = (url: string) => {
      const test = original.call(agent, url);
      const then = test.then.bind(test);
      // Chained calls (.set/.send/.query) return the same Test, so replacing its `then` covers `await`.
      test.then = ((onFulfilled, onRejected) =>
        then(async (res) => {
          (await checkerFor(app)).check(httpMethod, url, res);
          return res;
        }).then(onFulfilled, onRejected)) as request.Test['then'];
      return test;
    };
  }
  return checked;
}

/** Checks one response obtained without supertest (a Server-Sent Events stream read by a client of its own). */
export async function checkResponse(app: Express | string, method: string, url: string, res: ResponseLike): Promise<void> {
  (await checkerFor(app)).check(method, url, res);
}
