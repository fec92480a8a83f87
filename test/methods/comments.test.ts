import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { sessionCookieOf } from '../support/identity';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

type Comment = { id: string; marketId: string; userId: string; displayName: string; isAgent: boolean; body: string; createdAt: string };
type Page = {
  comments: Comment[];
  rationales: Array<{ userId: string; probabilities: number[]; rationale: string }>;
  marketClosed: boolean;
  nextCursor: string | null;
};

describe.each(backends())('market discussion (post_comment, list_comments, hide_comment) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
  });

  const post = (key: string, body: Record<string, unknown>) => t.api.post('/api/comments').set(bearer(key)).send(body);
  const list = async (query: Record<string, unknown>): Promise<Page> => {
    const res = await t.api.get('/api/comments').query(query);
    expect(res.status).toBe(200);
    return res.body as Page;
  };
  const count = async () => Number((await t.services.db.query<{ n: string }>('SELECT count(*) AS n FROM comments'))[0]!.n);

  test('when people and agents comment, then anyone reads them newest first, as plain text with their authors, page by page without gaps', async () => {
    const a = await registerAgent(t, 'Alpha');
    const b = await registerAgent(t, 'Beta');
    const bodies = ['First thoughts.', '<script>alert(1)</script> stays text', 'Line one\r\nline two', '  trimmed  '];
    for (const [i, body] of bodies.entries()) {
      const res = await post(i % 2 === 0 ? a.apiKey : b.apiKey, { marketId: m.id, body });
      expect(res.status).toBe(201);
      expect(res.body.comment).toMatchObject({ marketId: m.id, userId: (i % 2 === 0 ? a : b).id, isAgent: true });
    }
    const all = await list({ marketId: m.id });
    expect(all.comments.map((c) => c.body)).toEqual(['trimmed', 'Line one\nline two', '<script>alert(1)</script> stays text', 'First thoughts.']);
    expect(all.comments[0]!.displayName).toMatch(/^Beta/);
    expect(all.marketClosed).toBe(false);
    expect(all.rationales).toEqual([]);
    expect(all.nextCursor).toBeNull();

    const first = await list({ marketId: m.id, limit: 3 });
    expect(first.nextCursor).not.toBeNull();
    const second = await list({ marketId: m.id, limit: 3, cursor: first.nextCursor });
    expect([...first.comments, ...second.comments]).toEqual(all.comments);
    expect(second.nextCursor).toBeNull();
  });

  test('when a comment is empty, too long, holds a control character, names an unknown market or has no key, then it is refused and nothing is written', async () => {
    const a = await registerAgent(t);
    const before = await count();
    const refused: Array<[Record<string, unknown>, number, string]> = [
      [{ marketId: m.id, body: '   ' }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, body: 'x'.repeat(1001) }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, body: 'bell \u0007 here' }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, body: 'mirror \u202e text' }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, body: 'hi', extra: 1 }, 400, 'VALIDATION_ERROR'],
      [{ marketId: 'no-such-market', body: 'hi' }, 404, 'NOT_FOUND'],
    ];
    for (const [body, status, code] of refused) {
      const res = await post(a.apiKey, body);
      expect([res.status, res.body.code ?? res.body.error?.code]).toEqual([status, code]);
    }
    expect((await t.api.post('/api/comments').send({ marketId: m.id, body: 'hi' })).status).toBe(401);
    expect((await t.api.get('/api/comments').query({ marketId: 'no-such-market' })).status).toBe(404);
    expect((await t.api.get('/api/comments').query({ marketId: m.id, cursor: 'bm90IGEgY3Vyc29y' })).status).toBe(400);
    // Exactly 1000 characters (astral ones count once) is accepted.
    expect((await post(a.apiKey, { marketId: m.id, body: '😀'.repeat(1000) })).status).toBe(201);
    expect(await count()).toBe(before + 1);
  });

  test("when a community market's creator hides a comment, then it is no longer listed and can be shown again; no one else can hide it, nor any comment on a mirrored market", async () => {
    const creator = await registerAgent(t, 'Creator');
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: creator.email, password: 'password123' });
    const created = await t.api
      .post('/api/user-markets')
      .set('Cookie', sessionCookieOf(login)!)
      .set('Origin', t.config.BASE_URL!)
      .send({
        question: 'Will the ferry run on time all week?',
        category: 'Travel',
        outcomes: ['Yes', 'No'],
        endDate: new Date(Date.now() + 48 * 3600_000).toISOString(),
      });
    expect(created.status).toBe(200);
    const cm = created.body.id as string;
    const other = await registerAgent(t, 'Other');
    const spam = (await post(other.apiKey, { marketId: cm, body: 'Buy my course!' })).body.comment as Comment;
    const kept = (await post(other.apiKey, { marketId: cm, body: 'The timetable changed on Monday.' })).body.comment as Comment;

    const hide = (key: string, id: string, body: Record<string, unknown> = {}) => t.api.post(`/api/comments/${id}/hide`).set(bearer(key)).send(body);
    expect((await hide(other.apiKey, spam.id)).status).toBe(403);
    expect((await list({ marketId: cm })).comments).toHaveLength(2);

    expect((await hide(creator.apiKey, spam.id)).body).toEqual({ id: spam.id, hidden: true });
    expect((await hide(creator.apiKey, spam.id)).body).toEqual({ id: spam.id, hidden: true }); // idempotent
    expect((await list({ marketId: cm })).comments.map((c) => c.id)).toEqual([kept.id]);
    expect((await hide(creator.apiKey, spam.id, { hidden: false })).body).toEqual({ id: spam.id, hidden: false });
    expect((await list({ marketId: cm })).comments.map((c) => c.id)).toEqual([kept.id, spam.id]);

    const onMirrored = (await post(other.apiKey, { marketId: m.id, body: 'Mirrored.' })).body.comment as Comment;
    expect((await hide(creator.apiKey, onMirrored.id)).status).toBe(403);
    expect((await hide(creator.apiKey, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await hide(creator.apiKey, 'not-an-id')).status).toBe(404);
  });

  test('when a market closes, then the rationales of its forecasters’ current forecasts appear beside its comments, never before', async () => {
    const a = await registerAgent(t, 'Reasoner');
    const b = await registerAgent(t, 'Silent');
    const submit = (key: string, body: Record<string, unknown>) =>
      t.api
        .post('/api/forecasts')
        .set(bearer(key))
        .send({ marketId: m.id, ...body });
    expect((await submit(a.apiKey, { probability: 0.55, rationale: 'Early guess.' })).status).toBe(200);
    expect((await submit(a.apiKey, { probability: 0.7, rationale: 'Polls moved.' })).status).toBe(200);
    expect((await submit(b.apiKey, { probability: 0.4 })).status).toBe(200);
    await post(b.apiKey, { marketId: m.id, body: 'I think it is lower.' });
    expect((await list({ marketId: m.id })).rationales).toEqual([]);

    await resolveMarket(t.services.db, m.id, 'YES');
    const page = await list({ marketId: m.id });
    expect(page.marketClosed).toBe(true);
    expect(page.rationales).toEqual([
      expect.objectContaining({ userId: a.id, probabilities: [0.7], rationale: 'Polls moved.', displayName: expect.stringMatching(/^Reasoner/) }),
    ]);
    expect(page.comments).toHaveLength(1);
  });

  test('when comments come faster than the per-minute budget, then the extra ones are refused with RATE_LIMITED and not written', async () => {
    const limited = await startTestApp(backend, { prices, config: { RATE_LIMIT_COMMENT_PER_MIN: 2 } });
    try {
      const mk = await seedMarket(limited.services.db);
      const a = await registerAgent(limited);
      const send = () => limited.api.post('/api/comments').set(bearer(a.apiKey)).send({ marketId: mk.id, body: 'again' });
      expect([(await send()).status, (await send()).status, (await send()).status]).toEqual([201, 201, 429]);
      const n = await limited.services.db.query<{ n: string }>('SELECT count(*) AS n FROM comments WHERE market_id = $1', [mk.id]);
      expect(Number(n[0]!.n)).toBe(2);
    } finally {
      await limited.close();
    }
  });

  test('when an account is deleted, then its comments go with it', async () => {
    const a = await registerAgent(t, 'Leaving');
    await post(a.apiKey, { marketId: m.id, body: 'Soon gone.' });
    expect((await list({ marketId: m.id })).comments).toHaveLength(1);
    await t.services.accountDeletion.delete(a.id, 'password123', new Date());
    expect((await list({ marketId: m.id })).comments).toEqual([]);
  });

  test('when comments are posted and read over JSON-RPC and MCP, then they are the same comments', async () => {
    const a = await registerAgent(t);
    const rpc = await rpcCall(t, 'post_comment', { marketId: m.id, body: 'Over JSON-RPC.' }, bearer(a.apiKey));
    expect(rpc.result.comment.body).toBe('Over JSON-RPC.');
    const listed = await mcpCall(t, 'list_comments', { marketId: m.id }, bearer(a.apiKey));
    expect(listed.result.structuredContent.comments.map((c: Comment) => c.body)).toEqual(['Over JSON-RPC.']);
  });
});
