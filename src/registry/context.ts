import type { CallInfo, Principal } from '../auth/caller';
import type { Clock } from '../clock';
import type { MethodServices } from './method-services';
import type { Logger } from '../logger';
import type { Queryable } from '../db/database';

export type { Transport, Principal, Credentials, CallInfo, CallEffects, SiteAddress, VocabularyUse } from '../auth/caller';
export { systemClock, type Clock } from '../clock';

export interface MethodContext {
  principal: Principal | null;
  services: MethodServices;
  clock: Clock;
  requestId: string;
  log: Logger;
  call: CallInfo;
  /** Set when the call carries an Idempotency-Key: the domain stores its response inside its own transaction. */
  idempotency?: IdempotencyHandle;
  /** Set when the call came with a replay run's key: it runs on that run's services and clock. */
  run?: { id: string };
}

export interface IdempotencyHandle {
  complete(tx: Queryable, response: unknown): Promise<void>;
}

/** The principal of a method whose auth guarantees one. */
export function requirePrincipal(ctx: MethodContext): Principal {
  if (!ctx.principal) throw new Error('requirePrincipal on an unauthenticated call');
  return ctx.principal;
}
