import type { QueryClient } from '@tanstack/react-query';
import { $api } from '../lib/api/client';
import { MARKET_SORTS, marketPagesKey, type MarketSort } from '../features/markets/market-pages';

/**
 * A read the service made for a page while it served the page's HTML (src/http/pages/first-reads.ts): the API request
 * as the app sends it, its JSON answer, and when it was read (ms since the epoch). The server renders the page's first
 * view from these (entry-server.tsx) and puts them in the page, so the app starts with the same answers instead of
 * asking again.
 */
export interface FirstRead {
  href: string;
  body: unknown;
  at: number;
}

/** Where the page carries them: a JSON data block, which no Content-Security-Policy treats as a script. */
export const FIRST_READS_ID = 'first-reads';

/**
 * The query a first read answers, under the key the page's own hook reads (market-pages.ts, market-page.tsx,
 * price-chart.tsx), or undefined for a request no page starts with. An infinite list's first page goes in as its pages.
 */
function cached(read: FirstRead): { key: readonly unknown[]; data: unknown } | undefined {
  const url = new URL(read.href, 'http://page');
  const q = url.searchParams;
  if (url.pathname === '/api/markets') {
    const sort = (q.get('sort') ?? 'volume') as MarketSort;
    if (!MARKET_SORTS.includes(sort) || q.get('cursor')) return undefined;
    return { key: marketPagesKey(sort, q.get('category') ?? ''), data: { pages: [read.body], pageParams: [undefined] } };
  }
  const market = /^\/api\/markets\/([^/]+)$/.exec(url.pathname);
  if (market) {
    const idOrSlug = decodeURIComponent(market[1]!);
    return { key: $api.queryOptions('get', '/api/markets/{idOrSlug}', { params: { path: { idOrSlug } } }).queryKey, data: read.body };
  }
  if (url.pathname === '/api/price-history') {
    const tokenId = q.get('tokenId') ?? '';
    const interval = (q.get('interval') ?? '1w') as '1w';
    return { key: $api.queryOptions('get', '/api/price-history', { params: { query: { tokenId, interval } } }).queryKey, data: read.body };
  }
  return undefined;
}

/** Puts each first read in the cache as of when the service made it, so it goes stale on the page's usual schedule. */
export function seedFirstReads(client: QueryClient, reads: readonly FirstRead[]): void {
  for (const read of reads) {
    const entry = cached(read);
    if (entry) client.setQueryData(entry.key, entry.data, { updatedAt: read.at });
  }
}

/** The reads the page's HTML carries (none when the service rendered no first view). */
export function firstReadsOf(doc: Document): FirstRead[] {
  const text = doc.getElementById(FIRST_READS_ID)?.textContent;
  if (!text) return [];
  try {
    const reads = JSON.parse(text) as unknown;
    return Array.isArray(reads) ? (reads as FirstRead[]) : [];
  } catch {
    return [];
  }
}
