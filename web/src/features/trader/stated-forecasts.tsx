import { Link } from 'wouter';
import { $api } from '../../lib/api/client';
import { usePortfolio, positionHref } from '../../lib/portfolio';
import { cents, dateTime, percent } from '../../lib/format';
import { heldMarketHref } from '../../lib/paths';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

/** Where a forecast was stated, in the app's words. */
const SOURCE_WORDS = {
  stated: 'on its own',
  paper_trade: 'with a trade',
  place_order: 'with a limit order',
  buy_community_shares: 'with a community buy',
} as const;

/**
 * The person's own stated forecasts, newest first (list_forecasts): the chance they gave, the market's price then, how
 * it was stated and whether it is their current one. Shown on their own profile only: forecasts on open markets are
 * private until the market closes.
 */
export function StatedForecasts() {
  const forecasts = $api.useQuery('get', '/api/forecasts', { params: { query: { limit: 20 } } }, { staleTime: 30_000 });
  // A forecast names its market by id: the positions name the markets the person traded (a forecast made with a trade).
  const positions = usePortfolio().data?.positions ?? [];
  return (
    <section aria-labelledby="stated-heading">
      <h2 id="stated-heading">Your stated forecasts</h2>
      {forecasts.isPending ? (
        <Loading what="your forecasts" />
      ) : forecasts.isError ? (
        <ErrorMessage error={forecasts.error} />
      ) : forecasts.data.forecasts.length === 0 ? (
        <p>None yet. State your chance of YES on a market&apos;s trade ticket or limit order; only you see it until the market closes.</p>
      ) : (
        <div className="table-wrap">
          <table className="cards">
            <thead>
              <tr>
                <th scope="col">Market</th>
                <th scope="col" className="num">
                  Your chance
                </th>
                <th scope="col" className="num">
                  Market then
                </th>
                <th scope="col">Stated</th>
              </tr>
            </thead>
            <tbody>
              {forecasts.data.forecasts.map((f) => {
                const held = positions.find((p) => p.marketId === f.marketId);
                const href = held ? positionHref(held) : heldMarketHref(f.marketId, f.venue === 'community');
                return (
                  <tr key={f.id}>
                    <td data-label="Market">
                      <Link href={href}>{held?.question ?? 'This market'}</Link>
                      {f.current ? null : <span className="muted"> (superseded)</span>}
                    </td>
                    <td className="num" data-label="Your chance">
                      {f.probability !== null ? `${percent(f.probability)} YES` : f.probabilities.map((p) => percent(p)).join(' · ')}
                    </td>
                    <td className="num" data-label="Market then">
                      {f.mids.map((m) => cents(m)).join(' · ')}
                    </td>
                    <td data-label="Stated">
                      {dateTime(f.createdAt)} {SOURCE_WORDS[f.source]}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
