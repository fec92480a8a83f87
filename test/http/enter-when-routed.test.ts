import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { enterWhenRouted, mayRoute } from '../../src/http/enter-when-routed';

function routers() {
  const inner = express.Router();
  inner.get('/.well-known/card.json', (_req, res) => void res.json({ card: true }));
  const outer = express.Router();
  outer.post('/rpc', (_req, res) => void res.json({ rpc: true }));
  outer.get('/items/:id', (req, res) => void res.json({ id: req.params.id }));
  outer.use(inner);
  return { inner, outer };
}

const stackOf = (r: unknown) => (r as { stack: Parameters<typeof mayRoute>[0] }).stack;

describe('mayRoute', () => {
  test('a path a route of the router or of a router mounted at its root takes', () => {
    const { outer } = routers();
    expect(mayRoute(stackOf(outer), '/rpc')).toBe(true);
    expect(mayRoute(stackOf(outer), '/items/7')).toBe(true);
    expect(mayRoute(stackOf(outer), '/.well-known/card.json')).toBe(true);
    expect(mayRoute(stackOf(outer), '/api/leaderboard')).toBe(false);
    expect(mayRoute(stackOf(outer), '/items')).toBe(false);
  });

  test('middleware at the root, or a router mounted at a prefix that matches, counts as taking the path', () => {
    const withMiddleware = express.Router();
    withMiddleware.use((_req: Request, _res: Response, next: NextFunction) => next());
    expect(mayRoute(stackOf(withMiddleware), '/anything')).toBe(true);
    const mounted = express.Router();
    mounted.use('/admin', routers().inner);
    expect(mayRoute(stackOf(mounted), '/admin/whatever')).toBe(true);
    expect(mayRoute(stackOf(mounted), '/api/search')).toBe(false);
  });

  test('a layer whose matcher throws (a malformed escape in a parameter) sends the request into the router, which answers it as before', () => {
    const throwing = [
      {
        match: () => {
          throw new URIError('URI malformed');
        },
        handle: null,
      },
    ];
    expect(mayRoute(throwing, '/items/%E0%A4%A')).toBe(true);
  });
});

describe('enterWhenRouted', () => {
  test('a request no layer takes goes on at once, where the bare router hands it on a turn of the event loop later', () => {
    const { outer } = routers();
    const req = { method: 'GET', url: '/api/leaderboard', path: '/api/leaderboard', originalUrl: '/api/leaderboard' } as unknown as Request;
    const res = {} as Response;
    let skipped = false;
    enterWhenRouted(outer)(req, res, () => (skipped = true));
    expect(skipped).toBe(true);
    let bare = false;
    outer(req, res, () => (bare = true));
    expect(bare).toBe(false); // router 2 calls next through setImmediate: the turn this module saves
  });

  test('requests the router takes are served by it as before, and the rest reach the routes after it', async () => {
    const app = express();
    app.use(express.json());
    app.use(enterWhenRouted(routers().outer));
    app.get('/api/leaderboard', (_req, res) => void res.json({ board: true }));
    await request(app).post('/rpc').send({}).expect(200, { rpc: true });
    await request(app).get('/items/42').expect(200, { id: '42' });
    await request(app).get('/.well-known/card.json').expect(200, { card: true });
    await request(app).get('/api/leaderboard').expect(200, { board: true });
    await request(app).get('/nowhere').expect(404);
  });

  test('refuses a handler that is not a router', () => {
    expect(() => enterWhenRouted(((_req: Request, _res: Response, next: NextFunction) => next()) as never)).toThrow(/needs an express Router/);
  });
});
