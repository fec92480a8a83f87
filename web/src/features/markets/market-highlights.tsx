import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { MarketCard } from './market-card';
import { useMarketPages, type MarketSort } from './market-pages';

const SHOWN = 4;

function Highlight({ sort, title, about, enabled = true }: { sort: MarketSort; title: string; about: string; enabled?: boolean }) {
  const markets = useMarketPages(sort, '', enabled);
  const id = `highlight-${sort}`;
  const list = markets.data?.pages[0]?.markets.slice(0, SHOWN) ?? [];
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p className="muted">{about}</p>
      {markets.isPending ? <Loading what={title.toLowerCase()} /> : null}
      {markets.isError ? <ErrorMessage error={markets.error} /> : null}
      {list.length > 0 ? (
        <ul className="market-list" aria-label={title}>
          {list.map((m) => (
            <MarketCard key={m.id} market={m} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * The home page's movers (largest 24 h moves) and trending (most traded) markets, above the full browser. The movers'
 * read waits for the trending one (the page's first read, which its HTML starts): on a cold load the two ran at once
 * and the service computed the movers while the first markets waited (bench:web).
 */
export function MarketHighlights() {
  const first = useMarketPages('volume', '');
  return (
    <div className="highlights">
      <Highlight sort="change24h" title="Movers" about="The biggest moves of the last 24 hours, up or down." enabled={!first.isPending} />
      <Highlight sort="volume" title="Trending" about="The most traded markets right now." />
    </div>
  );
}
