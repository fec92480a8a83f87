import { Link } from 'wouter';
import { PATHS } from '../lib/paths';
import { usePageTitle } from './page-title';

/** What an address that is no page of the app shows. */
export function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <>
      <h1>Nothing here</h1>
      <p>
        This address is not a page of the app. Go to the <Link href="/">markets</Link>.
      </p>
    </>
  );
}

/** A market page whose market does not exist: it says so, and points to the list such a market would be in. */
export function MarketNotFoundPage({ community = false }: { community?: boolean }) {
  usePageTitle('Market not found');
  return (
    <>
      <h1>Market not found</h1>
      <p>
        There is no market at this address: the link may be mistyped, or the market was removed. Find one on the{' '}
        {community ? <Link href={PATHS.communityMarkets}>community markets</Link> : <Link href="/">markets page</Link>}.
      </p>
    </>
  );
}
