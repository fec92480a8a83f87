import express, { type Request, type Response, type Router } from 'express';
import type { InvokeDeps } from '../registry/invoke';
import { publicOriginOf } from '../transports/public-origin';
import { AGENT_CARD_PATHS, cardSignerOf, publishedAgentCardOf } from './agent-card';
import { CARD_JWKS_PATH } from './card-signing';

/**
 * The agent card at its well-known paths (signed when AGENT_CARD_SIGNING_KEY is set, its key at CARD_JWKS_PATH) (GET /api/a2a serves the same card through the registry method
 * agent.getCard). The bytes are built once per process and address; the card is public, so any origin may read it.
 */
export function agentCardRouter(deps: InvokeDeps): Router {
  const router = express.Router();
  const serve = async (req: Request, res: Response) => {
    const { json } = await publishedAgentCardOf(deps.services, publicOriginOf(req, deps.services.config));
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/json').send(json);
  };
  for (const path of AGENT_CARD_PATHS) router.get(path, serve);
  // The public key of the card signature (its `jku`), when the card is signed.
  router.get(CARD_JWKS_PATH, async (_req: Request, res: Response, next) => {
    const signer = cardSignerOf(deps.services.config);
    if (!signer) return next();
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.json((await signer).jwks());
  });
  return router;
}
