import { useId } from 'react';
import { $api } from '../../lib/api/client';
import { useUrlChoice } from '../../lib/url-state';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { MarketCard } from './market-card';
import { MARKET_SORTS, useMarketPages, type MarketSort } from './market-pages';

const SORTS = [
  { sort: 'volume', label: 'Most traded' },
  { sort: 'ending', label: 'Ending soon' },
  { sort: 'newest', label: 'Newest' },
  { sort: 'change24h', label: 'Biggest movers' },
] as const satisfies ReadonlyArray<{ sort: MarketSort; label: string }>;

/**
 * Active markets by volume, end date, age or 24 h move, optionally of one category, a page at a time (list_markets). The order
 * and category are in the address (?sort=ending&category=Crypto): Back and a shared link keep them.
 */
export function MarketBrowser() {
  const [sort, setSort] = useUrlChoice<MarketSort>('sort', MARKET_SORTS, 'volume');
  const [category, setCategory] = useUrlChoice<string>('category', null, '');
  const categoryId = useId();
  const markets = useMarketPages(sort, category);
  // The category list after the markets: the first markets drawn sooner, the choice filled a moment later.
  const categories = $api.useQuery('get', '/api/markets/categories', {}, { staleTime: 300_000, enabled: !markets.isPending });
  const list = markets.data?.pages.flatMap((p) => p.markets) ?? [];
  return (
    <section aria-labelledby="browse-heading">
      <h2 id="browse-heading">Active markets</h2>
      <div className="row">
        <div className="tabs" role="group" aria-label="Order">
          {SORTS.map((s) => (
            <button key={s.sort} type="button" className="secondary" aria-pressed={sort === s.sort} onClick={() => setSort(s.sort)}>
              {s.label}
            </button>
          ))}
        </div>
        <div className="row">
          <label htmlFor={categoryId}>Category</label>
          <select id={categoryId} value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="">All categories</option>
            {categories.data?.categories.map((c) => (
              <option key={c.category} value={c.category}>
                {c.category} ({c.activeMarkets})
              </option>
            ))}
          </select>
        </div>
      </div>
      {categories.isError ? <ErrorMessage error={categories.error} /> : null}
      {markets.isPending ? <Loading what="markets" /> : null}
      {markets.isError ? <ErrorMessage error={markets.error} /> : null}
      {markets.isSuccess && list.length === 0 ? <p>No active markets here yet.</p> : null}
      {list.length > 0 ? (
        <ul className="market-list" aria-label="Markets">
          {list.map((m) => (
            <MarketCard key={m.id} market={m} />
          ))}
        </ul>
      ) : null}
      {markets.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void markets.fetchNextPage()} disabled={markets.isFetchingNextPage}>
          {markets.isFetchingNextPage ? 'Loading…' : 'Show more markets'}
        </button>
      ) : null}
    </section>
  );
}
