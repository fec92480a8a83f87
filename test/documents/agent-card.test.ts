import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { onSurface } from '../../src/registry/method';
import { inputSchemaOf } from '../../src/documents/json-schema';
import { AgentCardSchema, agentCardOf, type AgentCard } from '../../src/documents/agent-card';
import { marketDataNotice } from '../../src/documents/service-info';

const BASE = 'https://paper.example.com';

describe.each(backends())('agent card on $name', (backend) => {
  let t: TestApp;
  let card: AgentCard;

  beforeAll(async () => {
    t = await startTestApp(backend, { config: { BASE_URL: BASE } });
    card = (await t.api.get('/.well-known/agent-card.json')).body as AgentCard;
  });
  afterAll(async () => t.close());

  test('when the card is read at its three addresses, then all three are the same JSON document', async () => {
    const wellKnown = await t.api.get('/.well-known/agent-card.json');
    const mirror = await t.api.get('/.well-known/agent.json');
    const api = await t.api.get('/api/a2a');
    for (const res of [wellKnown, mirror, api]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    expect(mirror.body).toEqual(wellKnown.body);
    expect(api.body).toEqual(wellKnown.body);
    expect(wellKnown.headers['access-control-allow-origin']).toBe('*');
  });

  test('the card is built once per process and address: the same object every time', () => {
    expect(agentCardOf(t.services, BASE)).toBe(agentCardOf(t.services, BASE));
    expect(card).toEqual(agentCardOf(t.services, BASE));
  });

  test('the card matches the output schema of agent.getCard', () => {
    expect(AgentCardSchema.safeParse(card).success).toBe(true);
  });

  test('when an A2A v1.0 reader parses it with the SDK codec, then it finds the JSONRPC 1.0 interface and both security schemes', async () => {
    const { AgentCard } = await import('@a2a-js/sdk');
    const v1 = AgentCard.fromJSON(card);
    expect(v1.supportedInterfaces[0]).toEqual({ url: `${BASE}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' });
    expect(v1.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '0.3']);
    expect(v1.securitySchemes.bearerAuth!.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } });
    const oauth = v1.securitySchemes.oauth2!.scheme;
    expect(oauth?.$case).toBe('oauth2SecurityScheme');
    const flow = oauth?.$case === 'oauth2SecurityScheme' ? oauth.value.flows?.flow : undefined;
    expect(flow).toEqual({ $case: 'clientCredentials', value: { tokenUrl: `${BASE}/oauth/token`, refreshUrl: '', scopes: { agent: expect.any(String) } } });
    expect(v1.securityRequirements).toEqual([{ schemes: { bearerAuth: { list: [] } } }, { schemes: { oauth2: { list: ['agent'] } } }]);
    expect(v1.capabilities).toMatchObject({ streaming: false, pushNotifications: false, extendedAgentCard: false });
    expect(v1.skills.length).toBe(card.skills.length);
  });

  test('when an A2A v0.3 reader parses it, then it finds url, JSONRPC, protocol 0.3.0 and the same security schemes', () => {
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${BASE}/api/a2a`, preferredTransport: 'JSONRPC' });
    expect(card.security).toEqual([{ bearerAuth: [] }, { oauth2: ['agent'] }]);
    const legacy = parseLegacyAgentCard(card);
    expect(legacy.supportedInterfaces[0]).toMatchObject({ url: `${BASE}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' });
    expect(legacy.securitySchemes.bearerAuth!.scheme?.$case).toBe('httpAuthSecurityScheme');
    expect(legacy.securitySchemes.oauth2!.scheme?.$case).toBe('oauth2SecurityScheme');
  });

  test('the description says plainly that money is virtual and where market data comes from', () => {
    expect(card.description).toMatch(/virtual/i);
    expect(card.description).toContain(marketDataNotice(t.config));
    expect(card.description).toMatch(/not (any venue's|its) official feed/);
    expect(card).toMatchObject({ name: expect.any(String), version: '1.0.0', provider: { url: BASE }, documentationUrl: `${BASE}/llms.txt` });
    expect(card.defaultInputModes).toEqual(expect.arrayContaining(['application/json', 'text/plain']));
  });

  test('every jsonrpc-surface method is a skill with its id, summary, description, area tag, examples and security; no other method is', () => {
    const offered = t.services.registry.methods.filter((m) => onSurface(m, 'jsonrpc'));
    expect(card.skills.map((s) => s.id)).toEqual(offered.map((m) => m.name));
    const schemas = card.capabilities.extensions[0]!.params!.inputSchemas as Record<string, unknown>;
    for (const m of offered) {
      const skill = card.skills.find((s) => s.id === m.name)!;
      expect(skill).toMatchObject({ name: m.summary, description: m.description });
      expect(skill.tags[0]).toBe(m.area);
      expect(skill.examples).toEqual((m.examples ?? []).map((e) => JSON.stringify({ skill: m.name, input: e.input })));
      for (const example of skill.examples) expect(m.input.safeParse(JSON.parse(example).input).success).toBe(true);
      if (m.auth === 'public') {
        expect(skill.tags).toContain('public');
        expect(skill.security).toEqual([{}]);
      } else if (m.auth === 'key') {
        expect(skill.tags).toContain('requires-key');
        expect(skill.security).toEqual([{ bearerAuth: [] }, { oauth2: ['agent'] }]);
        expect(skill.securityRequirements).toEqual([{ schemes: { bearerAuth: { list: [] } } }, { schemes: { oauth2: { list: ['agent'] } } }]);
      }
      expect(schemas[m.name]).toEqual(inputSchemaOf(m));
    }
    expect(card.skills.find((s) => s.id === 'get_balance')!.tags).toEqual(['Accounts', 'requires-key', 'read-only']);
  });
});
