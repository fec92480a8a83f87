import { useEffect, useState } from 'react';

/** The time now (ms), re-read every `everyMs`: for what grows with time on its own, like a price's age. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
