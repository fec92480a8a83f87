import type { Config } from '../config';
import { toJsonSchema } from '../documents/json-schema';
import { errorResponses, type PathItem } from '../documents/openapi-parts';
import { getMarketOdds } from '../methods/markets';

/** GET /markets/{slug} in the OpenAPI document: a page, negotiated, whose JSON is get_market_odds's result. */
export function marketPagePaths(_config: Config): Record<string, PathItem> {
  return {
    '/markets/{slug}': {
      get: {
        operationId: 'market_page',
        summary: 'Market page: JSON with Accept: application/json, markdown with text/markdown, else a plain HTML page',
        tags: ['Markets'],
        security: [],
        parameters: [{ name: 'slug', in: 'path', required: true, description: 'Market slug (or id).', schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The market with its odds, in the format asked for.',
            content: {
              'application/json': { schema: toJsonSchema(getMarketOdds.output, 'output') },
              'text/markdown': { schema: { type: 'string' } },
              'text/html': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(['NOT_FOUND'], { NOT_FOUND: 'no market with that slug or id' }),
        },
      },
    },
  };
}
