import { createRateLimiter, limitsFromConfig, type LimitClass, type RateLimiter } from './rate-limiter';
import type { Config } from '../config';
import type { Logger } from '../logger';

/**
 * A replay run's own rate budget (issue 49 item 5). At the live limits (30 calls a minute) an agent's 30-day run of
 * about a thousand calls took over half an hour, a 20-scenario suite days; the run's calls touch only the run's own
 * database and clock, so they get each class's live limit times REPLAY_RATE_LIMIT_TIMES, counted per run (invoke's
 * callerKey: `run:<id>:user:<id>`) on counters of their own. Live calls keep the SPEC's limits exactly: a run key's
 * calls are counted here and never against the live budget, and a live key's calls never reach this budget. Starting
 * a run stays a live call (`register` class), so the number of budgets an address can open is itself limited.
 */
export function runLimitsFromConfig(config: Config): Record<LimitClass, number> {
  const live = limitsFromConfig(config);
  const run = {} as Record<LimitClass, number>;
  for (const cls of Object.keys(live) as LimitClass[]) run[cls] = live[cls] * config.REPLAY_RATE_LIMIT_TIMES;
  return run;
}

/** The counters of every run's calls in this process (in Redis under `<REDIS_PREFIX>rl-run:` when REDIS_URL is set). */
export function createRunRateLimiter(config: Config, log: Logger): RateLimiter {
  return createRateLimiter(config, log, undefined, { limits: runLimitsFromConfig(config), redisSpace: 'rl-run' });
}
