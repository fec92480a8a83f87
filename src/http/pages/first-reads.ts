import type { Request, Response } from 'express';
import { invoke, type InvokeDeps } from '../../registry/invoke';
import { callInfoFrom } from '../../transports/http-call';
import type { FirstRead } from '../../documents/page';
import { AppError } from '../../errors/app-error';

/** A read the web app makes first on a page: a registry method with a REST GET route, and its input as the app sends it. */
export interface PlannedRead {
  method: string;
  input: Record<string, string | number | boolean>;
}

/** The request the app sends for a read: the method's REST path with its parameters filled, the rest as the query string. */
export function hrefOf(path: string, input: PlannedRead['input']): string {
  const query = new URLSearchParams();
  const used = new Set<string>();
  const filled = path.replace(/:(\w+)/g, (_m, name: string) => {
    used.add(name);
    return encodeURIComponent(String(input[name] ?? ''));
  });
  for (const [k, v] of Object.entries(input)) if (!used.has(k)) query.set(k, String(v));
  const qs = query.toString();
  return qs ? `${filled}?${qs}` : filled;
}

/**
 * How long a page's first reads serve every request for the same reads: they are public reads, the same for every
 * caller, and a view rendered from them is kept as long (web-app.ts), so a popular page costs the service one set of
 * reads and one render a second, not one per visit.
 */
const FRESH_MS = 1000;
const MAX_KEPT = 500;
/** Per service (each app of a test process has its own database). */
const keptBy = new WeakMap<object, Map<string, { until: number; reads: FirstRead[] }>>();

/**
 * The page's first reads, made as the app would make them from this request (the REST call's pipeline and the address's
 * rate limit, anonymously: src/registry/invoke.ts), so the page can carry their answers and the app's first view can be drawn from them
 * (src/http/pages/web-app.ts). Undefined when any is refused (a rate limit, say): the page is then served without a
 * first view and the app reads for itself.
 */
export async function readFirst(deps: InvokeDeps, req: Request, res: Response, planned: readonly PlannedRead[]): Promise<FirstRead[] | undefined> {
  let kept = keptBy.get(deps.services);
  if (!kept) keptBy.set(deps.services, (kept = new Map()));
  const key = JSON.stringify(planned);
  const now = Date.now();
  const hit = kept.get(key);
  if (hit && hit.until > now) return hit.reads;
  const reads = await readNow(deps, req, res, planned);
  if (reads) {
    if (kept.size >= MAX_KEPT) for (const [k, v] of kept) if (v.until <= now || kept.size >= MAX_KEPT) kept.delete(k);
    kept.set(key, { until: now + FRESH_MS, reads });
  }
  return reads;
}

async function readNow(deps: InvokeDeps, req: Request, res: Response, planned: readonly PlannedRead[]): Promise<FirstRead[] | undefined> {
  try {
    return await Promise.all(
      planned.map(async ({ method: name, input }) => {
        const method = deps.services.registry.get(name);
        if (!method?.rest || method.rest.method !== 'GET') throw new Error(`${name} is not a REST read`);
        // As an anonymous caller (the request's address and rate limit, none of its credentials): the answer is shared
        // by every visitor for a second, so it must be the public one, never a replay run's (a run key scopes a call).
        const call = { ...callInfoFrom(req, res, 'rest', deps.services.config), credentials: { httpMethod: 'GET' } };
        const body = await invoke(deps, method, input, call);
        // The browser ages it against its own clock (the app's staleTime), so it is stamped with the wall clock.
        return { href: hrefOf(method.rest.path, input), body, at: Date.now() };
      }),
    );
  } catch (err) {
    if (err instanceof AppError) return undefined;
    throw err;
  }
}
