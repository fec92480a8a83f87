import { useEffect, useState } from 'react';
import { $api } from '../../lib/api/client';
import { useDebounced } from '../../lib/use-debounced';
import { useUrlChoice } from '../../lib/url-state';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { MarketCard } from './market-card';
import { MarketBrowser } from './market-browser';
import { FirstVisit } from '../../components/first-visit';
import { MarketHighlights } from './market-highlights';
import { useMarketPages } from './market-pages';

/**
 * Markets home: search as you type (search_prediction_markets, at most 8 results), else movers, trending and the active
 * markets. The search term lives in the address (`/?q=rain`) once typing pauses: a reload, Back or a shared link
 * opens the same results.
 */
export function HomePage() {
  usePageTitle(undefined);
  const [inAddress, setInAddress] = useUrlChoice<string>('q', null, '');
  const [text, setText] = useState(inAddress);
  const q = useDebounced(text.trim(), 300);
  // The paused term goes to the address; an address that changes by itself (a link to /?q=…) fills the field.
  useEffect(() => {
    if (q !== inAddress) setInAddress(q);
  }, [q]);
  useEffect(() => {
    if (inAddress !== q) setText(inAddress);
  }, [inAddress]);
  const searching = q.length >= 2;
  const search = $api.useQuery('get', '/api/search', { params: { query: { q } } }, { enabled: searching, staleTime: 60_000 });
  // The most traded first page, which Trending and the browser show anyway: the first trade is suggested from it.
  const trending = useMarketPages('volume', '');
  return (
    <>
      <h1>Prediction markets</h1>
      <p>Trade real-world questions with virtual money. Prices are probabilities: 62¢ means the market thinks 62%.</p>
      <FirstVisit market={trending.data?.pages[0]?.markets[0]} />
      <div role="search" className="market-search">
        <label htmlFor="market-search">Search markets</label>
        <input
          id="market-search"
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="bitcoin, election, rain…"
          autoComplete="off"
        />
      </div>
      {searching ? (
        <section aria-labelledby="results-heading">
          <h2 id="results-heading">Results for “{q}”</h2>
          {search.isPending ? <Loading what="results" /> : null}
          {search.isError ? <ErrorMessage error={search.error} /> : null}
          {search.data && search.data.markets.length === 0 ? <p>No market matches “{q}”.</p> : null}
          {search.data && search.data.markets.length > 0 ? (
            <ul className="market-list" aria-label="Search results">
              {search.data.markets.map((m) => (
                <MarketCard key={m.id} market={m} />
              ))}
            </ul>
          ) : null}
        </section>
      ) : (
        <>
          <MarketHighlights />
          <MarketBrowser />
        </>
      )}
    </>
  );
}
