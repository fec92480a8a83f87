import type { Backend } from './backends';
import { startTestApp, type TestApp, type TestAppOptions } from './app';
import { faultProxy, type FaultProxy } from './fault-proxy';
import { openDatabase, type Database } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';

export interface ProxiedApp {
  t: TestApp;
  proxy: FaultProxy;
  /** A pool straight to the same database, past the proxy: what the test checks after a fault. */
  direct: Database;
  close(): Promise<void>;
}

/**
 * The real app on a fresh PostgreSQL database whose every connection goes through a fault proxy the test
 * controls. `dbConfig` sets the pool's own options (DB_QUERY_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS, …).
 */
export async function startProxiedApp(backend: Backend, dbConfig: Record<string, string | number> = {}, opts: TestAppOptions = {}): Promise<ProxiedApp> {
  const opened = await backend.open();
  const proxy = await faultProxy(new URL(opened.url!));
  const config = { DB_POOL_SIZE: 8, ...dbConfig };
  const viaProxy = await openDatabase(testConfig({ ...config, DATABASE_URL: proxy.url }), createLogger('silent'));
  const t = await startTestApp(
    { name: 'postgres', open: async () => ({ db: viaProxy, drop: () => viaProxy.close() }) },
    { ...opts, config: { ...config, ...(opts.config ?? {}) } },
  );
  return {
    t,
    proxy,
    direct: opened.db,
    async close() {
      await proxy.close();
      await t.close();
      await opened.drop();
    },
  };
}
