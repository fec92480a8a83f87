import { useEffect, useState, useSyncExternalStore } from 'react';

/**
 * When the API's rate limit answers 429, reads wait for its Retry-After and try again by themselves
 * (app/providers.tsx); this store holds until when, so one notice can count the seconds down for the person.
 */
let waitUntil = 0;
const listeners = new Set<() => void>();

/** A retry is scheduled `ms` from now: the notice shows until the latest such moment. */
export function noteRateLimitWait(ms: number): void {
  waitUntil = Math.max(waitUntil, Date.now() + ms);
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whole seconds left before the waiting reads retry; 0 when nothing waits. Re-renders every second while waiting. */
export function useRateLimitCountdown(): number {
  const until = useSyncExternalStore(
    subscribe,
    () => waitUntil,
    () => 0,
  );
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= Date.now()) return;
    setNow(Date.now());
    const timer = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= until) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [until]);
  return Math.max(0, Math.ceil((until - now) / 1000));
}
