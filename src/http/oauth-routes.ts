import express, { type Request, type Response, type Router } from 'express';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { InvokeDeps } from '../registry/invoke';
import { AppError } from '../errors/app-error';
import { requestIdOf } from '../transports/http-call';
import { siteAddressOf } from '../transports/public-origin';
import { methodNotAllowed } from '../transports/rest';
import { API_KEY_PATTERN, hashSecret } from '../auth/api-keys';
import { ACCESS_TOKEN_LIFETIME_S, generateAccessToken } from '../auth/access-tokens';
import { AGENT_SCOPE, audiences } from '../auth/authenticator';
import { authorizationServerMetadata, protectedResourceMetadata, SUPPORTED_SCOPES } from '../auth/discovery';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASIC_REALM = 'Basic realm="oauth", charset="UTF-8"';

interface AgentClient extends OAuth2Server.Client {
  /** Hash of the API key used as client secret: the token is bound to it (rotation revokes the token). */
  keyHash: string;
}

/** The library authenticates resource requests through `getAccessToken`; ours go through the Authenticator. */
type TokenEndpointModel = Omit<OAuth2Server.ClientCredentialsModel, 'getAccessToken' | 'verifyScope'>;

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) at POST /oauth/token on @node-oauth/oauth2-server, plus what
 * the library leaves out: both client authentication methods at once is invalid_request (the library lets
 * Basic win silently), Basic credentials are form-urldecoded (§2.3.1), grant types other than
 * client_credentials are unsupported_grant_type, RFC 8707 `resource` picks the audience (invalid_target
 * otherwise), and expiry follows the injected clock. Also the RFC 8414 / RFC 9728 discovery documents, which
 * name the address the request reached (src/transports/public-origin.ts), so a client that checks the issuer and
 * the resource against the URL it used accepts them. Tokens are issued only for the service's own addresses.
 */
export function oauthRouter(deps: InvokeDeps): Router {
  const { services } = deps;
  const { config } = services;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '10kb', parameterLimit: 20 });

  const metadata = (doc: (origin: string) => Record<string, unknown>) => (req: Request, res: Response) => {
    res.set('Cache-Control', 'public, max-age=3600').json(doc(siteAddressOf(req, config).origin));
  };
  router.get('/.well-known/oauth-authorization-server', metadata(authorizationServerMetadata));
  router.get(
    '/.well-known/oauth-protected-resource',
    metadata((origin) => protectedResourceMetadata(origin, 'api')),
  );
  router.get(
    '/.well-known/oauth-protected-resource/mcp',
    metadata((origin) => protectedResourceMetadata(origin, 'mcp')),
  );

  // Listed in the metadata for clients that require the field; no response type is supported (RFC 6749 §4.1.2.1).
  router.get('/oauth/authorize', (_req, res) => {
    oauthError(
      res,
      400,
      'unsupported_response_type',
      'This server has no interactive authorization: agents get tokens with the client_credentials grant at POST /oauth/token.',
    );
  });

  router.post('/oauth/token', async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    const ip = req.ip ?? req.socket.remoteAddress ?? '0.0.0.0';
    try {
      await services.limiter.consume('api', `ip:${ip}`, ip);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      res
        .set(err.headers ?? {})
        .status(err.status)
        .json(err.toBody());
      return;
    }
    if (!req.is('application/x-www-form-urlencoded')) {
      return oauthError(res, 400, 'invalid_request', 'The token request must be sent as application/x-www-form-urlencoded.');
    }
    const parseError = await new Promise<unknown>((resolve) => form(req, res, resolve));
    if (parseError) return oauthError(res, 400, 'invalid_request', 'The form body is malformed or larger than 10 kB.');
    const body = (req.body ?? {}) as Record<string, string | string[] | undefined>;

    // RFC 6749 §3.2: parameters must not repeat (RFC 8707 `resource` may).
    const repeated = Object.keys(body).find((k) => k !== 'resource' && Array.isArray(body[k]));
    if (repeated) return oauthError(res, 400, 'invalid_request', `Parameter ${repeated} was sent more than once.`);
    const grantType = body.grant_type as string | undefined;
    if (!grantType) return oauthError(res, 400, 'invalid_request', 'Missing parameter: grant_type (use client_credentials).');
    if (grantType !== 'client_credentials') {
      return oauthError(res, 400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
    }

    let basic: { id: string; secret: string } | null = null;
    const authorization = req.get('authorization');
    if (authorization !== undefined) {
      basic = parseBasic(authorization);
      if (!basic) {
        return oauthError(res, 401, 'invalid_client', 'Client authentication failed: send HTTP Basic with the form-urlencoded client_id and client_secret.', {
          'WWW-Authenticate': BASIC_REALM,
        });
      }
      if (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== basic.id)) {
        return oauthError(
          res,
          400,
          'invalid_request',
          'Use one client authentication method: HTTP Basic or client_id and client_secret in the body, not both.',
        );
      }
    }

    const address = siteAddressOf(req, config);
    const aud = audiences(address.origin);
    if (!address.own.includes(address.origin)) {
      return oauthError(
        res,
        400,
        'invalid_target',
        `${address.origin} is not an address of this service, so no token is issued for it: use the service at localhost or 127.0.0.1 on its port, or set BASE_URL (or TRUST_PROXY behind a proxy).`,
      );
    }
    const resources = body.resource === undefined ? [] : ([] as string[]).concat(body.resource);
    const targets = new Set(resources.map((r) => audienceOf(r, address.own)));
    if (targets.has(null) || targets.size > 1) {
      return oauthError(res, 400, 'invalid_target', `Unknown resource: tokens are issued for ${aud.api} or ${aud.mcp}, one per token.`);
    }
    const audience = targets.size ? [...targets][0]! : aud.api;

    const model: TokenEndpointModel = {
      async getClient(clientId: string, clientSecret: string) {
        // Only agent accounts have client credentials: client_id = user id, client_secret = API key.
        if (!UUID.test(clientId) || !API_KEY_PATTERN.test(clientSecret)) return null;
        const keyHash = hashSecret(clientSecret);
        const rows = await services.db.query<{ id: string }>('SELECT id FROM users WHERE id = $1 AND api_key_hash = $2 AND is_agent', [clientId, keyHash]);
        return rows[0] ? ({ id: rows[0].id, grants: ['client_credentials'], keyHash } satisfies AgentClient) : null;
      },
      async getUserFromClient(client) {
        return { id: client.id };
      },
      async validateScope(_user, _client, scope) {
        const requested = scope ?? [AGENT_SCOPE]; // RFC 6749 §3.3: a default when omitted
        return requested.every((s) => SUPPORTED_SCOPES.includes(s)) ? [...new Set(requested)] : false;
      },
      async generateAccessToken() {
        return generateAccessToken();
      },
      async saveToken(token, client, user) {
        const issued = await services.identity.tokens.issue({
          token: token.accessToken,
          userId: client.id,
          keyHash: (client as AgentClient).keyHash,
          audience,
          scopes: token.scope ?? [AGENT_SCOPE],
          now: deps.clock.now(),
        });
        return { ...token, accessTokenExpiresAt: issued.expiresAt, client, user };
      },
    };
    const server = new OAuth2Server({ model: model as OAuth2Server.ClientCredentialsModel, accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S });
    const oauthRequest = new OAuth2Server.Request({
      method: 'POST',
      query: {},
      headers: {
        'content-type': req.get('content-type') ?? '',
        'content-length': req.get('content-length') ?? '',
        'transfer-encoding': req.get('transfer-encoding') ?? '',
        // Re-encoded from the decoded values: the library's Basic parser does not form-urldecode.
        ...(basic ? { authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}` } : {}),
      },
      body: {
        grant_type: grantType,
        ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
        ...(!basic && typeof body.client_id === 'string' ? { client_id: body.client_id } : {}),
        ...(!basic && typeof body.client_secret === 'string' ? { client_secret: body.client_secret } : {}),
      },
    });
    const oauthResponse = new OAuth2Server.Response();
    try {
      const token = await server.token(oauthRequest, oauthResponse);
      res.set(oauthResponse.headers ?? {});
      res
        .status(200)
        .json({ access_token: token.accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_LIFETIME_S, scope: (token.scope ?? []).join(' ') });
    } catch (err) {
      if (err instanceof OAuth2Server.OAuthError && err.code < 500) {
        // The library puts WWW-Authenticate (invalid_client over Basic) on its response object, not on the error.
        const headers = { ...(oauthResponse.headers ?? {}) };
        if (headers['www-authenticate']) headers['www-authenticate'] = BASIC_REALM;
        return oauthError(res, err.code, err.name, err.message, headers);
      }
      services.log.error('token endpoint failed', { requestId: requestIdOf(req, res), err: err instanceof Error ? err.message : String(err) });
      return oauthError(res, 500, 'server_error', 'Internal error. Quote the X-Request-Id header when reporting it.');
    }
  });

  router.all('/oauth/token', methodNotAllowed(['POST']));
  return router;
}

/** RFC 6749 §5.2 error body. */
function oauthError(res: Response, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  res.set('Cache-Control', 'no-store').set(headers).status(status).json({ error, error_description: description });
}

/** RFC 6749 §2.3.1 / RFC 7617: base64 of form-urlencoded id ":" form-urlencoded secret. Null when malformed. */
function parseBasic(header: string): { id: string; secret: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** The audience an RFC 8707 resource indicator names at one of the service's own origins, or null. */
function audienceOf(resource: string, own: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.hash || url.search) return null;
  const normalised = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  for (const origin of own) {
    const aud = audiences(origin);
    if (normalised === aud.api || normalised === aud.mcp) return normalised;
  }
  return null;
}
