import { lazy, Suspense, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { $api, api } from '../../lib/api/client';
import { useAccount } from '../../lib/account';
import { date, dateTime } from '../../lib/format';
import { PATHS, traderHref } from '../../lib/paths';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { MarketNotFoundPage } from '../../components/not-found-page';
import { asApiError } from '../../lib/api/api-error';
import { Loading } from '../../components/loading';
import { cents, money, shares } from '../../lib/format';
import { CommunityTradeTicket } from './community-trade-ticket';
import { MarketDiscussion } from '../../components/market-discussion';
import { OutcomeBanner } from '../../components/outcome-banner';
import { ShareButton } from '../../components/share-button';
import { useRefreshAfterTrade } from '../../lib/portfolio';
import { MarketPosition } from '../../components/market-position';

const PriceChart = lazy(() => import('../../components/price-chart'));

/** One community market: question, criteria, outcomes, status; its creator can resolve it. */
export function CommunityMarketPage() {
  const { slug } = useParams<{ slug: string }>();
  const market = $api.useQuery('get', '/api/user-markets/{slug}', { params: { path: { slug } } });
  const account = useAccount();
  const [selected, setSelected] = useState(0);
  const client = useQueryClient();
  usePageTitle(market.data?.question ?? 'Community market');
  if (market.isPending) return <Loading what="the market" />;
  if (market.isError) return asApiError(market.error).notFound ? <MarketNotFoundPage community /> : <ErrorMessage error={market.error} />;
  const m = market.data;
  const isCreator = account.data?.id === m.creatorId;
  const tokens = m.outcomeTokens;
  const chosen = tokens[Math.min(selected, tokens.length - 1)];
  const open = m.status === 'active' && Date.parse(m.endDate) > Date.now();
  const signedIn = account.data !== undefined && account.data !== null;
  // Every trade and sale moves every outcome's price: read the market and the chart again.
  const traded = () => {
    void market.refetch();
    void client.invalidateQueries({ queryKey: ['get', '/api/price-history'] });
  };
  return (
    <>
      <p>
        <Link href={PATHS.communityMarkets}>← Community markets</Link>
      </p>
      <h1>{m.question}</h1>
      <p className="muted">
        {m.category} · {m.status === 'resolved' ? 'resolved' : `ends ${dateTime(m.endDate)}`} · created {date(m.createdAt)} by{' '}
        <Link href={traderHref(m.creatorId)}>{isCreator ? 'you' : <CreatorName id={m.creatorId} />}</Link>{' '}
        <ShareButton path={`${PATHS.communityMarkets}/${encodeURIComponent(m.slug)}`} title={m.question} what="this market" />
      </p>
      {m.status === 'resolved' ? (
        <OutcomeBanner
          outcome={m.resolvedOutcome ?? 'VOID'}
          resolvedAt={null}
          paid={
            m.resolvedOutcome === 'VOID' || !m.resolvedOutcome
              ? `Voided${m.voidReason ? `: ${m.voidReason}` : ''}.`
              : `Each ${m.resolvedOutcome} share paid $1.`
          }
        />
      ) : null}
      <h2>Resolution criteria</h2>
      <p className="pre-line">{m.description || 'None given.'}</p>
      {m.creatorTrades ? (
        <p className="notice" role="note">
          The creator of this market also trades it, and decides how it resolves.
        </p>
      ) : null}
      <p className="muted">{m.creatorTradesNote}</p>
      <h2>Outcomes</h2>
      <ul aria-label="Outcomes">
        {m.outcomes.map((o) => {
          const token = tokens.find((t) => t.outcome === o);
          return (
            <li key={o}>
              {o}
              {token && m.status === 'active' ? ` · ${cents(token.price)}` : null}
              {m.resolvedOutcome === o ? ' (winner)' : null}
            </li>
          );
        })}
      </ul>
      {m.liquidity !== null ? (
        <p className="muted">
          Priced by an automated market maker (LMSR) funded with {money(m.liquidity)} by its creator · volume {money(m.volume)} · {m.tradeCount} trades
        </p>
      ) : null}
      {tokens.length && open ? (
        <CommunityTradeTicket
          market={m}
          tokens={tokens}
          signedIn={signedIn}
          selected={Math.min(selected, tokens.length - 1)}
          onSelect={setSelected}
          onTraded={traded}
        />
      ) : null}
      {signedIn ? <MarketPosition marketId={m.id} onSold={traded} /> : null}
      {tokens.length ? <Holders tokens={tokens} /> : null}
      {chosen ? (
        <Suspense fallback={<Loading what="the chart" />}>
          <PriceChart key={chosen.tokenId} tokenId={chosen.tokenId} outcome={chosen.outcome} />
        </Suspense>
      ) : null}
      {isCreator && m.status === 'active' ? <ResolveForm id={m.id} slug={m.slug} outcomes={m.outcomes} ended={!open} /> : null}
      <MarketDiscussion marketId={m.id} signedIn={signedIn} canHide={isCreator} outcomes={m.outcomes} />
    </>
  );
}

/** Who holds each outcome now, as Manifold's holders tab shows it: how many accounts and how many shares. */
function Holders({ tokens }: { tokens: ReadonlyArray<{ tokenId: string; outcome: string; holders: number; shares: number }> }) {
  return (
    <table className="holders">
      <caption>Holders</caption>
      <thead>
        <tr>
          <th scope="col">Outcome</th>
          <th scope="col">Holders</th>
          <th scope="col">Shares held</th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((t) => (
          <tr key={t.tokenId}>
            <th scope="row">{t.outcome}</th>
            <td>{t.holders}</td>
            <td>{shares(t.shares)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The creator's public display name (as text), or a neutral word while it loads or when the profile is gone. */
function CreatorName({ id }: { id: string }) {
  const stats = $api.useQuery('get', '/api/user/stats', { params: { query: { userId: id } } });
  return <>{stats.data?.user.displayName ?? 'its creator'}</>;
}

function ResolveForm({ id, slug, outcomes, ended }: { id: string; slug: string; outcomes: string[]; ended: boolean }) {
  // Before its end date a market can only be voided, with a reason (resolve_community_market).
  const [outcome, setOutcome] = useState(ended ? '' : 'VOID');
  const [reason, setReason] = useState('');
  const client = useQueryClient();
  const refreshAfterTrade = useRefreshAfterTrade();
  const needsReason = !ended && outcome === 'VOID';
  const resolve = useMutation({
    mutationFn: () =>
      api
        .POST('/api/user-markets/{id}/resolve', {
          params: { path: { id } },
          body: outcome === 'VOID' && reason.trim() ? { outcome, reason: reason.trim() } : { outcome },
        })
        .then((r) => r.data!),
    onSuccess: async (resolved) => {
      const key = ['get', '/api/user-markets/{slug}', { params: { path: { slug } } }];
      // A read of the market already in flight (a trade's or a refocus's refetch) would land after this and show it unresolved.
      await client.cancelQueries({ queryKey: key });
      client.setQueryData(key, resolved);
      // Resolving settles every position and returns the market maker's cash to its creator: balance, positions and the list change.
      await Promise.all([client.invalidateQueries({ queryKey: ['get', '/api/user-markets'] }), refreshAfterTrade()]);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (outcome && (!needsReason || reason.trim())) resolve.mutate();
  };
  const choices = ended ? [...outcomes, 'VOID'] : ['VOID'];
  return (
    <form onSubmit={submit} className="card">
      <fieldset>
        <legend>{ended ? 'Resolve your market: which outcome happened?' : 'Before its end date your market can only be voided'}</legend>
        {choices.map((o, i) => (
          <div key={o} className="check">
            <input type="radio" id={`${id}-outcome-${i}`} name="outcome" value={o} checked={outcome === o} onChange={() => setOutcome(o)} />
            <label htmlFor={`${id}-outcome-${i}`}>{o === 'VOID' ? 'Void: none of them (every holder is paid back what they paid)' : o}</label>
          </div>
        ))}
      </fieldset>
      {outcome === 'VOID' ? (
        <p>
          <label htmlFor={`${id}-void-reason`}>{needsReason ? 'Reason for voiding' : 'Reason for voiding (optional)'}</label>
          <textarea id={`${id}-void-reason`} maxLength={500} required={needsReason} value={reason} onChange={(e) => setReason(e.target.value)} />
        </p>
      ) : null}
      {resolve.isError ? <ErrorMessage error={resolve.error} /> : null}
      <button type="submit" disabled={!outcome || (needsReason && !reason.trim()) || resolve.isPending}>
        {resolve.isPending ? 'Resolving…' : 'Resolve market'}
      </button>
    </form>
  );
}
