import { useParams } from 'wouter';
import { $api } from '../../lib/api/client';
import { age, cents, money } from '../../lib/format';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

/** One market: its question, prices and where they come from. */
export function MarketPage() {
  const { slug = '' } = useParams<{ slug: string }>();
  const market = $api.useQuery('get', '/api/markets/{idOrSlug}', { params: { path: { idOrSlug: slug } } });
  usePageTitle(market.data?.question);
  if (market.isPending) return <Loading what="the market" />;
  if (market.isError) return <ErrorMessage error={market.error} />;
  const m = market.data;
  return (
    <article>
      <h1>{m.question}</h1>
      <p>
        {m.category ?? 'Uncategorised'} · volume {money(m.volume)} · prices {age(m.odds.ageSeconds)} old
      </p>
      <p>
        YES {cents(m.odds.yes.mid)} · NO {cents(m.odds.no.mid)}
      </p>
    </article>
  );
}
