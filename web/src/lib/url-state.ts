import { useSearchParams } from 'wouter';

/**
 * One of a page's choices (a sort, a filter, a board) kept in the address's query string, so it survives Back and a
 * shared link opens the same view. `allowed` lists the values it may take; anything else in the address reads as the
 * default, and the default itself is left out of the address. Changes replace the history entry: Back leaves the
 * page rather than stepping through every filter tried.
 */
export function useUrlChoice<T extends string>(name: string, allowed: readonly T[] | null, fallback: T): [T, (next: T) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get(name);
  const value = raw !== null && (allowed === null || (allowed as readonly string[]).includes(raw)) ? (raw as T) : fallback;
  const set = (next: T) =>
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        if (next === fallback) out.delete(name);
        else out.set(name, next);
        return out;
      },
      { replace: true },
    );
  return [value, set];
}
