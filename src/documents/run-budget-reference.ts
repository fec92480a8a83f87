import type { Config } from '../config';
import { runLimitsFromConfig } from '../limits/run-budget';

/** docs/rate-limits.md's section on a replay run's own budget, its figures from the defaults (src/limits/run-budget.ts). */
export function runBudgetSection(defaults: Config): string {
  const run = runLimitsFromConfig(defaults);
  const n = (x: number) => x.toLocaleString('en-US');
  return `## A replay run's own budget

Calls made with a replay run's key (\`rpl_…\`, [replay.md](replay.md)) act only on the run's own database and clock, and
count against a budget of the run's own: each class's limit above times \`REPLAY_RATE_LIMIT_TIMES\`
(${defaults.REPLAY_RATE_LIMIT_TIMES} by default: ${n(run.api)} \`api\` calls, ${n(run.trade)} trades, ${n(run.sell)} sells and ${n(run.comment)} comments a minute), counted per run, in the same fixed
one-minute windows, with the same \`RATE_LIMITED\` error and headers (\`RateLimit-Policy\` names the run's quota). A
30-day run of a thousand calls (\`npm run bench:replay\`) then never waits, where at the live limits it would wait
out most of half an hour. Live calls keep the limits above exactly: a run key's calls never count against its
owner's live budget, and a live key's calls never draw on a run's. Starting a run is a live call (\`register\`
class), so the budgets an address can open are limited too. With \`REDIS_URL\` the run counters live under
\`<REDIS_PREFIX>rl-run:<class>:…\`.`;
}
