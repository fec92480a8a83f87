import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../src/http/app-server';
import { serve } from '../../src/http/server';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startService } from '../../src/start';
import { backends } from '../support/backends';

/** Prototypes of the request and response the server hands its 'request' listeners, read before express sees them. */
function watchPrototypes(server: import('node:http').Server): Array<{ req: object | null; res: object | null }> {
  const seen: Array<{ req: object | null; res: object | null }> = [];
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ req: Object.getPrototypeOf(req) as object | null, res: Object.getPrototypeOf(res) as object | null });
  });
  return seen;
}

describe('createAppServer', () => {
  it('builds requests and responses with the app’s own prototypes, so express never re-parents them', async () => {
    const app = express();
    app.get('/echo', (req, res) => {
      res
        .status(201)
        .set('X-Echo', req.get('x-probe') ?? '')
        .json({ q: req.query.q, host: req.hostname });
    });
    const server = createAppServer(app);
    const seen = watchPrototypes(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      for (let i = 0; i < 3; i += 1) {
        const r = await fetch(`http://127.0.0.1:${port}/echo?q=${i}`, { headers: { 'x-probe': `p${i}` } });
        expect(r.status).toBe(201);
        expect(r.headers.get('x-echo')).toBe(`p${i}`);
        expect(await r.json()).toEqual({ q: String(i), host: '127.0.0.1' });
      }
      expect(seen).toHaveLength(3);
      for (const s of seen) {
        expect(s.req).toBe(app.request);
        expect(s.res).toBe(app.response);
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is what serve() listens with', async () => {
    const config = testConfig({ DATA_DIR: 'memory', PORT: 0 });
    const log = createLogger('silent');
    // The embedded database from the tests' migrated image: a bare 'memory' one would run initdb and every migration
    // (about a minute of a loaded CI machine) for a test about the HTTP server.
    const opened = await backends()[0]!.open();
    const service = await startService(config, log, { background: false, db: opened.db });
    const serving = await serve(service, { ...config, PORT: 0 }, log);
    const seen = watchPrototypes(serving.server);
    try {
      const port = (serving.server.address() as AddressInfo).port;
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ status: 'ok' });
      expect(seen).toEqual([{ req: service.app.request, res: service.app.response }]);
    } finally {
      await serving.shutdown('test');
      await opened.drop();
    }
  });
});
