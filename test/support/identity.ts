import type { Clock } from '../../src/registry/context';
import type { TestApp } from './app';

/** A clock tests move by hand (startTestApp(backend, { clock })): expiry without waiting. */
export class ManualClock implements Clock {
  private t: number;

  constructor(start = Date.parse('2030-01-01T00:00:00Z')) {
    this.t = start;
  }

  now(): Date {
    return new Date(this.t);
  }

  advance(ms: number): void {
    this.t += ms;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** RFC 6749 §2.3.1: base64 of form-urlencoded id ":" form-urlencoded secret. */
export function basicAuth(id: string, secret: string): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${form(id)}:${form(secret)}`).toString('base64')}`;
}

/** An access token for an agent from POST /oauth/token (HTTP Basic); fails loudly otherwise. */
export async function accessToken(t: TestApp, agent: { id: string; apiKey: string }, form: Record<string, string> = {}): Promise<string> {
  const res = await t.api
    .post('/oauth/token')
    .set('Authorization', basicAuth(agent.id, agent.apiKey))
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'agent', ...form });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

let counter = 0;

/** The session cookie of a response (the svc.session-token pair only), or undefined. */
export function sessionCookieOf(res: { headers: Record<string, unknown> }): string | undefined {
  const set = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = set.find((c) => c.startsWith('svc.session-token='));
  return cookie?.split(';')[0];
}

/**
 * Registers a person over REST (which signs them in) and returns what a browser on BASE_URL would send:
 * the session cookie, and the Origin header that cookie-authenticated writes need (CSRF check).
 */
export async function signedInPerson(
  t: TestApp,
  over: { isAgent?: boolean } = {},
): Promise<{ id: string; email: string; password: string; cookie: string; origin: string }> {
  counter += 1;
  const email = `person${counter}-${Date.now()}@example.com`;
  const password = 'password123';
  if (over.isAgent) {
    const reg = await t.api.post('/api/auth/register').send({ email, password, displayName: `Bot${counter}`.slice(0, 20), isAgent: true });
    if (reg.status !== 201) throw new Error(`registration failed: ${reg.status}`);
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email, password });
    const cookie = sessionCookieOf(login);
    if (login.status !== 200 || !cookie) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
    return { id: reg.body.user.id, email, password, cookie, origin: t.config.BASE_URL! };
  }
  const res = await t.api.post('/api/auth/register').send({ email, password, displayName: `Person${counter}`.slice(0, 20) });
  const cookie = sessionCookieOf(res);
  if (res.status !== 201 || !cookie) throw new Error(`registration did not sign in: ${res.status} ${JSON.stringify(res.headers['set-cookie'])}`);
  return { id: res.body.user.id, email, password, cookie, origin: t.config.BASE_URL! };
}
