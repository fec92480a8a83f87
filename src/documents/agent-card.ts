import { z } from 'zod';
import type { Principal } from '../registry/context';
import type { MethodServices } from '../registry/method-services';
import { onSurface, toolDescriptionOf, type AnyMethod } from '../registry/method';
import { inputSchemaOf } from './json-schema';
import { leanInputSchema } from './schema-compaction';
import { perOrigin } from '../transports/public-origin';
import { SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice } from './service-info';
import { CardSigner } from './card-signing';

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
    tags: z
      .array(z.string())
      .describe(
        'Area first, then access (public / requires-key), read-only / writes, and toolset:<name> of its MCP toolset (toolset:default too when /mcp lists it).',
      ),
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
        streaming: z.boolean().describe('SendStreamingMessage and SubscribeToTask (SSE): a resting order is followed until it ends.'),
        pushNotifications: z.boolean().describe("Push notification configs: a task's updates are POSTed to the agent's URL."),
        extendedAgentCard: z.boolean().describe("A2A v1.0: GetExtendedAgentCard answers authenticated callers with their account's skills and limits."),
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
    supportsAuthenticatedExtendedCard: z.boolean().describe('A2A v0.3: agent/getAuthenticatedExtendedCard answers authenticated callers.'),
    defaultInputModes: z.array(z.string()).describe('Media types accepted in messages.'),
    defaultOutputModes: z.array(z.string()).describe('Media types answered.'),
    skills: z.array(Skill).describe('One skill per registry method offered over JSON-RPC / A2A.'),
    securitySchemes: z
      .record(z.string(), z.object({}).loose().describe('A scheme in both the v0.3 (`type`) and v1.0 (oneof key) shapes.'))
      .describe('How to authenticate.'),
    securityRequirements: z.array(ProtoSecurityRequirement).describe('A2A v1.0: default requirement (any one of these).'),
    security: z.array(LegacySecurityRequirement).describe('A2A v0.3: default requirement (any one of these).'),
    signatures: z
      .array(
        z
          .object({
            protected: z.string().describe('Base64url JWS protected header (alg, kid, typ, jku).'),
            signature: z.string().describe('Base64url JWS signature over the RFC 8785 canonical form of the card (A2A v1.0 fields, without signatures).'),
          })
          .loose()
          .describe('A JWS signature of the card.'),
      )
      .optional()
      .describe('JWS signatures of the card, when the operator configured a signing key; the public keys are at jku.'),
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

const signers = new WeakMap<object, Promise<CardSigner> | null>();
const published = new WeakMap<CardSource, (origin: string) => Promise<{ card: AgentCard; json: string }>>();

/** The card signer of a configuration (AGENT_CARD_SIGNING_KEY), built once; null when no key is configured. */
export function cardSignerOf(config: MethodServices['config']): Promise<CardSigner> | null {
  if (!signers.has(config)) signers.set(config, CardSigner.fromConfig(config));
  return signers.get(config) ?? null;
}

/** The card as served at the well-known paths and by agent.getCard: signed when a signing key is configured. */
export function publishedAgentCardOf(services: CardSource, origin: string): Promise<{ card: AgentCard; json: string }> {
  const signer = cardSignerOf(services.config);
  if (!signer) return Promise.resolve(cached(services, origin));
  let byOrigin = published.get(services);
  if (!byOrigin) {
    byOrigin = perOrigin(async (at) => {
      const card = await (await signer).sign(cached(services, at).card, at);
      return { card, json: JSON.stringify(card) };
    });
    published.set(services, byOrigin);
  }
  return byOrigin(origin);
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
      'message with the result in a data part, except a place_order that rests: it becomes a task (task id = order id) in ' +
      'working until the order is filled, cancelled or expired (GetTask, CancelTask, SubscribeToTask, push notification ' +
      'configs). A text message gets the list of skills. The same endpoint also ' +
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
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: [
        {
          uri: `${base}${AGENT_CARD_PATHS[0]}#${SKILL_CALL_EXTENSION}`,
          description:
            'Skill calls: a message data part {"skill": "<skill id>", "input": {...}} runs that skill with the caller\'s ' +
            "credentials; params.inputSchemas holds the JSON Schema of each skill's input. Never required.",
          required: false,
          // Spelled as tools/list spells them (no date-time pattern beside its format, no type an enum restates, no note on a
          // deprecated alias): same inputs.
          params: { inputSchemas: Object.fromEntries(methods.map((m) => [m.name, leanInputSchema(inputSchemaOf(m))])) },
        },
      ],
    },
    supportsAuthenticatedExtendedCard: true,
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

/** Identifies what the extended card adds for its caller: the account, its limits and the skills its key unlocks. */
export const CALLER_EXTENSION = 'caller/v1';

/**
 * The extended card (GetExtendedAgentCard): the public card plus, for the authenticated caller, an extension naming
 * the account, the rate limits that apply to it (per minute, by class) and the skills its credential unlocks.
 */
export function extendedAgentCardOf(services: CardSource, origin: string, principal: Principal): AgentCard {
  const card = buildAgentCard(services, origin);
  const { config, registry } = services;
  const keyed = registry.methods.filter((m) => onSurface(m, 'jsonrpc') && accessOf(m) !== 'public');
  const perMinute = {
    api: config.RATE_LIMIT_API_PER_MIN,
    trade: config.RATE_LIMIT_TRADE_PER_MIN,
    sell: config.RATE_LIMIT_SELL_PER_MIN,
    comment: config.RATE_LIMIT_COMMENT_PER_MIN,
  };
  return {
    ...card,
    description: `${card.description} This is the extended card of account ${principal.userId}.`,
    capabilities: {
      ...card.capabilities,
      extensions: [
        ...card.capabilities.extensions,
        {
          uri: `${origin}${AGENT_CARD_PATHS[0]}#${CALLER_EXTENSION}`,
          description: 'The caller: its account, the rate limits that apply to it (calls per minute by class) and the skills its credential unlocks.',
          required: false,
          params: {
            userId: principal.userId,
            isAgent: principal.isAgent,
            via: principal.via,
            scopes: principal.scopes,
            rateLimitsPerMinute: perMinute,
            keyedSkills: keyed.map((m) => ({ id: m.name, rateLimitClass: m.limit, rateLimitPerMinute: perMinute[m.limit as keyof typeof perMinute] ?? null })),
          },
        },
      ],
    },
  };
}

function skillOf(m: AnyMethod): z.input<typeof Skill> {
  const access = accessOf(m);
  return {
    id: m.name,
    name: m.summary,
    description: toolDescriptionOf(m),
    // The MCP toolset last (issue 51 item 1): the card groups its skills as /mcp/x/{toolset} groups the tools.
    tags: [m.area, access, m.annotations.readOnlyHint ? 'read-only' : 'writes', `toolset:${m.toolset}`, ...(m.defaultTool ? ['toolset:default'] : [])],
    examples: (m.examples ?? []).map((e) => JSON.stringify({ skill: m.name, input: e.input })),
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    securityRequirements: REQUIREMENTS[access].v1,
    security: REQUIREMENTS[access].v03,
  };
}
