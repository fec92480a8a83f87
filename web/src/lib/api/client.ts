import createFetchClient, { type Middleware } from 'openapi-fetch';
import createQueryClient from 'openapi-react-query';
import type { paths } from './schema';
import { ApiError } from './api-error';

/**
 * Every non-2xx answer becomes an ApiError (status, code, message, hint, Retry-After), thrown, so
 * TanStack Query and mutations see one error type; a failed fetch becomes a NETWORK_ERROR.
 */
export const apiErrors: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await ApiError.fromResponse(response);
    return undefined;
  },
  onError({ error }) {
    return error instanceof ApiError ? error : ApiError.network(error);
  },
};

/** The page's origin; on the server, which renders a page's first view (entry-server.tsx) and reads nothing, a placeholder. */
export const pageOrigin = () => (typeof window === 'undefined' ? 'http://localhost' : window.location.origin);

/**
 * The one typed client of the public REST API, generated from the registry's OpenAPI document
 * (schema.d.ts). Same origin: the browser sends the session cookie and an Origin header on writes, which
 * is what the service's CSRF rule asks of cookie-authenticated writes.
 */
export const api = createFetchClient<paths>({ baseUrl: pageOrigin(), credentials: 'same-origin' });
api.use(apiErrors);

/** TanStack Query hooks over the same client: `$api.useQuery('get', '/api/positions')`. */
export const $api = createQueryClient(api);

export type { paths };
/** The JSON body of a path's 200 answer, e.g. `Ok<'/api/user/me', 'get'>`: types always come from the document. */
export type Ok<P extends keyof paths, M extends 'get' | 'post'> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer T } } } }
  ? T
  : never;
