import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { signedInPerson, ManualClock } from '../support/identity';

describe.each(backends())('community markets on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
  });
  afterAll(async () => t.close());

  const future = () => new Date(clock.now().getTime() + 7 * 86400_000).toISOString();
  const valid = (over: Record<string, unknown> = {}) => ({
    question: 'Will the town fair draw more than 5,000 visitors?',
    description: 'Resolves on the organisers’ published count.',
    category: 'Culture',
    outcomes: ['Yes', 'No'],
    endDate: future(),
    ...over,
  });

  async function create(person: { cookie: string; origin: string }, body: Record<string, unknown>) {
    return t.api.post('/api/user-markets').set('Cookie', person.cookie).set('Origin', person.origin).send(body);
  }

  test('when a signed-in person creates a market, then it is listed publicly as active, newest first', async () => {
    const p = await signedInPerson(t);
    const first = await create(p, valid());
    clock.advance(1000); // the test clock stands still: the second is a second newer
    const second = await create(
      p,
      valid({ question: 'Will the bakery open a second shop this year?', category: 'Business', outcomes: ['Yes', 'No', 'Maybe'] }),
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ question: valid().question, category: 'Culture', outcomes: ['Yes', 'No'], status: 'active', creatorId: p.id });
    const list = await t.api.get('/api/user-markets').query({ creator: p.id });
    expect(list.status).toBe(200);
    expect(list.body.markets.map((m: { id: string }) => m.id)).toEqual([second.body.id, first.body.id]);
    const culture = await t.api.get('/api/user-markets').query({ creator: p.id, category: 'culture' });
    expect(culture.body.markets.map((m: { id: string }) => m.id)).toEqual([first.body.id]);
    const limited = await t.api.get('/api/user-markets').query({ creator: p.id, limit: 1 });
    expect(limited.body.markets).toHaveLength(1);
    const featured = await t.api.get('/api/user-markets').query({ creator: p.id, featured: 'true' });
    expect(featured.body.markets).toEqual([]);
  });

  test.each([
    ['a 9-character question', { question: 'Too short' }],
    ['a 201-character question', { question: 'q'.repeat(201) }],
    ['a 1001-character description', { description: 'd'.repeat(1001) }],
    ['one outcome', { outcomes: ['Yes'] }],
    ['eleven outcomes', { outcomes: Array.from({ length: 11 }, (_, i) => `O${i}`) }],
    ['an empty outcome label', { outcomes: ['Yes', ''] }],
    ['a 51-character outcome label', { outcomes: ['Yes', 'n'.repeat(51)] }],
    ['duplicate outcomes', { outcomes: ['Yes', 'yes'] }],
    ['an end date in the past', { endDate: '2020-01-01T00:00:00Z' }],
    ['an end date that is not ISO 8601', { endDate: 'next tuesday' }],
    ['no category', { category: undefined }],
  ])('when creating with %s, then 400 VALIDATION_ERROR and nothing is stored', async (_label, over) => {
    const p = await signedInPerson(t);
    const res = await create(p, valid(over));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    const list = await t.api.get('/api/user-markets').query({ creator: p.id, status: 'all' });
    expect(list.body.markets).toEqual([]);
  });

  test('when one market is asked for by slug or id, then it comes back publicly; an unknown one is 404', async () => {
    const p = await signedInPerson(t);
    const made = (await create(p, valid({ question: 'Will the harbour ferry run on New Year’s Day?' }))).body;
    const bySlug = await t.api.get(`/api/user-markets/${made.slug}`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toEqual(made);
    const byId = await t.api.get(`/api/user-markets/${made.id}`);
    expect(byId.body).toEqual(made);
    const missing = await t.api.get('/api/user-markets/no-such-market');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  test('when an API key is used to create, then 401: creating needs a browser session', async () => {
    const a = await registerAgent(t);
    const res = await t.api.post('/api/user-markets').set('Authorization', `Bearer ${a.apiKey}`).send(valid());
    expect(res.status).toBe(401);
    const none = await t.api.post('/api/user-markets').send(valid());
    expect(none.status).toBe(401);
  });

  test('only the creator resolves, once, to one of the outcome labels, and only after its end date', async () => {
    const p = await signedInPerson(t);
    const other = await signedInPerson(t);
    const m = (await create(p, valid())).body;
    const resolve = (who: { cookie: string; origin: string }, outcome: string) =>
      t.api.post(`/api/user-markets/${m.id}/resolve`).set('Cookie', who.cookie).set('Origin', who.origin).send({ outcome });
    expect((await resolve(other, 'Yes')).status).toBe(404);
    expect((await resolve(p, 'Perhaps')).status).toBe(400);
    expect((await resolve(p, 'Yes')).status).toBe(409); // before its end date: only VOID, with a reason
    clock.advance(7 * 86400_000 + 1000);
    const done = await resolve(p, 'yes');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'resolved', resolvedOutcome: 'Yes' });
    expect((await resolve(p, 'No')).status).toBe(409);
    const active = await t.api.get('/api/user-markets').query({ creator: p.id });
    expect(active.body.markets).toEqual([]);
    const resolved = await t.api.get('/api/user-markets').query({ creator: p.id, status: 'resolved' });
    expect(resolved.body.markets.map((x: { id: string }) => x.id)).toEqual([m.id]);
  });

  test('when the list query is out of range, then 400', async () => {
    expect((await t.api.get('/api/user-markets').query({ limit: 0 })).status).toBe(400);
    expect((await t.api.get('/api/user-markets').query({ limit: 101 })).status).toBe(400);
    expect((await t.api.get('/api/user-markets').query({ status: 'closed' })).status).toBe(400);
  });
});
