import { createHash } from 'node:crypto';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { isRevalidatable, type AnyMethod } from '../registry/method';
import type { Registry } from '../registry/registry';
import { invoke, type InvokeDeps } from '../registry/invoke';
import { declaredType, inputSchemaOf, type JsonSchema } from '../documents/json-schema';
import { byteLength, jsonBody, type JsonBody } from './json-body';
import { applyVocabulary, callInfoFrom, SESSION_COOKIE } from './http-call';
import { AppError } from '../errors/app-error';
import type { CallInfo } from '../registry/context';

type Coercer = (query: Record<string, unknown>) => Record<string, unknown>;

/** Query strings carry text: turn each declared number/boolean/array property into its type, once-built per method. */
function queryCoercer(method: AnyMethod): Coercer {
  const props = (inputSchemaOf(method).properties ?? {}) as Record<string, JsonSchema>;
  const kinds = Object.entries(props).map(([k, s]) => [k, declaredType(s)] as const);
  return (query) => {
    const out: Record<string, unknown> = { ...query };
    for (const [key, type] of kinds) {
      const v = out[key];
      if (typeof v !== 'string') continue;
      if ((type === 'number' || type === 'integer') && v.trim() !== '' && !Number.isNaN(Number(v))) out[key] = Number(v);
      else if (type === 'boolean' && (v === 'true' || v === 'false')) out[key] = v === 'true';
      // A list in a query string: repeated (?types=a&types=b, already an array) or comma-separated (?types=a,b).
      else if (type === 'array') out[key] = v.split(',');
    }
    return out;
  };
}

/** One express route per registry method with a `rest` binding: query, body and path params merge into the input. */
export function restRouter(registry: Registry, deps: InvokeDeps): Router {
  const router = express.Router();
  const allowed = new Map<string, Set<string>>();
  for (const method of byFixedPathsFirst(registry.methods)) {
    if (!method.rest) continue;
    const { path, status = 200 } = method.rest;
    const verb = method.rest.method;
    const coerce = queryCoercer(method);
    const revalidatable = isRevalidatable(method);
    const handler = async (req: Request, res: Response, next: NextFunction) => {
      try {
        const call = callInfoFrom(req, res, 'rest', deps.services.config);
        const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : req.body === undefined ? {} : req.body;
        const input = Array.isArray(body) || typeof body !== 'object' ? body : { ...coerce(req.query as Record<string, unknown>), ...body, ...req.params };
        const answer = revalidatable ? new TaggedAnswer() : undefined;
        const held = req.get('if-none-match');
        if (answer && held) call.holds = (result) => etagMatches(held, answer.of(result).etag);
        const result = await invoke(deps, method, input, call);
        applyEffects(res, call);
        if (answer) {
          // Same for every caller: any cache may keep it, but asks again each time (a browser sends If-None-Match).
          res.setHeader('ETag', answer.of(result).etag);
          res.setHeader('Cache-Control', 'no-cache');
          if (call.effects?.notModified) {
            res.status(304).end();
            return;
          }
        }
        // What res.json would send (same bytes and Content-Type), with a frozen result's bytes reused.
        sendJson(res.status(status), answer ? answer.of(result).body : jsonBody(result));
      } catch (err) {
        // The error body's docs link is this method's section (src/http/error-handler.ts), not the whole llms-full.txt.
        res.locals.method = method;
        next(err);
      }
    };
    router[verb === 'GET' ? 'get' : verb === 'POST' ? 'post' : 'delete'](path, handler);
    if (!allowed.has(path)) allowed.set(path, new Set());
    allowed.get(path)!.add(verb);
  }
  for (const [path, verbs] of allowed) router.all(path, methodNotAllowed([...verbs]));
  return router;
}

/** Entity tags of results the domain has frozen (served again as they are, see jsonBody): digested once. */
const frozenTags = new WeakMap<object, string>();

/** A result's JSON bytes and their entity tag (a digest of the bytes), made once per request however often asked. */
class TaggedAnswer {
  private made?: { result: unknown; body: JsonBody; etag: string };

  of(result: unknown): { body: JsonBody; etag: string } {
    if (!this.made || this.made.result !== result) {
      const body = jsonBody(result);
      const frozen = result !== null && typeof result === 'object' && Object.isFrozen(result);
      let etag = frozen ? frozenTags.get(result) : undefined;
      if (etag === undefined) {
        const hash = createHash('sha256');
        for (const part of typeof body === 'string' || Buffer.isBuffer(body) ? [body] : body) hash.update(part);
        etag = `"${hash.digest('base64url').slice(0, 32)}"`;
        if (frozen) frozenTags.set(result, etag);
      }
      this.made = { result, body, etag };
    }
    return this.made;
  }
}

/** A JSON body sent as res.json would send it; one in parts is written part after part (no copy joins them). */
function sendJson(res: Response, body: JsonBody): void {
  res.type('application/json');
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.send(body);
    return;
  }
  res.setHeader('Content-Length', byteLength(body));
  for (const part of body as readonly Buffer[]) res.write(part);
  res.end();
}

/** If-None-Match against an entity tag: `*`, or any listed tag equal under the weak comparison (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Methods in registry order, except that a route with fewer :params comes first: GET /api/markets/categories
 * must be matched before GET /api/markets/:idOrSlug takes "categories" for a slug.
 */
function byFixedPathsFirst(methods: readonly AnyMethod[]): AnyMethod[] {
  const params = (m: AnyMethod) => (m.rest?.path.match(/:\w+/g) ?? []).length;
  return [...methods].sort((a, b) => params(a) - params(b));
}

export function methodNotAllowed(verbs: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Allow', verbs.join(', '));
    next(
      new AppError('METHOD_NOT_ALLOWED', `Method ${req.method} is not allowed on ${req.path}; use ${verbs.join(' or ')}.`, {
        hint: 'See /openapi.json for the operations of this path.',
      }),
    );
  };
}

/**
 * What a method asked for beside its answer: session cookie changes (Secure when the address the caller reached is
 * https), and Idempotent-Replayed: true on a stored answer replayed for a repeated Idempotency-Key.
 */
export function applyEffects(res: Response, call: CallInfo): void {
  applyVocabulary(res, call.vocabulary);
  const { effects } = call;
  if (!effects) return;
  const secure = call.address.origin.startsWith('https://');
  if (effects.setSession) {
    res.cookie(SESSION_COOKIE, effects.setSession.token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: effects.setSession.maxAgeS * 1000 });
  }
  if (effects.clearSession) res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  if (effects.replayed) res.setHeader('Idempotent-Replayed', 'true');
}
