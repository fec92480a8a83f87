import { Link } from 'wouter';
import { usePageTitle } from '../components/page-title';

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
