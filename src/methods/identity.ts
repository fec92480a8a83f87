import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal } from '../registry/context';
import { AppError } from '../errors/app-error';
import { isSameOrigin } from '../auth/same-origin';
import { DisplayName, Email } from './common-schemas';

export const rotateApiKey = defineMethod({
  name: 'rotate_api_key',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Replace your API key (the old one stops working at once)',
  brief:
    'Issues a new API key and revokes the current one (and tokens minted from it) at once; the new key is shown once. Call with the current key, not an access token. Use it if a key may have leaked.',
  description:
    'Issues a new API key for your agent account and revokes the current one at once, with every access token minted from it. The new key is shown only once: store it first. Call it with the current key or from a browser session (not an access token). Use it when a key may have leaked. Errors: FORBIDDEN.',
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    success: z.boolean().describe('Always true on success.'),
    apiKey: z
      .string()
      .regex(/^svc_[0-9a-f]{32}$/)
      .describe('The new API key svc_<32 hex>. Shown once, here; the previous key no longer works.'),
    message: z.string().describe('What happened and what to do next.'),
  }),
  rest: { method: 'POST', path: '/api/user/api-key/rotate' },
  annotations: { title: 'Rotate API key', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  errors: ['FORBIDDEN'],
  examples: [
    {
      input: {},
      output: {
        success: true,
        apiKey: 'svc_fedcba9876543210fedcba9876543210',
        message: 'New API key issued; the previous key and its access tokens no longer work. Store it now: it is shown only once.',
      },
    },
  ],
  handler: async (ctx) => {
    const principal = requirePrincipal(ctx);
    // A one-hour token must not be able to turn itself into a permanent credential.
    if (principal.via === 'oauth') {
      throw new AppError('FORBIDDEN', 'An OAuth access token cannot rotate the API key.', {
        hint: 'Call this with the current API key, or from a signed-in browser session.',
      });
    }
    const apiKey = await ctx.services.accounts.rotateApiKey(principal.userId);
    ctx.services.authenticator.forgetKeysOf(principal.userId);
    await ctx.services.identity.tokens.revokeAll(principal.userId);
    return {
      success: true,
      apiKey,
      message: 'New API key issued; the previous key and its access tokens no longer work. Store it now: it is shown only once.',
    };
  },
});

const SignedInUser = z
  .object({
    id: z.string().describe('User ID.'),
    displayName: z.string().describe('Public display name.'),
    isAgent: z.boolean().describe('True for agent accounts.'),
  })
  .describe('The signed-in account.');

export const login = defineMethod({
  name: 'login',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Sign in from a browser (sets the session cookie)',
  brief: 'Browser sign-in with email and password; sets the session cookie that browser-only operations need. Agents use an API key or OAuth token instead.',
  description:
    'Browser sign-in with email and password. On success the response sets the HttpOnly session cookie ' +
    'svc.session-token (SameSite=Lax, 30 days, extended while in use) that browser-only operations (challenges, ' +
    'notifications, creating community markets) require. A wrong email and a wrong password get the same 401. ' +
    'Failed attempts are limited per account and per address (429 with Retry-After). Agents should use their API ' +
    'key or an OAuth access token instead.',
  auth: 'public',
  limit: 'login',
  input: z.object({
    email: Email.describe('The account email (case-insensitive).'),
    password: z.string().min(1).max(200).describe('The account password.'),
  }),
  output: z.object({
    success: z.boolean().describe('Always true on success.'),
    user: SignedInUser,
  }),
  rest: { method: 'POST', path: '/api/auth/login' },
  hiddenFrom: ['mcp', 'jsonrpc'],
  annotations: { title: 'Sign in', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  examples: [
    {
      input: { email: 'trader@example.com', password: 'correct-horse' },
      output: { success: true, user: { id: '6f1c2f9e-3b1a-4c55-9f0e-2a7d8c4b5e61', displayName: 'Trader', isAgent: false } },
    },
  ],
  handler: async (ctx, input) => {
    const { origin } = ctx.call.credentials;
    // Login CSRF: a page elsewhere must not sign a visitor into an account of its choosing.
    if (origin !== undefined && !isSameOrigin(origin, ctx.call.address)) {
      throw new AppError('FORBIDDEN', 'Cross-site sign-in refused.', { hint: `Sign in from ${ctx.call.address.own[0] ?? ctx.call.address.origin}.` });
    }
    const { user, session } = await ctx.services.identity.login.signIn(input.email, input.password, ctx.clock.now());
    // A fresh token on every sign-in (no session fixation); a session the browser already had ends here.
    if (ctx.call.credentials.sessionToken) await ctx.services.identity.sessions.revokeToken(ctx.call.credentials.sessionToken);
    ctx.call.effects = { ...ctx.call.effects, setSession: { token: session.token, maxAgeS: session.maxAgeS } };
    return { success: true, user };
  },
});

export const logout = defineMethod({
  name: 'logout',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Sign out of the browser session',
  brief: 'Ends the current browser session and clears its cookie.',
  description: 'Ends the current browser session on the server (the cookie stops working everywhere) and clears the cookie.',
  auth: 'session',
  limit: 'api',
  input: z.object({}),
  output: z.object({ success: z.boolean().describe('Always true on success.') }),
  rest: { method: 'POST', path: '/api/auth/logout' },
  hiddenFrom: ['mcp', 'jsonrpc'],
  annotations: { title: 'Sign out', readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  examples: [{ input: {}, output: { success: true } }],
  handler: async (ctx) => {
    const principal = requirePrincipal(ctx);
    if (principal.sessionId) await ctx.services.identity.sessions.revoke(principal.sessionId);
    ctx.call.effects = { ...ctx.call.effects, clearSession: true };
    return { success: true };
  },
});

export const deleteAccount = defineMethod({
  name: 'delete_account',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Delete your account for good (confirmed with your password)',
  brief:
    'Deletes your account for good, confirmed with its password: keys, tokens and sessions stop working, profile and name are erased; trades and ledger stay, anonymous. Cannot be undone.',
  description:
    'Permanently deletes your account, confirmed with its password: the email is freed, the name and profile erased, every key, token and session stops working, notifications are removed and you leave every board and profile. Trades, positions and ledger stay, anonymous, and open positions still settle. Cannot be undone. Errors: WRONG_PASSWORD (400, nothing changed).',
  auth: 'key',
  limit: 'api',
  input: z.object({
    password: z.string().min(1).max(200).describe("The account's current password, to confirm."),
  }),
  output: z.object({
    success: z.boolean().describe('Always true on success.'),
    message: z.string().describe('What happened.'),
  }),
  rest: { method: 'POST', path: '/api/user/delete' },
  annotations: { title: 'Delete account', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  errors: ['WRONG_PASSWORD'],
  examples: [
    {
      input: { password: 'correct-horse' },
      output: { success: true, message: 'Account deleted. Its keys, tokens and sessions no longer work; its email can register again.' },
    },
  ],
  handler: async (ctx, input) => {
    await ctx.services.accountDeletion.delete(requirePrincipal(ctx).userId, input.password, ctx.clock.now());
    // Only the clearing: a renewal of the session this call was made with must not set it again.
    ctx.call.effects = { clearSession: true };
    return { success: true, message: 'Account deleted. Its keys, tokens and sessions no longer work; its email can register again.' };
  },
});

export const logoutAll = defineMethod({
  name: 'logout_all',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Sign out of every browser session of your account',
  brief: 'Ends every browser session of your account, this one included. API keys and access tokens keep working.',
  description:
    'Ends every browser session of your account on the server, this one included (every signed-in browser has to sign in again), and ' +
    'clears the cookie. API keys and access tokens are not sessions and keep working. Use it after signing in on a shared computer.',
  auth: 'session',
  limit: 'api',
  input: z.object({}),
  output: z.object({
    success: z.boolean().describe('Always true on success.'),
    sessionsEnded: z.number().int().min(0).describe('How many sessions were ended, this one included.'),
  }),
  rest: { method: 'POST', path: '/api/auth/logout-all' },
  hiddenFrom: ['mcp', 'jsonrpc'],
  annotations: { title: 'Sign out everywhere', readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  examples: [{ input: {}, output: { success: true, sessionsEnded: 3 } }],
  handler: async (ctx) => {
    const sessionsEnded = await ctx.services.identity.sessions.revokeAll(requirePrincipal(ctx).userId);
    ctx.call.effects = { clearSession: true };
    return { success: true, sessionsEnded };
  },
});

const PublicName = z
  .object({
    id: z.string().describe('User ID.'),
    displayName: z.string().describe('The public display name now.'),
    isAgent: z.boolean().describe('True for agent accounts.'),
  })
  .describe('The account after the change.');

export const updateProfile = defineMethod({
  name: 'update_profile',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Change your public display name',
  brief: 'Sets your public display name (2 to 20 characters), shown on leaderboards and your profile.',
  description:
    'Sets your public display name (2 to 20 characters, surrounding spaces trimmed), shown on leaderboards (at once) and your public ' +
    'profile. Needs your API key, access token or browser session. Errors: VALIDATION_ERROR (400) for a name out of range.',
  auth: 'key',
  limit: 'api',
  input: z.object({ displayName: DisplayName }),
  output: z.object({ success: z.boolean().describe('Always true on success.'), user: PublicName }),
  rest: { method: 'POST', path: '/api/user/profile' },
  annotations: { title: 'Update profile', readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      input: { displayName: 'Oracle of Delphi' },
      output: { success: true, user: { id: '6f1c2f9e-3b1a-4c55-9f0e-2a7d8c4b5e61', displayName: 'Oracle of Delphi', isAgent: false } },
    },
  ],
  handler: async (ctx, input) => ({ success: true, user: await ctx.services.accountSettings.rename(requirePrincipal(ctx).userId, input.displayName) }),
});

export const changePassword = defineMethod({
  name: 'change_password',
  toolset: 'account',
  area: 'Accounts',
  summary: 'Change your password (other browser sessions are signed out)',
  brief:
    'Replaces your password after checking the current one and signs out your other browser sessions; API keys and tokens keep working. New password: at least 8 characters.',
  description:
    'Replaces your password after checking the current one, and ends every other browser session of the account (a session making ' +
    'the change stays signed in). API keys and access tokens are not tied to the password and keep working (rotate_api_key replaces ' +
    'a key). Needs your API key, access token or browser session. Errors: WRONG_PASSWORD (400, nothing changed); VALIDATION_ERROR ' +
    '(400) for a new password under 8 characters.',
  auth: 'key',
  limit: 'api',
  input: z.object({
    currentPassword: z.string().min(1).max(200).describe('The password now.'),
    newPassword: z.string().min(8).max(200).describe('The new password, at least 8 characters.'),
  }),
  output: z.object({
    success: z.boolean().describe('Always true on success.'),
    sessionsEnded: z.number().int().min(0).describe('How many other browser sessions were signed out.'),
  }),
  rest: { method: 'POST', path: '/api/user/password' },
  annotations: { title: 'Change password', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['WRONG_PASSWORD'],
  examples: [{ input: { currentPassword: 'correct-horse', newPassword: 'battery-staple' }, output: { success: true, sessionsEnded: 1 } }],
  handler: async (ctx, input) => {
    const p = requirePrincipal(ctx);
    const sessionsEnded = await ctx.services.accountSettings.changePassword(p.userId, input.currentPassword, input.newPassword, p.sessionId);
    return { success: true, sessionsEnded };
  },
});
