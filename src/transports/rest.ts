import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import type { AnyMethod } from '../registry/method';
import type { Registry } from '../registry/registry';
import { invoke, type InvokeDeps } from '../registry/invoke';
import { declaredType, inputSchemaOf, type JsonSchema } from '../documents/json-schema';
import { jsonBody } from './json-body';
import { callInfoFrom, SESSION_COOKIE } from './http-call';
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
    const handler = async (req: Request, res: Response, next: NextFunction) => {
      try {
        const call = callInfoFrom(req, res, 'rest', deps.services.config);
        const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : req.body === undefined ? {} : req.body;
        const input = Array.isArray(body) || typeof body !== 'object' ? body : { ...coerce(req.query as Record<string, unknown>), ...body, ...req.params };
        const result = await invoke(deps, method, input, call);
        applyEffects(res, call);
        // What res.json would send (same bytes and Content-Type), with a frozen result's text reused.
        res.status(status).type('application/json').send(jsonBody(result));
      } catch (err) {
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
  const { effects } = call;
  if (!effects) return;
  const secure = call.address.origin.startsWith('https://');
  if (effects.setSession) {
    res.cookie(SESSION_COOKIE, effects.setSession.token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: effects.setSession.maxAgeS * 1000 });
  }
  if (effects.clearSession) res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  if (effects.replayed) res.setHeader('Idempotent-Replayed', 'true');
}
