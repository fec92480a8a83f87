import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../lib/api/client';

export const MARKET_SORTS = ['volume', 'ending', 'newest', 'change24h'] as const;
export type MarketSort = (typeof MARKET_SORTS)[number];

const PAGE = 20;

/** The cache key of one order's pages: the service seeds the first page of the home's order under it (app/first-reads.ts). */
export const marketPagesKey = (sort: MarketSort, category: string) => ['markets', sort, category] as const;

/**
 * Active markets in one order (list_markets, with each card's sparkline in the same read), a page at a time. The home
 * page's sections and its browser share these queries: "Trending" is the first page the browser shows by default, so
 * it costs no call of its own. `enabled` false holds the read back (pending) until the page wants it.
 */
export function useMarketPages(sort: MarketSort, category: string, enabled = true) {
  return useInfiniteQuery({
    enabled,
    queryKey: marketPagesKey(sort, category),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) => {
      const { data } = await api.GET('/api/markets', {
        params: {
          query: { status: 'active', sort, limit: PAGE, sparkline: true, ...(category ? { category } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
        },
        signal,
      });
      return data!;
    },
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    staleTime: 60_000,
  });
}
