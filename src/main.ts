import 'reflect-metadata';
import { loadConfig, ConfigError, type Config } from './config';
import { defaultOrigin } from './transports/public-origin';
import { createLogger } from './logger';
import { startService } from './start';
import { serve } from './http/server';

/** Process entry: config → database (migrated) → services → HTTP; SIGTERM/SIGINT drain and close. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(err.message + '\n');
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL);
  const service = await startService(config, log);
  const { shutdown } = await serve(service, config, log);
  log.info('listening', {
    url: defaultOrigin(config),
    baseUrl: config.BASE_URL ?? 'unset: named by each request',
    host: config.HOST,
    port: config.PORT,
    database: service.services.db.kind,
    feed: config.MARKET_FEED,
  });
  const onSignal = (signal: string) => {
    shutdown(signal)
      .then(() => process.exit(0))
      .catch((err) => {
        log.error('shutdown failed', { err: String(err) });
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
