import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../lib/api/client';
import { cents, dateTime, money, shares, signedMoney } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

const PAGE = 20;
const KIND = { buy: 'Buy', sell: 'Sell', settlement: 'Settlement' } as const;

/** The person's own fills, newest first (list_trades), a page at a time; `hrefOf` finds each fill's market page. */
export function TradeHistory({ hrefOf }: { hrefOf: (marketId: string, slug: string) => string }) {
  const trades = useInfiniteQuery({
    queryKey: ['get', '/api/trades', 'pages'],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) => {
      const { data } = await api.GET('/api/trades', { params: { query: { limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } }, signal });
      return data!;
    },
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = trades.data?.pages.flatMap((p) => p.trades) ?? [];
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Trade history</h2>
      {trades.isPending ? <Loading what="your trades" /> : null}
      {trades.isError ? <ErrorMessage error={trades.error} /> : null}
      {trades.isSuccess && rows.length === 0 ? <p>No trades yet.</p> : null}
      {rows.length > 0 ? (
        <div className="table-wrap">
          <table className="cards">
            <caption className="visually-hidden">Your trades, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Market</th>
                <th scope="col" className="num">
                  Shares
                </th>
                <th scope="col" className="num">
                  Price
                </th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col" className="num">
                  Realized
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id}>
                  <td data-label="When">{dateTime(t.createdAt)}</td>
                  <td data-label="Kind">
                    {KIND[t.kind as keyof typeof KIND] ?? t.kind} {t.outcome}
                  </td>
                  <td data-label="Market">
                    <Link href={hrefOf(t.marketId, t.marketSlug)}>{t.question}</Link>
                  </td>
                  <td className="num" data-label="Shares">
                    {shares(t.shares)}
                  </td>
                  <td className="num" data-label="Price">
                    {cents(t.price)}
                  </td>
                  <td className="num" data-label="Amount">
                    {money(t.cash)}
                  </td>
                  <td className="num" data-label="Realized">
                    {t.realizedPnl === null ? '—' : signedMoney(t.realizedPnl)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {trades.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void trades.fetchNextPage()} disabled={trades.isFetchingNextPage}>
          {trades.isFetchingNextPage ? 'Loading…' : 'Show older trades'}
        </button>
      ) : null}
    </section>
  );
}
