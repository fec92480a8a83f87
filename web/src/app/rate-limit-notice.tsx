import { useRateLimitCountdown } from '../lib/api/rate-limit-wait';

/**
 * While reads wait out the API's rate limit, a quiet line under the header says so and counts down; the page keeps
 * showing what it has, and the data arrives by itself when the wait is over.
 */
export function RateLimitNotice() {
  const seconds = useRateLimitCountdown();
  return (
    <p role="status" className="rate-limit-notice" hidden={seconds === 0}>
      {seconds > 0 ? `Many requests in a short time: fetching again in ${seconds} s, no need to reload.` : ''}
    </p>
  );
}
