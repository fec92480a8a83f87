import { z } from 'zod';
import type { MethodServices } from '../registry/method-services';
import { onSurface, type AnyMethod } from '../registry/method';
import { inputSchemaOf } from './json-schema';
import { perOrigin } from '../transports/public-origin';
import { SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice } from './service-info';

/** The JSON-RPC / A2A endpoint, relative to the service's address. */
export const A2A_PATH = '/api/a2a';
export const AGENT_CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'] as const;

/**
 * One card read by A2A v1.0 clients (supportedInterfaces, securityRequirements, ProtoJSON security schemes)
 * and by v0.3 clients (url, preferredTransport, protocolVersion, security, `type`-tagged schemes). The two
 * versions use different keys except in `securitySchemes`, where each entry carries both shapes side by side.
 */
const Interface = z
  .object({
    url: z.url().describe('Endpoint of this interface.'),
    protocolBinding: z.string().describe('Wire binding: JSONRPC.'),
    protocolVersion: z.string().describe('A2A protocol version spoken at this URL.'),
  })
  .loose()
  .describe('An A2A interface (v1.0 AgentInterface).');

const ProtoSecurityRequirement = z
  .object({
    schemes: z
      .record(z.string(), z.object({ list: z.array(z.string()).optional().describe('Required scopes.') }).loose())
      .optional()
      .describe('Scheme name → required scopes; no schemes means no credential is needed.'),
  })
  .loose()
  .describe('A2A v1.0 SecurityRequirement: all listed schemes together.');

const LegacySecurityRequirement = z
  .record(z.string(), z.array(z.string()).describe('Required scopes.'))
  .describe('A2A v0.3 / OpenAPI security requirement: scheme name → scopes; {} means no credential is needed.');

const Skill = z
  .object({
    id: z.string().describe('Skill id = registry method name: the `skill` of a data part, or the JSON-RPC method.'),
    name: z.string().describe('Short name of the skill.'),
    description: z.string().describe('What the skill does, when to use it, what can go wrong.'),
    tags: z.array(z.string()).describe('Area first, then access (public / requires-key) and read-only / writes.'),
    examples: z.array(z.string()).describe('Data parts to send, as JSON: {"skill": id, "input": {...}}.'),
    inputModes: z.array(z.string()).describe('Media types the skill takes.'),
    outputModes: z.array(z.string()).describe('Media types the skill answers with.'),
    securityRequirements: z.array(ProtoSecurityRequirement).describe('A2A v1.0: credentials this skill needs.'),
    security: z.array(LegacySecurityRequirement).describe('A2A v0.3: credentials this skill needs.'),
  })
  .loose()
  .describe('A skill: one registry method.');

export const AgentCardSchema = z
  .object({
    name: z.string().describe('Name of the agent.'),
    description: z.string().describe('What the agent is: paper trading with virtual money, and where market data comes from.'),
    version: z.string().describe('Version of the API.'),
    supportedInterfaces: z.array(Interface).min(1).describe('A2A v1.0: interfaces, preferred first.'),
    protocolVersion: z.string().describe('A2A v0.3: protocol version of `url`.'),
    url: z.url().describe('A2A v0.3: the JSON-RPC endpoint.'),
    preferredTransport: z.string().describe('A2A v0.3: transport of `url` (JSONRPC).'),
    provider: z
      .object({
        organization: z.string().describe('Who runs the service.'),
        url: z.url().describe('Its address.'),
      })
      .loose()
      .describe('The service provider.'),
    documentationUrl: z.url().describe('Documentation for agents (llms.txt).'),
    capabilities: z
      .object({
        streaming: z.boolean().describe('Streaming responses (SSE): not offered.'),
        pushNotifications: z.boolean().describe('Push notifications: not offered.'),
        extendedAgentCard: z.boolean().describe('A2A v1.0: an extended card for authenticated callers: not offered.'),
        extensions: z
          .array(
            z
              .object({
                uri: z.string().describe('Identifier of the extension.'),
                description: z.string().describe('What the extension means here.'),
                required: z.boolean().describe('Whether clients must understand it.'),
                params: z.record(z.string(), z.unknown()).optional().describe('Extension data.'),
              })
              .loose()
              .describe('A protocol extension.'),
          )
          .describe('Protocol extensions the agent uses.'),
      })
      .loose()
      .describe('Optional A2A features.'),
    supportsAuthenticatedExtendedCard: z.boolean().describe('A2A v0.3: an extended card for authenticated callers: not offered.'),
    defaultInputModes: z.array(z.string()).describe('Media types accepted in messages.'),
    defaultOutputModes: z.array(z.string()).describe('Media types answered.'),
    skills: z.array(Skill).describe('One skill per registry method offered over JSON-RPC / A2A.'),
    securitySchemes: z
      .record(z.string(), z.object({}).loose().describe('A scheme in both the v0.3 (`type`) and v1.0 (oneof key) shapes.'))
      .describe('How to authenticate.'),
    securityRequirements: z.array(ProtoSecurityRequirement).describe('A2A v1.0: default requirement (any one of these).'),
    security: z.array(LegacySecurityRequirement).describe('A2A v0.3: default requirement (any one of these).'),
  })
  .loose()
  .describe('A2A agent card');

export type AgentCard = z.input<typeof AgentCardSchema>;

/** Identifies the calling convention of this agent: a data part {skill, input} runs a skill. */
export const SKILL_CALL_EXTENSION = 'skill-call/v1';

/** What the card is built from: the registry (and the address it is served at). */
type CardSource = Pick<MethodServices, 'config' | 'registry'>;

const cache = new WeakMap<CardSource, (origin: string) => { card: AgentCard; json: string }>();

/** The card at one of the service's addresses, built once per Services and address (it depends on nothing else). */
export function agentCardOf(services: CardSource, origin: string): AgentCard {
  return cached(services, origin).card;
}

/** The card serialized once per address, for the well-known routes. */
export function agentCardJsonOf(services: CardSource, origin: string): string {
  return cached(services, origin).json;
}

function cached(services: CardSource, origin: string): { card: AgentCard; json: string } {
  let byOrigin = cache.get(services);
  if (!byOrigin) {
    byOrigin = perOrigin((at) => {
      const card = buildAgentCard(services, at);
      return { card, json: JSON.stringify(card) };
    });
    cache.set(services, byOrigin);
  }
  return byOrigin(origin);
}

type Access = 'public' | 'key-optional' | 'requires-key';
type Requirements = { v1: Array<z.input<typeof ProtoSecurityRequirement>>; v03: Array<Record<string, string[]>> };

const KEYED: Requirements = {
  v1: [{ schemes: { bearerAuth: { list: [] } } }, { schemes: { oauth2: { list: ['agent'] } } }],
  v03: [{ bearerAuth: [] }, { oauth2: ['agent'] }],
};
// An empty requirement is the OpenAPI / A2A way of saying "no credential needed".
const REQUIREMENTS: Record<Access, Requirements> = {
  public: { v1: [{}], v03: [{}] },
  'key-optional': { v1: [...KEYED.v1, {}], v03: [...KEYED.v03, {}] },
  'requires-key': KEYED,
};

export function accessOf(m: AnyMethod): Access {
  return m.auth === 'public' ? 'public' : m.auth === 'optional' ? 'key-optional' : 'requires-key';
}

export function buildAgentCard(services: CardSource, base: string): AgentCard {
  const { config, registry } = services;
  const endpoint = `${base}${A2A_PATH}`;
  const methods = registry.methods.filter((m) => onSurface(m, 'jsonrpc'));
  const bearerDescription =
    'Authorization: Bearer <API key or OAuth access token>. An agent key (svc_<32 hex>) is returned once by ' +
    'register_account with isAgent true. Send it only to this service, only in this header.';
  const oauthDescription =
    'OAuth 2.0 client credentials: POST the user id as client_id and the API key as client_secret to the token URL ' +
    '(form-encoded, scope=agent); the access token is valid for one hour and is sent as a bearer token.';
  const tokenUrl = `${base}/oauth/token`;
  const scopes = { agent: 'Read the agent portfolio and place virtual trades.' };

  return {
    name: SERVICE_TITLE,
    description:
      `${SERVICE_SUMMARY} ${marketDataNotice(config)} ` +
      'To run a skill, send a message whose data part is {"skill": "<skill id>", "input": {...}}; the reply is a ' +
      'message with the result in a data part. A text message gets the list of skills. The same endpoint also ' +
      `answers plain JSON-RPC 2.0 with the skill id as the method and the input as params. An agent rotates its own key with ` +
      `the rotate_api_key skill (POST /api/user/api-key/rotate); support: ${config.SUPPORT_EMAIL}.`,
    version: '1.0.0',
    supportedInterfaces: [
      { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    protocolVersion: '0.3.0',
    url: endpoint,
    preferredTransport: 'JSONRPC',
    provider: { organization: SERVICE_TITLE, url: base },
    documentationUrl: `${base}/llms.txt`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: `${base}${AGENT_CARD_PATHS[0]}#${SKILL_CALL_EXTENSION}`,
          description:
            'Skill calls: a message data part {"skill": "<skill id>", "input": {...}} runs that skill with the caller\'s ' +
            "credentials; params.inputSchemas holds the JSON Schema of each skill's input. Never required.",
          required: false,
          params: { inputSchemas: Object.fromEntries(methods.map((m) => [m.name, inputSchemaOf(m)])) },
        },
      ],
    },
    supportsAuthenticatedExtendedCard: false,
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: methods.map(skillOf),
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'svc_<32 hex> API key or OAuth access token',
        description: bearerDescription,
        httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'svc_<32 hex> API key or OAuth access token', description: bearerDescription },
      },
      oauth2: {
        type: 'oauth2',
        description: oauthDescription,
        flows: { clientCredentials: { tokenUrl, scopes } },
        oauth2MetadataUrl: `${base}/.well-known/oauth-authorization-server`,
        oauth2SecurityScheme: {
          description: oauthDescription,
          flows: { clientCredentials: { tokenUrl, scopes } },
          oauth2MetadataUrl: `${base}/.well-known/oauth-authorization-server`,
        },
      },
    },
    securityRequirements: KEYED.v1,
    security: KEYED.v03,
  };
}

function skillOf(m: AnyMethod): z.input<typeof Skill> {
  const access = accessOf(m);
  return {
    id: m.name,
    name: m.summary,
    description: m.description,
    tags: [m.area, access, m.annotations.readOnlyHint ? 'read-only' : 'writes'],
    examples: (m.examples ?? []).map((e) => JSON.stringify({ skill: m.name, input: e.input })),
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    securityRequirements: REQUIREMENTS[access].v1,
    security: REQUIREMENTS[access].v03,
  };
}
