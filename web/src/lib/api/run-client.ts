import createFetchClient from 'openapi-fetch';
import createQueryClient from 'openapi-react-query';
import type { paths } from './schema';
import { apiErrors, pageOrigin } from './client';

/**
 * A client of the same public API that acts inside one replay run: every call carries the run's key (start_replay's
 * apiKey) as a bearer, and no cookie, so the service serves it on the run's clock and venue and never on the person's
 * own account. Its queries belong in a query cache of their own (the replay page gives the run one), so a run's markets
 * never stand in for the live ones under the same path.
 */
export function runClient(apiKey: string) {
  const api = createFetchClient<paths>({
    baseUrl: pageOrigin(),
    credentials: 'omit',
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  api.use(apiErrors);
  return { api, $api: createQueryClient(api) };
}

export type RunClient = ReturnType<typeof runClient>;
