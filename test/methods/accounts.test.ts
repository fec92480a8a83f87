import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';

describe.each(backends())('accounts on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());

  const valid = (over: Record<string, unknown> = {}) => ({
    email: `u${Math.random().toString(36).slice(2)}@example.com`,
    password: 'password123',
    displayName: 'Trader',
    ...over,
  });

  test('when an agent registers, then it gets 201, a svc_ key shown once and 1000 dollars', async () => {
    const res = await t.api.post('/api/auth/register').send(valid({ isAgent: true, agentDescription: 'I forecast' }));
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.user.apiKey).toMatch(/^svc_[0-9a-f]{32}$/);
    expect(res.body.user.balance).toBe(1000);
    const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${res.body.user.apiKey}`);
    expect(bal.status).toBe(200);
    expect(bal.body).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when a person registers, then no key is returned', async () => {
    const res = await t.api.post('/api/auth/register').send(valid());
    expect(res.status).toBe(201);
    expect(res.body.user.apiKey).toBeUndefined();
  });

  test('when the email is taken in another case, then 400 EMAIL_TAKEN and no second account', async () => {
    const body = valid();
    expect((await t.api.post('/api/auth/register').send(body)).status).toBe(201);
    const res = await t.api.post('/api/auth/register').send({ ...body, email: body.email.toUpperCase() });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('EMAIL_TAKEN');
    const rows = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users WHERE lower(email) = lower($1)', [body.email]);
    expect(rows[0]!.n).toBe(1n);
  });

  test.each([
    ['a bad email', { email: 'not-an-email' }],
    ['a short password', { password: 'short' }],
    ['a one-letter display name', { displayName: 'A' }],
    ['a 21-letter display name', { displayName: 'x'.repeat(21) }],
    ['an unknown referral code', { referralCode: 'NOPE1234' }],
  ])('when registering with %s, then 400 VALIDATION_ERROR and nothing is stored', async (_label, over) => {
    const before = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
    const res = await t.api.post('/api/auth/register').send(valid(over));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(typeof res.body.error).toBe('string');
    const after = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test('when a valid referral code is given, then the account records its referrer', async () => {
    const a = await t.api.post('/api/auth/register').send(valid());
    const b = await t.api.post('/api/auth/register').send(valid({ referralCode: a.body.user.referralCode }));
    expect(b.status).toBe(201);
    const rows = await t.services.db.query<{ referred_by: string }>('SELECT referred_by FROM users WHERE id = $1', [b.body.user.id]);
    expect(rows[0]!.referred_by).toBe(a.body.user.id);
  });

  test('when unknown fields are sent, then the registration is refused naming them, and no account is made', async () => {
    const body = valid({ balance: 1e9, balance_micro: 5, id: 'mine', is_agent: true });
    const res = await t.api.post('/api/auth/register').send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toContain('unknown fields balance, balance_micro, id, is_agent (did you mean isAgent?)');
    const rows = await t.services.db.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [body.email]);
    expect(rows).toHaveLength(0);
  });

  test('the API key and password are never stored in clear', async () => {
    const body = valid({ isAgent: true });
    const res = await t.api.post('/api/auth/register').send(body);
    const key: string = res.body.user.apiKey;
    const rows = await t.services.db.query<Record<string, unknown>>('SELECT * FROM users WHERE id = $1', [res.body.user.id]);
    const dump = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(key.slice(4));
    expect(dump).not.toContain(body.password);
  });

  test('every account starts with a ledger grant equal to its balance', async () => {
    const { id } = await registerAgent(t);
    const rows = await t.services.db.query<{ sum: bigint; balance: bigint }>(
      `SELECT (SELECT sum(amount_micro) FROM transfers WHERE credit_account = 'cash:' || $1::text AND debit_account = 'grants')::bigint AS sum, (SELECT balance_micro FROM cash_balances WHERE user_id = $1::uuid) AS balance`,
      [id],
    );
    expect(rows[0]!.sum).toBe(1000_000000n);
    expect(rows[0]!.balance).toBe(1000_000000n);
  });

  test('when the key is missing or wrong, then 401 UNAUTHORIZED with a Bearer challenge', async () => {
    const none = await t.api.get('/api/user/balance');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
    const bad = await t.api.get('/api/user/balance').set('Authorization', 'Bearer svc_00000000000000000000000000000000');
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});
