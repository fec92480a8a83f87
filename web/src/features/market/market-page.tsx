import { lazy, Suspense, useState } from 'react';
import { useParams } from 'wouter';
import { $api } from '../../lib/api/client';
import { useAccount } from '../../lib/account';
import { age, cents, date, money, dateTime } from '../../lib/format';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { MarketNotFoundPage } from '../../components/not-found-page';
import { asApiError } from '../../lib/api/api-error';
import { ErrorBoundary } from '../../components/error-boundary';
import { Loading } from '../../components/loading';
import { TradeTicket } from './trade-ticket';
import { MarketPosition } from '../../components/market-position';
import { LimitOrderForm } from './limit-order-form';
import { MarketOrders } from './market-orders';
import { MarketDiscussion } from '../../components/market-discussion';
import { OutcomeBanner } from '../../components/outcome-banner';
import { ShareButton } from '../../components/share-button';
import { OrderBook } from '../../components/order-book';
import { marketHref } from '../../lib/paths';
import { WatchMarket } from '../../components/watch-market';
import { BuyBar, type TicketPick } from './buy-bar';
import { newerPrice, useLivePrices, type Book } from '../../lib/live-prices';
import { useNow } from '../../lib/use-now';
import type { StreamStatus } from '../../lib/event-stream';

// The chart library is its own chunk, fetched only when a market page draws a chart. Once loaded (or preloaded by the
// server's renderer, entry-server.tsx, which must draw the chart in the page's first view) it renders without suspending.
type PriceChartModule = typeof import('../../components/price-chart');
let loadedChart: PriceChartModule['default'] | undefined;
export const loadPriceChart = (): Promise<PriceChartModule> =>
  import('../../components/price-chart').then((m) => {
    loadedChart = m.default;
    return m;
  });
const LazyChart = lazy(loadPriceChart);
function PriceChart(props: Parameters<PriceChartModule['default']>[0]) {
  // Chosen once per mount: switching from the lazy one to the loaded one would mount the chart again (its interval lost).
  const [Chart] = useState(() => loadedChart ?? LazyChart);
  return <Chart {...props} />;
}

/** What the page says of the price stream after the price's age. */
const STREAM_WORDS: Record<StreamStatus, string> = {
  off: '',
  connecting: ' Connecting to live prices…',
  live: ' Following live prices.',
  lost: ' Live prices lost: reconnecting…',
};

function Side({ label, book, className }: { label: string; book: Book; className: string }) {
  return (
    <div className={`side ${className}`}>
      <p className="side-label">{label}</p>
      <p className="side-price">{cents(book.mid)}</p>
      <p className="muted">
        bid {cents(book.bid)} · ask {cents(book.ask)}
      </p>
    </div>
  );
}

/** One market: question, prices with bid/ask and age, chart, resolution rules, source, trade ticket, position. */
export function MarketPage() {
  const { slug = '' } = useParams<{ slug: string }>();
  // Reused for a minute, like the list and the chart: a person going back and forth between markets reads each once.
  const market = $api.useQuery('get', '/api/markets/{idOrSlug}', { params: { path: { idOrSlug: slug } } }, { staleTime: 60_000 });
  const account = useAccount();
  const [pick, setPick] = useState<TicketPick | null>(null);
  usePageTitle(market.data?.question);
  // The price stream for this market while the page is open (shared with the other pages of the tab).
  const live = useLivePrices(market.data && market.data.status === 'active' ? [market.data.id] : []);
  const now = useNow(1000);
  if (market.isPending) return <Loading what="the market" />;
  if (market.isError) return asApiError(market.error).notFound ? <MarketNotFoundPage /> : <ErrorMessage error={market.error} />;
  const m = market.data;
  const yes = m.outcomeTokens.find((t) => t.outcome === 'YES');
  const no = m.outcomeTokens.find((t) => t.outcome === 'NO');
  // When the read's prices were true: its asOf, else its age when it was read.
  const readAt = m.odds.asOf ? Date.parse(m.odds.asOf) : m.odds.ageSeconds !== null ? market.dataUpdatedAt - m.odds.ageSeconds * 1000 : null;
  const yesPrice = newerPrice(m.odds.yes, readAt, live.liveQuote(yes?.tokenId));
  const noPrice = newerPrice(m.odds.no, readAt, live.liveQuote(no?.tokenId));
  // The newest of the two is the page's price time; its age grows each second until the next price arrives.
  const priceAt = Math.max(yesPrice.at ?? -Infinity, noPrice.at ?? -Infinity);
  const ageSeconds = Number.isFinite(priceAt) ? Math.max(0, (now - priceAt) / 1000) : null;
  const streamed = yesPrice.streamed || noPrice.streamed;
  const state =
    m.status === 'resolved'
      ? `Resolved ${m.winner ?? ''}${m.resolvedAt ? ` on ${date(m.resolvedAt)}` : ''}`
      : m.status === 'closed'
        ? 'Closed, awaiting resolution'
        : 'Active';
  const signedIn = Boolean(account.data);
  return (
    <article className="market">
      <h1>{m.question}</h1>
      <p className="market-meta">
        <span>{m.category ?? 'Uncategorised'}</span>
        <span>{state}</span>
        <span>Volume {money(m.volume)}</span>
        <span>Ends {date(m.endDate)}</span>
        <ShareButton path={marketHref(m.slug)} title={m.question} what="this market" />
      </p>
      {m.status === 'resolved' && m.winner ? (
        <OutcomeBanner
          outcome={m.winner}
          resolvedAt={m.resolvedAt}
          paid={m.winner === 'VOID' ? 'Every share paid 50¢.' : `Each ${m.winner} share paid $1; each ${m.winner === 'YES' ? 'NO' : 'YES'} share paid nothing.`}
        />
      ) : null}
      {/* As on the venues' pages: prices and chart on the left, the ticket with the person's position right beside it, both
          above the fold at 1280 px; the book, the rules and the source below. */}
      <div className="market-columns">
        <div>
          <div className="sides">
            <Side label="YES" book={yesPrice.book} className="yes" />
            <Side label="NO" book={noPrice.book} className="no" />
          </div>
          <p className="muted price-age">
            Prices {streamed || m.odds.live ? 'live' : 'last mirrored'}, {age(ageSeconds)} old
            {Number.isFinite(priceAt) ? ` (as of ${dateTime(new Date(priceAt).toISOString())})` : ''}.{m.status === 'active' ? STREAM_WORDS[live.status] : ''}
          </p>
          {yes?.tokenId ? (
            <ErrorBoundary>
              <Suspense fallback={<Loading what="the chart" />}>
                <PriceChart
                  tokenId={yes.tokenId}
                  outcome="YES"
                  latest={yesPrice.streamed && yesPrice.book.mid !== null && yesPrice.at !== null ? { t: yesPrice.at / 1000, p: yesPrice.book.mid } : undefined}
                />
              </Suspense>
            </ErrorBoundary>
          ) : null}
          <section aria-labelledby="rules-heading">
            <h2 id="rules-heading">Resolution</h2>
            <p>{m.description ?? 'The venue gives no resolution text for this market.'}</p>
          </section>
          <p className="source">
            {m.simulated ? (
              <>
                <strong>Simulated market.</strong> Its prices and outcome come from this service&apos;s built-in simulated venue, not from a real exchange.
              </>
            ) : (
              <>
                <strong>Mirrored from Polymarket</strong> on a delay; this service is not the venue and this is not its official feed.
              </>
            )}
          </p>
        </div>
        <div>
          {m.status === 'active' ? (
            <TradeTicket
              market={{ id: m.id, slug: m.slug, outcomeTokens: m.outcomeTokens }}
              signedIn={signedIn}
              pick={pick}
              priceAt={{ YES: yesPrice.streamed ? yesPrice.at : null, NO: noPrice.streamed ? noPrice.at : null }}
            />
          ) : (
            <p className="card">This market is {m.status}: it cannot be traded.</p>
          )}
          {signedIn ? <MarketPosition marketId={m.id} /> : null}
          {m.status === 'active' ? (
            <>
              {signedIn ? <LimitOrderForm market={{ id: m.id, slug: m.slug, outcomeTokens: m.outcomeTokens }} /> : null}
              {m.outcomeTokens.map((t) => (t.tokenId ? <OrderBook key={t.tokenId} tokenId={t.tokenId} outcome={t.outcome} /> : null))}
            </>
          ) : null}
          {signedIn ? (
            <>
              <WatchMarket marketId={m.id} />
              <MarketOrders marketId={m.id} />
            </>
          ) : null}
        </div>
      </div>
      <MarketDiscussion marketId={m.id} signedIn={signedIn} />
      {m.status === 'active' ? (
        <BuyBar asks={{ YES: yesPrice.book.ask, NO: noPrice.book.ask }} onPick={(outcome) => setPick((p) => ({ outcome, n: (p?.n ?? 0) + 1 }))} />
      ) : null}
    </article>
  );
}
