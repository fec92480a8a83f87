import { useEffect, useState } from 'react';

/** The value once it has stopped changing for `ms` (search as you type, live quotes: one call per pause). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
