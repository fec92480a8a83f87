import type { Database } from '../db/database';
import type { RateLimiter } from '../limits/rate-limiter';
import type { Clock } from '../clock';
import type { CallInfo } from './caller';
import { AccessTokenStore } from './access-tokens';
import { Authenticator } from './authenticator';
import { LoginService } from './login';
import { SessionStore } from './sessions';

/** The identity services a process needs: who is calling (authenticator), tokens, sessions and sign-in. */
export interface Identity {
  authenticator: Authenticator;
  tokens: AccessTokenStore;
  sessions: SessionStore;
  login: LoginService;
  /** Opens a browser session for a person who just registered (REST only: the cookie needs a browser). */
  signInAfterRegistration: SignInAfterRegistration;
}

/** What it reads of the method context: the call (to set the cookie on) and the clock. */
export type SignInAfterRegistration = (ctx: { call: CallInfo; clock: Clock }, userId: string) => Promise<void>;

export function createIdentity(args: { db: Database; clock: Clock; limiter: RateLimiter }): Identity {
  const { db, clock, limiter } = args;
  const tokens = new AccessTokenStore(db);
  const sessions = new SessionStore(db);
  return {
    authenticator: new Authenticator({ db, clock, accessTokens: tokens, sessions, limiter }),
    tokens,
    sessions,
    login: new LoginService(db, sessions, limiter),
    signInAfterRegistration: async (ctx, userId) => {
      if (ctx.call.transport !== 'rest') return;
      const s = await sessions.create(userId, ctx.clock.now());
      ctx.call.effects = { ...ctx.call.effects, setSession: { token: s.token, maxAgeS: s.maxAgeS } };
    },
  };
}
