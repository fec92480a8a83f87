import express, { type Request, type Response, type Router } from 'express';
import type { InvokeDeps } from '../registry/invoke';
import { publicOriginOf } from '../transports/public-origin';
import { AGENT_CARD_PATHS, agentCardJsonOf } from './agent-card';

/**
 * The agent card at its well-known paths (GET /api/a2a serves the same card through the registry method
 * agent.getCard). The bytes are built once per process and address; the card is public, so any origin may read it.
 */
export function agentCardRouter(deps: InvokeDeps): Router {
  const router = express.Router();
  const serve = (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(agentCardJsonOf(deps.services, publicOriginOf(req, deps.services.config)));
  };
  for (const path of AGENT_CARD_PATHS) router.get(path, serve);
  return router;
}
