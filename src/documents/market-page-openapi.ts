import type { Config } from '../config';
import { negotiatedPagePath } from './negotiated-page-openapi';
import type { PathItem } from './openapi-parts';
import { getMarketOdds } from '../methods/markets';

/** GET /markets/{slug} in the OpenAPI document: a negotiated page whose JSON is get_market_odds's result. */
export function marketPagePaths(_config: Config): Record<string, PathItem> {
  return negotiatedPagePath({
    path: '/markets/{slug}',
    operationId: 'market_page',
    title: 'Market page',
    tag: 'Markets',
    shows: 'The market with its odds',
    noun: 'market',
    output: getMarketOdds.output,
  });
}
