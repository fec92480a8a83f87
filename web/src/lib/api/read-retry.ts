import { ApiError } from './api-error';
import { noteRateLimitWait } from './rate-limit-wait';

/** A read refused by the rate limit is tried again after its Retry-After, up to this many times. */
const RATE_LIMIT_RETRIES = 3;

const isRateLimited = (error: unknown): error is ApiError => error instanceof ApiError && error.status === 429;

/** A little after the window resets, so the retry is not refused again by a clock a few ms behind. */
const rateLimitDelay = (error: ApiError) => (error.retryAfterS ?? 10) * 1000 + 300;

/**
 * When a read is tried again (TanStack Query's `retry` and `retryDelay`, for every query cache of the app): one refused
 * by the rate limit waits its Retry-After (app/rate-limit-notice.tsx counts the wait down); otherwise only network
 * failures and 5xx are retried, once.
 */
export const readRetry = {
  retry: (failures: number, error: unknown): boolean => {
    if (!isRateLimited(error)) return failures < 1 && (!(error instanceof ApiError) || error.status === 0 || error.status >= 500);
    if (failures >= RATE_LIMIT_RETRIES) return false;
    noteRateLimitWait(rateLimitDelay(error));
    return true;
  },
  retryDelay: (failures: number, error: unknown): number => (isRateLimited(error) ? rateLimitDelay(error) : Math.min(1000 * 2 ** failures, 30_000)),
};
