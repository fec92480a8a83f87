import type { Server } from 'node:http';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Express } from 'express';
import { createAppServer } from './app-server';

/** What it serves: the app, and how to stop the rest of the service after the drain (src/start.ts's RunningService). */
export interface Servable {
  app: Express;
  stop(): Promise<void>;
}

export interface Serving {
  server: Server;
  /** Stops accepting, lets in-flight requests finish, then stops background work and closes the database. */
  shutdown(reason: string): Promise<void>;
}

/** Listens on HOST:PORT and returns a graceful shutdown; main wires it to SIGTERM/SIGINT. */
export function serve(service: Servable, config: Pick<Config, 'PORT' | 'HOST'>, log: Logger, drainTimeoutMs = 15_000): Promise<Serving> {
  return new Promise((resolve, reject) => {
    const server = createAppServer(service.app);
    server.listen(config.PORT, config.HOST);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.once('listening', () => {
      let stopping: Promise<void> | undefined;
      const shutdown = (reason: string) => {
        stopping ??= (async () => {
          log.info('shutting down', { reason });
          const closed = new Promise<void>((done) => server.close(() => done()));
          server.closeIdleConnections();
          // Keep-alive sockets that stay busy past the drain window are cut.
          const timer = setTimeout(() => server.closeAllConnections(), drainTimeoutMs);
          timer.unref();
          await closed;
          clearTimeout(timer);
          await service.stop();
          log.info('stopped');
        })();
        return stopping;
      };
      resolve({ server, shutdown });
    });
  });
}
