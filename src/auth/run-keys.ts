import { API_KEY_PATTERN } from './api-keys';

/**
 * A replay run's key: `rpl_<run id>_<32 hex>`. Its secret part is the key of the run's own account inside the run's
 * database (`svc_<32 hex>`), so the run authenticates it as any account's key; the live database keeps only the hash of
 * the whole run key, to find the run. The distinct prefix tells, before any lookup, that a call belongs to a run.
 */
export const RUN_KEY_PATTERN = /^rpl_([0-9a-f]{12})_([0-9a-f]{32})$/;

export function runKeyOf(runId: string, accountKey: string): string {
  if (!API_KEY_PATTERN.test(accountKey)) throw new Error('not an API key');
  return `rpl_${runId}_${accountKey.slice(4)}`;
}

/** The run's account key inside a run key, or null when `token` is not a run key. */
export function accountKeyOf(token: string): string | null {
  const m = RUN_KEY_PATTERN.exec(token);
  return m ? `svc_${m[2]}` : null;
}
