import type { z } from 'zod';
import { toJsonSchema } from './json-schema';
import { errorResponses, type PathItem } from './openapi-parts';

/**
 * The OpenAPI entry of a page served by negotiatedPageRouter (src/http/pages/negotiated-page.ts): GET only, public,
 * JSON for Accept: application/json (the given registry method's output), markdown for text/markdown,
 * plain HTML otherwise; 404 when the slug names nothing.
 */
export function negotiatedPagePath(page: {
  /** OpenAPI path with a {slug} parameter. */
  path: string;
  operationId: string;
  /** What the page shows, e.g. "Market page". */
  title: string;
  tag: string;
  /** The 200 answer, e.g. "The market with its odds". */
  shows: string;
  /** What the slug names, e.g. "market": used in the parameter and 404 texts. */
  noun: string;
  /** The registry method whose result is the page's JSON. */
  output: z.ZodType;
}): Record<string, PathItem> {
  return {
    [page.path]: {
      get: {
        operationId: page.operationId,
        summary: `${page.title}: JSON with Accept: application/json, markdown with text/markdown, else a plain HTML page`,
        tags: [page.tag],
        security: [],
        parameters: [
          {
            name: 'slug',
            in: 'path',
            required: true,
            description: `${page.noun[0]!.toUpperCase()}${page.noun.slice(1)} slug (or id).`,
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: `${page.shows}, in the format asked for.`,
            content: {
              'application/json': { schema: toJsonSchema(page.output, 'output') },
              'text/markdown': { schema: { type: 'string' } },
              'text/html': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(['NOT_FOUND'], { NOT_FOUND: `no ${page.noun} with that slug or id` }),
        },
      },
    },
  };
}
