import { AGENT_SCOPE, audiences } from './authenticator';

/** The scopes this server knows. `agent`: read the agent's portfolio and place virtual trades (SPEC). */
export const SUPPORTED_SCOPES = [AGENT_SCOPE];

/**
 * RFC 8414 authorization server metadata. There is no user-facing authorization flow, only client
 * credentials; `authorization_endpoint` is still listed because RFC 8414 clients such as the MCP SDK
 * refuse metadata without one; that endpoint answers every request with unsupported_response_type.
 */
export function authorizationServerMetadata(origin: string): Record<string, unknown> {
  return {
    issuer: origin,
    token_endpoint: `${origin}/oauth/token`,
    authorization_endpoint: `${origin}/oauth/authorize`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: [],
    service_documentation: `${origin}/llms.txt`,
  };
}

/** RFC 9728 protected resource metadata: the whole API at an address of the service, or only its MCP endpoint. */
export function protectedResourceMetadata(origin: string, which: 'api' | 'mcp'): Record<string, unknown> {
  return {
    resource: audiences(origin)[which],
    authorization_servers: [origin],
    scopes_supported: SUPPORTED_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: which === 'mcp' ? 'Paper-trading MCP server' : 'Paper-trading API',
    resource_documentation: `${origin}/llms.txt`,
  };
}
