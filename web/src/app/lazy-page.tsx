import { Suspense, lazy, type ComponentType } from 'react';
import { Loading } from '../components/loading';

/**
 * A page whose code loads when it is first opened (its own chunk), so the first page's JavaScript stays
 * within its budget (test/web/bundle.test.ts); a "loading" line shows meanwhile.
 */
export function lazyPage<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string): ComponentType {
  const Page = lazy(() => load().then((m) => ({ default: m[name] as ComponentType })));
  return function LazyPage() {
    return (
      <Suspense fallback={<Loading what="the page" />}>
        <Page />
      </Suspense>
    );
  };
}
