import type { Config } from '../config';
import { toJsonSchema } from '../documents/json-schema';
import { errorResponses, type PathItem } from '../documents/openapi-parts';
import { getCommunityMarket } from '../methods/community';

/** GET /community-markets/{slug} in the OpenAPI document: a page, negotiated, whose JSON is get_community_market's result. */
export function communityMarketPagePaths(_config: Config): Record<string, PathItem> {
  return {
    '/community-markets/{slug}': {
      get: {
        operationId: 'community_market_page',
        summary: 'Community market page: JSON with Accept: application/json, markdown with text/markdown, else a plain HTML page',
        tags: ['Community markets'],
        security: [],
        parameters: [{ name: 'slug', in: 'path', required: true, description: 'Community market slug (or id).', schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The community market, in the format asked for.',
            content: {
              'application/json': { schema: toJsonSchema(getCommunityMarket.output, 'output') },
              'text/markdown': { schema: { type: 'string' } },
              'text/html': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(['NOT_FOUND'], { NOT_FOUND: 'no community market with that slug or id' }),
        },
      },
    },
  };
}
