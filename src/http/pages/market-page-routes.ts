import type { Router } from 'express';
import type { InvokeDeps } from '../../registry/invoke';
import { negotiatedPageRouter } from './negotiated-page';
import { publicOriginOf } from '../../transports/public-origin';
import type { Block, HtmlRenderer, Inline, Page } from '../../documents/page';
import type { MarketOdds, Quote } from '../../market-data/market-service';
import type { PlannedRead } from './first-reads';

const pct = (p: number | null | undefined) => (p === null || p === undefined ? 'n/a' : `${(p * 100).toFixed(1)}%`);
const px = (p: number | null) => (p === null ? 'n/a' : p.toFixed(3));
const book = (q: Quote) => `${pct(q.mid)} (bid ${px(q.bid)}, ask ${px(q.ask)})`;
const usd = (v: number | null) => (v === null ? 'unknown' : `$${v.toLocaleString('en-US', { maximumFractionDigits: 2 })}`);

/** The market as a page: what it asks, its odds and state, where its data comes from, and how to trade it. */
export function marketPage(m: MarketOdds, baseUrl: string): Page {
  const yes = m.outcomeTokens.find((t) => t.outcome === 'YES');
  const no = m.outcomeTokens.find((t) => t.outcome === 'NO');
  const notice: Inline[] = m.simulated
    ? [{ strong: 'Simulated market.' }, " Its prices and outcome come from this service's built-in simulated venue, not from a real exchange."]
    : ['Mirrored from Polymarket on a delay; this service is not the venue and this is not its official feed.'];
  const state =
    m.status === 'resolved'
      ? `resolved ${m.winner}${m.resolvedAt ? ` on ${m.resolvedAt}` : ''}`
      : m.status === 'closed'
        ? 'closed, awaiting resolution'
        : 'active';
  const blocks: Block[] = [
    { heading: 1, text: m.question },
    { quote: notice },
    {
      list: [
        [{ strong: 'Status' }, ': ', state],
        [{ strong: 'YES' }, ': ', book(m.odds.yes)],
        [{ strong: 'NO' }, ': ', book(m.odds.no)],
        [
          { strong: 'Prices' },
          ': ',
          m.odds.live ? 'live' : 'last mirrored',
          m.odds.ageSeconds === null ? '' : `, ${m.odds.ageSeconds} s old`,
          m.odds.asOf ? ` (as of ${m.odds.asOf})` : '',
        ],
        [{ strong: 'Volume' }, ': ', usd(m.volume)],
        [{ strong: 'Ends' }, ': ', m.endDate ?? 'unknown'],
        [{ strong: 'Category' }, ': ', m.category ?? 'none'],
      ],
    },
  ];
  if (m.description) blocks.push({ heading: 2, text: 'Resolution' }, { paragraph: [m.description] });
  blocks.push(
    { heading: 2, text: 'Trade it (virtual money)' },
    {
      list: [
        ['marketId: ', { code: m.id }],
        ['marketSlug: ', { code: m.slug }],
        ['YES tokenId: ', { code: yes?.tokenId ?? 'n/a' }],
        ['NO tokenId: ', { code: no?.tokenId ?? 'n/a' }],
      ],
    },
    {
      paragraph: [
        'POST ',
        { code: '/api/trade' },
        ' with these and an amount, using your API key. Data: ',
        { link: 'JSON', href: `${baseUrl}/api/markets/${encodeURIComponent(m.slug)}` },
        ', ',
        { link: 'YES price history', href: `${baseUrl}/api/price-history?tokenId=${encodeURIComponent(yes?.tokenId ?? '')}&interval=1w` },
        '.',
      ],
    },
  );
  // The web app on this page reads the market, then the YES price history, and draws it with the chart module: all three
  // start with the HTML (the reads exactly as the app sends them: market-page.tsx, price-chart.tsx).
  const preload = [`/api/markets/${encodeURIComponent(m.slug)}`];
  if (yes?.tokenId) preload.push(`/api/price-history?tokenId=${encodeURIComponent(yes.tokenId)}&interval=1w`);
  return {
    title: `${m.question}${m.simulated ? ' (simulated)' : ''}`,
    blocks,
    preload,
    ...(yes?.tokenId ? { modules: ['src/components/price-chart.tsx'] } : {}),
  };
}

/**
 * What the web app reads first on a market's page (market-page.tsx, price-chart.tsx), exactly so: the market by the
 * address's id or slug, and its YES price history over a week.
 */
export function marketReads(m: MarketOdds, idOrSlug: string): PlannedRead[] {
  const yes = m.outcomeTokens.find((t) => t.outcome === 'YES');
  const reads: PlannedRead[] = [{ method: 'get_market_odds', input: { idOrSlug } }];
  if (yes?.tokenId) reads.push({ method: 'get_price_history', input: { tokenId: yes.tokenId, interval: '1w' } });
  return reads;
}

/**
 * GET /markets/{slug} (also by id): JSON for Accept: application/json, markdown for text/markdown, a
 * plain HTML page otherwise. A page, not an API method: it reads the same MarketService the
 * get_market_odds method does.
 */
export function marketPageRouter(deps: InvokeDeps, html?: HtmlRenderer): Router {
  return negotiatedPageRouter(
    '/markets/:slug',
    (slug) => deps.services.markets.odds(slug),
    (market, base) => marketPage(market, base),
    (market, base) => `${base}/markets/${encodeURIComponent(market.slug)}`,
    (req) => publicOriginOf(req, deps.services.config),
    html,
    { deps, reads: marketReads },
  );
}
