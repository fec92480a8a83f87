import type { Router } from 'express';
import type { InvokeDeps } from '../../registry/invoke';
import { negotiatedPageRouter } from './negotiated-page';
import { publicOriginOf } from '../../transports/public-origin';
import type { Block, HtmlRenderer, Page } from '../../documents/page';
import type { PricedCommunityMarket } from '../../domain/community/community-market-service';

/** A community market as a page: the question, its outcomes with the market maker's prices, its state, and what it is. */
export function communityMarketPage(m: PricedCommunityMarket, baseUrl: string): Page {
  const state = m.status === 'resolved' ? `resolved: ${m.resolvedOutcome ?? 'unknown'}` : 'active';
  const blocks: Block[] = [
    { heading: 1, text: m.question },
    {
      quote: [
        { strong: 'Community market.' },
        m.outcomeTokens.length
          ? ' Created by a user of this service with its own outcome labels and priced by its own automated market maker (LMSR); trade it with buy_community_shares, not paper_trade.'
          : ' Created by a user of this service with its own outcome labels before community markets traded; it has no market maker and cannot be traded.',
      ],
    },
    {
      list: [
        [{ strong: 'Status' }, ': ', state],
        [
          { strong: 'Outcomes' },
          ': ',
          m.outcomeTokens.length
            ? m.outcomeTokens.map((o) => `${o.outcome} ${(o.price * 100).toFixed(1)}% (token ${o.tokenId})`).join(', ')
            : m.outcomes.join(', '),
        ],
        ...(m.liquidity !== null
          ? [[{ strong: 'Market maker' }, ': ', `liquidity ${m.liquidity} dollars, pool cash ${m.poolCash}, volume ${m.volume}, ${m.tradeCount} trades`]]
          : []),
        ...(m.creatorTrades ? [[{ strong: 'Creator trades' }, ': ', 'yes: the creator also trades this market, and decides its resolution']] : []),
        [{ strong: 'Track record' }, ': ', m.creatorTradesNote],
        ...(m.voidReason ? [[{ strong: 'Void reason' }, ': ', m.voidReason]] : []),
        [{ strong: 'Category' }, ': ', m.category],
        [{ strong: 'Ends' }, ': ', m.endDate],
        [{ strong: 'Created' }, ': ', m.createdAt, ' by user ', { code: m.creatorId }],
      ],
    },
  ];
  if (m.description) blocks.push({ heading: 2, text: 'Resolution' }, { paragraph: [m.description] });
  blocks.push({
    paragraph: ['Data: ', { link: 'JSON', href: `${baseUrl}/community-markets/${encodeURIComponent(m.slug)}` }, ' (Accept: application/json).'],
  });
  // The web app's page for it is its own chunk: fetched with the HTML.
  return { title: `${m.question} (community market)`, blocks, modules: ['src/features/community-markets/community-market-page.tsx'] };
}

/**
 * GET /community-markets/{slug} (also by id), where a community market's slug lives: JSON for
 * Accept: application/json, markdown for text/markdown, a plain HTML page otherwise. A page, not an API
 * method: it reads the same CommunityMarketService the get_community_market method does.
 */
export function communityMarketPageRouter(deps: InvokeDeps, html?: HtmlRenderer): Router {
  return negotiatedPageRouter(
    '/community-markets/:slug',
    (slug) => deps.services.community.bySlug(slug),
    (market, base) => communityMarketPage(market, base),
    (market, base) => `${base}/community-markets/${encodeURIComponent(market.slug)}`,
    (req) => publicOriginOf(req, deps.services.config),
    html,
  );
}
