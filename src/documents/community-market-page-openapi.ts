import type { Config } from '../config';
import { negotiatedPagePath } from './negotiated-page-openapi';
import type { PathItem } from './openapi-parts';
import { getCommunityMarket } from '../methods/community';

/** GET /community-markets/{slug} in the OpenAPI document: a negotiated page whose JSON is get_community_market's result. */
export function communityMarketPagePaths(_config: Config): Record<string, PathItem> {
  return negotiatedPagePath({
    path: '/community-markets/{slug}',
    operationId: 'community_market_page',
    title: 'Community market page',
    tag: 'Community markets',
    shows: 'The community market',
    noun: 'community market',
    output: getCommunityMarket.output,
  });
}
