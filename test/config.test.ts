import { ConfigError, loadConfig } from '../src/config';
import { postgresDataSource } from '../src/db/database';

describe('configuration', () => {
  test('with no environment, every variable has an offline default', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      MARKET_FEED: 'simulated',
      PRICE_MAX_AGE_S: 120,
      RATE_LIMIT_REGISTER_PER_MIN: 5,
      RATE_LIMIT_API_PER_MIN: 30,
      RATE_LIMIT_TRADE_PER_MIN: 120,
      RATE_LIMIT_SELL_PER_MIN: 120,
      MARKET_SYNC_INTERVAL_S: 60,
      LOG_LEVEL: 'info',
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.BASE_URL).toBeUndefined(); // each request names the address it reached (src/transports/public-origin.ts)
  });

  test('SEARCH_CONCURRENCY defaults to twice the CPUs this process may use, and takes a positive integer', () => {
    const { availableParallelism } = jest.requireActual<typeof import('node:os')>('node:os');
    expect(loadConfig({}).SEARCH_CONCURRENCY).toBe(2 * availableParallelism());
    expect(loadConfig({ SEARCH_CONCURRENCY: '5' }).SEARCH_CONCURRENCY).toBe(5);
    expect(() => loadConfig({ SEARCH_CONCURRENCY: '0' })).toThrow(ConfigError);
  });

  test('DB_QUERY_TIMEOUT_MS defaults to 5 s and takes a positive integer; the statement timeout is capped just under it', () => {
    expect(loadConfig({}).DB_QUERY_TIMEOUT_MS).toBe(5000);
    expect(loadConfig({ DB_QUERY_TIMEOUT_MS: '2000' }).DB_QUERY_TIMEOUT_MS).toBe(2000);
    for (const bad of ['0', '-5', 'soon', '1.5']) expect(() => loadConfig({ DB_QUERY_TIMEOUT_MS: bad })).toThrow(ConfigError);
    const extra = (env: Record<string, string>) => postgresDataSource(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', ...env })).options.extra;
    expect(extra({})).toMatchObject({ query_timeout: 5000, statement_timeout: 4750 });
    expect(extra({ DB_STATEMENT_TIMEOUT_MS: '1000' })).toMatchObject({ query_timeout: 5000, statement_timeout: 1000 });
  });

  test('POLYMARKET_TIMEOUT_MS defaults to 4 s and POLYMARKET_RETRIES to 2; both take bounded integers only', () => {
    expect(loadConfig({})).toMatchObject({ POLYMARKET_TIMEOUT_MS: 4000, POLYMARKET_RETRIES: 2 });
    expect(loadConfig({ POLYMARKET_TIMEOUT_MS: '250', POLYMARKET_RETRIES: '0' })).toMatchObject({ POLYMARKET_TIMEOUT_MS: 250, POLYMARKET_RETRIES: 0 });
    for (const bad of ['0', '99', '60001', 'slow', '1.5']) expect(() => loadConfig({ POLYMARKET_TIMEOUT_MS: bad })).toThrow(/POLYMARKET_TIMEOUT_MS/);
    for (const bad of ['-1', '6', 'many', '0.5']) expect(() => loadConfig({ POLYMARKET_RETRIES: bad })).toThrow(/POLYMARKET_RETRIES/);
  });

  test('BASE_URL stays unset unless set (each request then names the address), and loses a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).BASE_URL).toBeUndefined();
    expect(loadConfig({ BASE_URL: 'https://paper.example.com/' }).BASE_URL).toBe('https://paper.example.com');
    expect(() => loadConfig({ BASE_URL: 'ftp://paper.example.com' })).toThrow(/BASE_URL/);
  });

  test.each([
    ['PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://x'],
    ['MARKET_FEED', 'nasdaq'],
    ['PRICE_MAX_AGE_S', '-1'],
    ['RATE_LIMIT_TRADE_PER_MIN', '0'],
    ['TRUST_PROXY', 'true'],
    ['LOG_LEVEL', 'loud'],
  ])('when %s=%s, then loading fails with one line naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      expect((err as Error).message).toContain(name);
      expect((err as Error).message).not.toContain('\n');
    }
  });
});
