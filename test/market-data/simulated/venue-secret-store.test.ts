import { backends } from '../../support/backends';
import { testConfig } from '../../../src/config';
import { venueMasterSecret } from '../../../src/market-data/simulated/venue-secret-store';
import { startService } from '../../../src/start';
import { createLogger } from '../../../src/logger';

describe.each(backends())('the venue master secret on $name', (backend) => {
  test('when no secret is configured, then the first start generates one, keeps it, and every later start reads the same', async () => {
    const { db, drop } = await backend.open();
    try {
      expect(await db.query(`SELECT * FROM venue_secret`)).toEqual([]);
      const config = testConfig({ DATA_DIR: 'memory' });
      expect(config.SIM_SECRET).toBeUndefined();
      const [a, b] = await Promise.all([venueMasterSecret(config, db), venueMasterSecret(config, db)]);
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      expect(b).toBe(a);
      expect(await venueMasterSecret(config, db)).toBe(a);
      // A service started on that database seals its venue under the stored secret.
      const service = await startService(config, createLogger('silent'), { db, background: false, webDir: null });
      try {
        expect(service.services.config.SIM_SECRET).toBe(a);
      } finally {
        await service.stop();
      }
    } finally {
      await drop();
    }
  });

  test('when a secret is configured, then it is the one used and nothing is stored', async () => {
    const { db, drop } = await backend.open();
    try {
      const config = testConfig({ DATA_DIR: 'memory', SIM_SECRET: 'AB'.repeat(32) });
      expect(await venueMasterSecret(config, db)).toBe('ab'.repeat(32));
      expect(await db.query(`SELECT * FROM venue_secret`)).toEqual([]);
    } finally {
      await drop();
    }
  });

  test('when the configured secret is not 64 hex digits, then the config is refused', () => {
    expect(() => testConfig({ SIM_SECRET: 'abc' })).toThrow(/SIM_SECRET/);
  });
});
