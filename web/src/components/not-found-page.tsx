import { Link } from 'wouter';
import { usePageTitle } from './page-title';

/** What an address that is no page shows: an unknown path, or a market page whose market does not exist. */
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
