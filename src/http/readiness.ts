import type { Services } from '../services';

/** /ready answers within this, whatever its dependencies do (load balancers probe with ~2 s timeouts). */
export const READY_CHECK_TIMEOUT_MS = 1000;

export interface ReadinessReport {
  ok: boolean;
  checks: Record<string, string>;
}

class Late extends Error {}

/** Resolves like `work`, or rejects with Late after `ms`: the check answers even when the work hangs. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Late()), ms);
  });
  work.catch(() => {}); // a late failure has nobody left to tell
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * What GET /ready says: each dependency by name, and whether this process should get traffic. The checks
 * run side by side, each bounded by READY_CHECK_TIMEOUT_MS, so a stalled database reads "timeout" in
 * time instead of hanging the probe.
 */
export async function readinessReport(services: Services, timeoutMs = READY_CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
  const checks: Record<string, string> = {};
  let ok = true;
  const database = async () => {
    try {
      await within(services.db.query('SELECT 1'), timeoutMs);
      checks.database = 'ok';
      const pending = await within(services.db.pendingMigrations(), timeoutMs);
      checks.migrations = pending ? 'pending' : 'applied';
      ok = ok && !pending;
    } catch (err) {
      checks.database = err instanceof Late || /timeout/i.test(String((err as Error)?.message)) ? 'timeout: no answer in time' : 'unreachable';
      ok = false;
    }
  };
  const feed = async () => {
    if (!services.readiness) return;
    try {
      for (const [k, v] of Object.entries(await within(services.readiness(), timeoutMs))) {
        checks[k] = v.status;
        ok = ok && v.ok;
      }
    } catch (err) {
      checks.marketData = err instanceof Late ? `timeout: no answer within ${timeoutMs} ms` : 'failing';
      ok = false;
    }
  };
  await Promise.all([database(), feed()]);
  // Redis only shares rate-limit counters: without it limits hold per process, so it never fails readiness.
  const redis = services.limiter.health?.().redis;
  if (redis) checks.redis = redis;
  return { ok, checks };
}
