import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { onSurface, toolDescriptionOf } from '../../src/registry/method';
import { inputSchemaOf } from '../../src/documents/json-schema';
import { leanInputSchema } from '../../src/documents/schema-compaction';
import { AgentCardSchema, agentCardOf, type AgentCard } from '../../src/documents/agent-card';
import { marketDataNotice } from '../../src/documents/service-info';
import { canonicalFormOf, CARD_JWKS_PATH } from '../../src/documents/card-signing';
import { generateKeyPairSync } from 'node:crypto';

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

  test("when the card is read, then it stays within its size (it is read into a model's context too)", async () => {
    const res = await t.api.get('/.well-known/agent-card.json');
    // 105.5 KB before tools/list's spelling of input schemas was shared with it, 95.5 KB after; 85.7 KB once descriptions
    // were written for a model; 84.8 KB once a deprecated alias lost its note (leanInputSchema). Skill descriptions
    // (24 KB) and input schemas (31 KB) are most of it. 72.9 KB once a skill's description became its method's brief
    // (toolDescriptionOf); 71.3 KB once input field descriptions no longer restated their schemas' bounds and defaults.
    // 72.7 KB with each skill's toolset tag (issue 51 item 1: the card groups its skills as /mcp/x/{toolset} groups tools);
    // 73.4 KB with the whoami skill (issue 51 item 7); 73.8 KB with get_venue_commitments (issue 49's sealed outcomes);
    // 74.15 KB with the stated probability's one name beside its deprecated alias (issue 51 item 3: probability on
    // paper_trade, place_order, place_orders; probabilities on buy_community_shares), until the alias's sunset.
    // +0.6 KB with a cursor input on the six lists that had none (issue 51 item 4); +0.03 KB with export_benchmark_forecasts'
    // part (issue 49 item 4); 75.65 KB with list_replays (issue 53 item 6); 76.6 KB with fields on the three market lists
    // (issue 51 item 2: their skills' input schemas name the item fields). The bound only ratchets down.
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(76.7 * 1024);
  });

  test('the card is built once per process and address: the same object every time', () => {
    expect(agentCardOf(t.services, BASE)).toBe(agentCardOf(t.services, BASE));
    expect(card).toEqual(agentCardOf(t.services, BASE));
  });

  test('when no signing key is configured, then the card carries no signatures and there is no key set', async () => {
    expect(card.signatures).toBeUndefined();
    expect((await t.api.get(CARD_JWKS_PATH)).status).toBe(404);
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
    expect(v1.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
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
      expect(skill).toMatchObject({ name: m.summary, description: toolDescriptionOf(m) });
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
      // Spelled as tools/list spells inputs: an alias stays accepted and marked deprecated, its note is in the docs.
      expect(schemas[m.name]).toEqual(leanInputSchema(inputSchemaOf(m)));
      for (const [name, property] of Object.entries((inputSchemaOf(m).properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (property.deprecated === true)
          expect((schemas[m.name] as { properties: Record<string, unknown> }).properties[name]).toMatchObject({ deprecated: true });
      }
    }
    expect(card.skills.find((s) => s.id === 'get_balance')!.tags).toEqual(['Accounts', 'requires-key', 'read-only', 'toolset:portfolio', 'toolset:default']);
  });
});

describe.each(backends())('signed agent card on $name', (backend) => {
  let t: TestApp;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  beforeAll(async () => {
    t = await startTestApp(backend, {
      config: { BASE_URL: BASE, AGENT_CARD_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), AGENT_CARD_SIGNING_KID: 'card-key-1' },
    });
  });
  afterAll(async () => t.close());

  /** The public key, as a verifier finds it: from the signature's jku, by kid. */
  async function keyOf(kid: string, jku?: string) {
    expect(jku).toBe(`${BASE}${CARD_JWKS_PATH}`);
    const jwks = (await t.api.get(CARD_JWKS_PATH)).body as { keys: Array<{ kid: string }> };
    const jose = await import('jose');
    return (await jose.importJWK(jwks.keys.find((k) => k.kid === kid) as import('jose').JWK, 'ES256')) as Exclude<
      Awaited<ReturnType<typeof jose.importJWK>>,
      Uint8Array
    >;
  }

  test('when a key is configured, then every address serves the same signed card, and the SDK verifies it with the key from jku', async () => {
    const card = (await t.api.get('/.well-known/agent-card.json')).body as AgentCard;
    expect((await t.api.get('/api/a2a')).body).toEqual(card);
    expect(card.signatures).toHaveLength(1);
    // The SDK canonicalizes what it is given through AgentCard.fromJSON: give it the card as JSON, as served. (Given a card
    // it decoded itself, @a2a-js/sdk 1.3 re-reads the decoded security schemes as JSON and drops them from the payload.)
    const { verifyAgentCardSignature } = await import('@a2a-js/sdk');
    await expect(verifyAgentCardSignature(keyOf)(card as never)).resolves.toBeUndefined();
    const jose = await import('jose');
    expect(jose.decodeProtectedHeader(card.signatures![0]!)).toMatchObject({ alg: 'ES256', kid: 'card-key-1', typ: 'JOSE' });
  });

  test('the signature is a JWS over the RFC 8785 canonical form of the card, and a changed card no longer verifies', async () => {
    const card = (await t.api.get('/.well-known/agent-card.json')).body as AgentCard;
    const [{ default: canonicalize }, jose] = await Promise.all([import('canonicalize'), import('jose')]);
    const key = await keyOf('card-key-1', `${BASE}${CARD_JWKS_PATH}`);
    const jws = (c: AgentCard, payload: string) => ({ ...c.signatures![0]!, payload: jose.base64url.encode(payload) });
    const canonical = canonicalize(await canonicalFormOf(card))!;
    await expect(jose.flattenedVerify(jws(card, canonical), key)).resolves.toBeDefined();
    const changed = { ...card, description: `${card.description} (changed)` };
    await expect(jose.flattenedVerify(jws(card, canonicalize(await canonicalFormOf(changed))!), key)).rejects.toThrow();
    const { verifyAgentCardSignature } = await import('@a2a-js/sdk');
    await expect(verifyAgentCardSignature(keyOf)(changed as never)).rejects.toThrow();
  });
});
