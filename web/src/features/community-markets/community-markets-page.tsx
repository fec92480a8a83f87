import { useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api } from '../../lib/api/client';
import { useAccount } from '../../lib/account';
import { date, money } from '../../lib/format';
import { communityMarketHref, signInHref } from '../../lib/paths';
import { useDebounced } from '../../lib/use-debounced';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { InputField, SelectField } from '../../components/form-field';
import { CreateCommunityMarketForm } from './create-form';
import { CatalogueCategories, CATEGORY_LIST_ID } from './catalogue-categories';
import { leadingOutcome } from './leading-outcome';

const STATUSES = [
  ['active', 'Active'],
  ['resolved', 'Resolved'],
  ['all', 'All'],
] as const;
type Status = (typeof STATUSES)[number][0];

/** Community markets: a filtered list and, for a signed-in person, the create form. */
export function CommunityMarketsPage() {
  usePageTitle('Community markets');
  const [location] = useLocation();
  const account = useAccount();
  const [status, setStatus] = useState<Status>('active');
  const [category, setCategory] = useState('');
  const [mine, setMine] = useState(false);
  const [featured, setFeatured] = useState(false);
  const [creating, setCreating] = useState(false);
  const cat = useDebounced(category.trim(), 300);
  const me = account.data;
  const query = { status, featured, limit: 100, ...(cat ? { category: cat } : {}), ...(mine && me ? { creator: me.id } : {}) };
  // A page may end before 100 at the service's byte budget (docs/methods.md, Pages): the rest is a click away.
  const list = useInfiniteQuery({
    queryKey: ['get', '/api/user-markets', 'pages', query],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) => {
      const { data } = await api.GET('/api/user-markets', { params: { query: { ...query, ...(pageParam ? { cursor: pageParam } : {}) } }, signal });
      return data!;
    },
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const markets = list.data?.pages.flatMap((p) => p.markets) ?? [];
  return (
    <>
      <h1>Community markets</h1>
      <p>
        Questions people created, with their own outcomes. Each is priced by its own automated market maker, funded by its creator: buy an outcome with virtual
        dollars and its price moves with every trade. The creator resolves the market.
      </p>
      {me ? (
        creating ? (
          <CreateCommunityMarketForm />
        ) : (
          <button type="button" onClick={() => setCreating(true)}>
            Create a market
          </button>
        )
      ) : (
        <p>
          <Link href={signInHref(location)}>Sign in</Link> to create one.
        </p>
      )}
      {/* One list of the catalogue's categories for the page's two category fields (the filter and the create form). */}
      <CatalogueCategories />
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Status" value={status} onChange={(e) => setStatus(e.target.value as Status)} options={STATUSES} />
        <InputField label="Filter by category" value={category} onChange={(e) => setCategory(e.target.value)} placeholder="any" list={CATEGORY_LIST_ID} />
        <label className="check">
          <input type="checkbox" checked={featured} onChange={(e) => setFeatured(e.target.checked)} /> Featured only
        </label>
        {me ? (
          <label className="check">
            <input type="checkbox" checked={mine} onChange={(e) => setMine(e.target.checked)} /> Mine only
          </label>
        ) : null}
      </form>
      {list.isPending ? (
        <Loading what="community markets" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} />
      ) : markets.length === 0 ? (
        <p>No community markets match.</p>
      ) : (
        <ul className="market-list" aria-label="Community markets">
          {markets.map((m) => {
            const lead = leadingOutcome(m);
            return (
              <li key={m.id} className="market-card">
                <Link href={communityMarketHref(m.slug)} className="market-link">
                  {m.question}
                </Link>
                <p className="card-figures">
                  {lead ? (
                    <span className="card-chance" aria-label={`Chance of ${lead.outcome}`}>
                      <strong>{lead.percent}</strong> {lead.outcome}
                    </span>
                  ) : null}
                  <span aria-label="Volume">{money(m.volume)} vol.</span>
                </p>
                <p className="muted">
                  {m.category} · {m.outcomes.length} outcomes · {m.status === 'resolved' ? `resolved: ${m.resolvedOutcome ?? '—'}` : `ends ${date(m.endDate)}`}
                </p>
              </li>
            );
          })}
        </ul>
      )}
      {list.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'More community markets'}
        </button>
      ) : null}
    </>
  );
}
