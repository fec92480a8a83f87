import { AGENT_SCOPE, audiences } from './authenticator';

/** The scopes this server knows. `agent`: read the agent's portfolio and place virtual trades (SPEC). */
export const SUPPORTED_SCOPES = [AGENT_SCOPE];

/**
 * RFC 8414 authorization server metadata. There is no user-facing authorization flow, only client
 * credentials; `authorization_endpoint` is still listed because RFC 8414 clients such as the MCP SDK
 * refuse metadata without one; that endpoint answers every request with unsupported_response_type.
 */
export function authorizationServerMetadata(baseUrl: string): Record<string, unknown> {
  return {
    issuer: baseUrl,
    token_endpoint: `${baseUrl}/oauth/token`,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: [],
    service_documentation: `${baseUrl}/llms.txt`,
  };
}

/** RFC 9728 protected resource metadata: the whole API at BASE_URL, or only the MCP endpoint. */
export function protectedResourceMetadata(baseUrl: string, which: 'api' | 'mcp'): Record<string, unknown> {
  return {
    resource: audiences(baseUrl)[which],
    authorization_servers: [baseUrl],
    scopes_supported: SUPPORTED_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: which === 'mcp' ? 'Paper-trading MCP server' : 'Paper-trading API',
    resource_documentation: `${baseUrl}/llms.txt`,
  };
}
